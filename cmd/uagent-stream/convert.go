package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/uagentkit/stream/statedir"
)

// cmdConvert writes a run directory of uagent's state directory as the v1
// stream uagent would have written of it with --stream.
func cmdConvert(e env, args []string) error {
	fl := flags(e, "convert")
	fl.stateDirFlag("")
	out := fl.String("o", "", "write the stream to this `file` instead of standard output")
	if err := fl.parse(args); err != nil {
		return err
	}
	if fl.NArg() != 1 {
		return fl.usageError("want one RUN_DIR")
	}
	dir := fl.Arg(0)
	found, ok, err := lookupHistory(e, dir)
	switch {
	case err != nil:
		return err
	case ok && found.Run != nil:
		dir = found.Run.Dir
	case ok:
		var ids []string
		for _, r := range found.Session.Runs {
			ids = append(ids, r.ID)
		}
		return fmt.Errorf("convert: %s is a session: convert writes one run; its runs are %s", dir, strings.Join(ids, ", "))
	}
	if !statedir.IsRun(dir) {
		return fmt.Errorf("convert: %s is not a run directory (one with events.jsonl, summary.json or request.json)", dir)
	}
	r, err := statedir.OpenRun(dir)
	if err != nil {
		return err
	}
	if err := writeOut(e, *out, r.Write); err != nil {
		return err
	}
	code := 0
	for _, p := range r.Problems() {
		fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(p.Error(), false))
		if statedir.Serious(p) {
			code = 1
		}
	}
	if code != 0 {
		return exitError{code}
	}
	return nil
}

// writeOut writes what write writes to the file path (-o), else to
// standard output; a file that cannot be closed is an error too.
// writeOut writes to path (standard output for "" or -) what write
// writes, refusing a file of the history.
func writeOut(e env, path string, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		return write(e.stdout)
	}
	if statedir.Saved(path) {
		return fmt.Errorf("-o %s: a file of the history (uagent's or uah's): not overwritten", path)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
