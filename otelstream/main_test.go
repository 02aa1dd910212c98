package otelstream

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks, after all tests, that none left a goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
