package stream

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fold coalesces notices by the package's rule: a preflight warning by
// its code and message, a runner error by its message, nothing else.
func TestFoldNotices(t *testing.T) {
	var f Fold
	add := func(dto any) Change {
		t.Helper()
		return f.Add(dto, nil)
	}
	w := PreflightWarningDTO{header: header{At: t0}, Code: "auth", Message: "expiring"}
	ch := add(w)
	assert.Equal(t, [2]int{int(StepOpened), 0}, [2]int{int(ch.NoticeStep), ch.NoticeIndex})
	for range 2 {
		ch = add(w)
		assert.Equal(t, [2]int{int(StepRepeated), 0}, [2]int{int(ch.NoticeStep), ch.NoticeIndex})
	}
	ch = add(PreflightWarningDTO{Code: "auth", Message: "expired"})
	assert.Equal(t, [2]int{int(StepOpened), 1}, [2]int{int(ch.NoticeStep), ch.NoticeIndex}, "another message is another notice")
	ch = add(PreflightWarningDTO{Code: "auth2", Message: "expiring"})
	assert.Equal(t, [2]int{int(StepOpened), 2}, [2]int{int(ch.NoticeStep), ch.NoticeIndex}, "another code is another notice")
	ch = add(RunnerErrorDTO{Message: "expiring"})
	assert.Equal(t, [2]int{int(StepOpened), 3}, [2]int{int(ch.NoticeStep), ch.NoticeIndex}, "another type is another notice")
	ch = add(RunnerErrorDTO{Message: "auth\x00expiring"})
	assert.Equal(t, [2]int{int(StepOpened), 4}, [2]int{int(ch.NoticeStep), ch.NoticeIndex}, "a message cannot pass for a code and a message")
	ch = add(UserMessageDTO{Text: "expiring"})
	assert.Zero(t, ch.NoticeStep, "only warnings and runner errors are notices")
	require.Len(t, f.Notices(), 5)
	assert.Equal(t, Notice{Type: TypePreflightWarning, Code: "auth", Message: "expiring", At: t0, Count: 3}, f.Notice(0))
	assert.Equal(t, Notice{Type: TypeRunnerError, Message: "expiring", Count: 1}, f.Notice(3))
}
