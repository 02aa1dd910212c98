package main

import (
	"io"

	"github.com/uagentkit/stream/ssestream"
	"github.com/uagentkit/stream/uahstream"
)

// cmdHTML writes a run or a session as one self-contained HTML file: the
// serve page, its events embedded (ssestream.WriteHTML).
func cmdHTML(e env, args []string) error {
	fl := flags(e, "html")
	fl.stateDirFlag("")
	out := fl.String("o", "", "write the page to this `file` instead of standard output")
	if err := fl.parse(args); err != nil {
		return err
	}
	if fl.NArg() != 1 {
		return fl.usageError("want one FILE, -, or an id of the history")
	}
	sess := new(uahstream.Session)
	rec := ssestream.NewRecording(sess)
	defer rec.Close()
	in, err := openInput(e, fl.Arg(0), sess)
	if err != nil {
		return err
	}
	defer in.Close()
	for l := range in.Reader.Lines() {
		rec.Add(l)
	}
	if err := in.Reader.Err(); err != nil {
		return err
	}
	rec.End(nil)
	serious := reportProblems(e, in)
	err = writeOut(e, *out, func(w io.Writer) error { return ssestream.WriteHTML(w, rec) })
	switch {
	case err != nil:
		return err
	case serious:
		return exitError{1}
	}
	return nil
}
