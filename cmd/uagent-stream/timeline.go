package main

import (
	"os"

	"github.com/uagentkit/stream/timeline"
	"github.com/uagentkit/stream/uahstream"
)

func cmdTimeline(e env, args []string) error {
	fs := flags(e, "timeline")
	fs.stateDirFlag("")
	out := fs.String("o", "", "write the SVG to this `file` instead of standard output")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fs.usageError("want one FILE or -")
	}
	in, err := openInput(e, fs.Arg(0), nil)
	if err != nil {
		return err
	}
	defer in.Close()
	in.Reader.Session().KeepText() // the bars' labels and details
	var tl timeline.Timeline
	if err := readInto(in.Reader, func(l uahstream.Line) { tl.Add(l) }); err != nil {
		return err
	}
	serious := reportProblems(e, in)
	svg := tl.SVG()
	if *out == "" {
		_, err = e.stdout.Write(svg)
	} else {
		err = os.WriteFile(*out, svg, 0o644)
	}
	if err == nil && serious {
		err = exitError{1}
	}
	return err
}
