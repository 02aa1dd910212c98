//go:build !unix || solaris || illumos || aix

package statedir

// lockHeld cannot tell on a system without flock.
func lockHeld(string) (held, known bool) { return false, false }
