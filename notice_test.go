package stream

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNotices(t *testing.T) {
	var n Notices
	w := PreflightWarningDTO{Code: "auth", Message: "expiring"}
	for i := 1; i <= 3; i++ {
		c, ok := n.Add(w)
		assert.True(t, ok)
		assert.Equal(t, i, c)
	}
	c, _ := n.Add(PreflightWarningDTO{Code: "auth", Message: "expired"})
	assert.Equal(t, 1, c, "another message is another notice")
	c, _ = n.Add(PreflightWarningDTO{Code: "auth2", Message: "expiring"})
	assert.Equal(t, 1, c, "another code is another notice")
	c, _ = n.Add(RunnerErrorDTO{Message: "expiring"})
	assert.Equal(t, 1, c, "another type is another notice")
	_, ok := n.Add(UserMessageDTO{Text: "expiring"})
	assert.False(t, ok, "only warnings and runner errors coalesce")
}
