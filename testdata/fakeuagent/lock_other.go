//go:build !unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// lockSession: without flock, a lock file that exists is a lock held.
func lockSession(stateDir, session string) error {
	if _, err := os.Stat(filepath.Join(stateDir, "sessions", session+".lock")); err == nil {
		return fmt.Errorf("session %s is in use by another uagent (its lock is held)", session)
	}
	return nil
}
