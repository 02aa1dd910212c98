package stream

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClassifyAndExitCode(t *testing.T) {
	failed := Stats{Failures: []string{"f"}}
	errored := Stats{Errors: []string{"e"}}
	for _, c := range []struct {
		term  Status
		code  int
		stats Stats
		want  Status
	}{
		{"", 0, Stats{}, StatusOK},
		{"", 1, Stats{}, StatusError},
		{"", -1, Stats{}, StatusError},
		{"", 0, failed, StatusError},
		{"", 0, errored, StatusError},
		{StatusTimeout, 1, errored, StatusTimeout},
		{StatusInterrupted, 0, Stats{}, StatusInterrupted},
		{StatusDiskLimit, -1, failed, StatusDiskLimit},
		{StatusOK, 1, Stats{}, StatusError},
		{StatusRunning, 0, Stats{}, StatusOK},
	} {
		assert.Equal(t, c.want, Classify(c.term, c.code, c.stats), "%+v", c)
	}
	for s, code := range map[Status]int{StatusOK: 0, StatusError: 1, StatusDiskLimit: 3, StatusTimeout: 124,
		StatusInterrupted: 130, StatusRunning: 1, "bogus": 1} {
		assert.Equal(t, code, s.ExitCode(), s)
	}
}
