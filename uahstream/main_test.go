package uahstream

import (
	"testing"

	"go.uber.org/goleak"
)

func goleakMain(m *testing.M) { goleak.VerifyTestMain(m) }
