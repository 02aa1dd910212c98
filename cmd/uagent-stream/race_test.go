//go:build race

package main

// raceEnabled reports a -race build, ten times slower on byte loops.
const raceEnabled = true
