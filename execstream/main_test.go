package execstream

import (
	"testing"

	"github.com/uagentkit/stream/internal/testenv"
)

// fakeUagent is the path of the fake uagent built by TestMain, where the
// platform starts processes.
var fakeUagent string

// TestMain builds the fake uagent and checks, after all tests, that none
// left a goroutine behind.
func TestMain(m *testing.M) { testenv.MainWithFake(m, "../testdata/fakeuagent", &fakeUagent) }
