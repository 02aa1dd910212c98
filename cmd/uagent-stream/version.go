package main

import (
	"fmt"
	"runtime/debug"
)

func cmdVersion(e env, args []string) error {
	fs := flags(e, "version")
	if err := fs.parse(args); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, versionString())
	return nil
}

// versionString is the module version and the VCS revision the command was
// built from, as the build info has them.
func versionString() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "uagent-stream (no build info)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, when, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	out := "uagent-stream " + v
	if rev != "" {
		out += fmt.Sprintf(" (%s %s%s)", rev, when, dirty)
	}
	return out + " " + info.GoVersion
}
