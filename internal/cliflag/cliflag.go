// Package cliflag is what the command's flags need beyond the flag
// package: flags among the positional arguments, and a help that spells
// them as a synopsis does.
package cliflag

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// Permute moves the flags of args before its positional arguments, up to
// "--" (which stays, with what follows it), so that flags may follow a
// FILE: a flag of fs that takes a value keeps the argument after it.
func Permute(fs *flag.FlagSet, args []string) []string {
	var flagArgs, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			rest = append(rest, a)
			continue
		}
		flagArgs = append(flagArgs, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && !isBool(f) && i+1 < len(args) {
			i++
			flagArgs = append(flagArgs, args[i])
		}
	}
	return append(flagArgs, rest...)
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Help writes a command's synopsis, what it does, and its flags, spelled
// as the synopsis spells them (--no-color, -f), each with its default.
func Help(w io.Writer, fs *flag.FlagSet, name, synopsis, summary string) {
	fmt.Fprintf(w, "usage: uagent-stream %s %s\n\n%s.\n", name, synopsis, summary)
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			fmt.Fprint(w, "\nflags:\n")
			first = false
		}
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		arg, text := flag.UnquoteUsage(f)
		if arg != "" {
			arg = " " + arg
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  %s%s%s\n        %s%s\n", dash, f.Name, arg, text, def)
	})
}
