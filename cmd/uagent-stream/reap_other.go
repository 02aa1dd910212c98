//go:build !linux

package main

import "time"

// becomeSubreaper does nothing here: only Linux lets a process adopt its
// orphaned descendants. Descendants that leave the process group are out
// of the command's reach on this platform (see the README).
func becomeSubreaper() {}

func reapOrphans(time.Duration) int { return 0 }

const runMarker = "UAGENT_STREAM_RUN"

func reapMarked(string, time.Duration) int { return 0 }
