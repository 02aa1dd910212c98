//go:build !unix || solaris || illumos || aix

package historytest

// Hold does nothing where there is no flock (see the unix Hold): a
// summary saying running is taken at its word there.
func Hold(home, session string) (release func(), err error) { return func() {}, nil }
