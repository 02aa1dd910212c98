//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// held keeps the session lock for as long as the process lives.
var held *os.File

// lockSession takes the session's lock as uagent does: an exclusive
// flock on <state>/sessions/<id>.lock, without waiting, held until the
// process ends (the file stays).
func lockSession(stateDir, session string) error {
	dir := filepath.Join(stateDir, "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, session+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("session %s is in use by another uagent (its lock is held)", session)
		}
		return err
	}
	held = f
	return nil
}
