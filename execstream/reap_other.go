//go:build !linux

package execstream

import "time"

// BecomeSubreaper does nothing here: only Linux lets a process adopt its
// orphaned descendants. Descendants that leave the process group are out
// of the program's reach on this platform (see the README).
func BecomeSubreaper() {}

// ReapOrphans does nothing here (see BecomeSubreaper) and returns 0.
func ReapOrphans(time.Duration) int { return 0 }

// ReapMarked does nothing here (see BecomeSubreaper) and returns 0.
func ReapMarked(string, time.Duration) int { return 0 }
