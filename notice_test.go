package stream

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNotices(t *testing.T) {
	var n Notices
	w := PreflightWarningDTO{Code: "auth", Message: "expiring"}
	for i := 1; i <= 3; i++ {
		idx, c, ok := n.Add(w)
		assert.True(t, ok)
		assert.Equal(t, 0, idx)
		assert.Equal(t, i, c)
	}
	idx, c, _ := n.Add(PreflightWarningDTO{Code: "auth", Message: "expired"})
	assert.Equal(t, [2]int{1, 1}, [2]int{idx, c}, "another message is another notice")
	idx, c, _ = n.Add(PreflightWarningDTO{Code: "auth2", Message: "expiring"})
	assert.Equal(t, [2]int{2, 1}, [2]int{idx, c}, "another code is another notice")
	idx, c, _ = n.Add(RunnerErrorDTO{Message: "expiring"})
	assert.Equal(t, [2]int{3, 1}, [2]int{idx, c}, "another type is another notice")
	idx, c, _ = n.Add(w)
	assert.Equal(t, [2]int{0, 4}, [2]int{idx, c}, "the first one again")
	_, _, ok := n.Add(UserMessageDTO{Text: "expiring"})
	assert.False(t, ok, "only warnings and runner errors coalesce")
}
