package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/statedir"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/pool"
	"github.com/uagentkit/stream/uahstream"
)

func cmdStats(e env, args []string) error {
	fs := flags(e, "stats")
	fs.stateDirFlag("")
	check := fs.Bool("check", false, "compare with the stream's own run_finished summary; exit 1 on any difference")
	allowErrors := fs.Bool("allow-errors", false, "exit 0 even when lines could not be read (they are still counted on stderr)")
	fs.Bool("json", true, "print JSON (it always does: the flag is uagent stats' own, accepted for those who type it)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fs.usageError("want at least one FILE or -")
	}
	// Files are independent: they are summarized on all cores, and what is
	// said of each is said in argument order.
	names := fs.Args()
	type said struct {
		out, errs pool.Spill
		code      int
	}
	code := 0
	pool.InOrder(len(names), pool.Each(func(i int) *said {
		s := &said{}
		w := statsWriter{name: names[i], several: len(names) > 1, check: *check, allowErrors: *allowErrors, out: &s.out, errs: &s.errs}
		s.code = w.stats(e)
		return s
	}), func(i int, s *said) {
		s.errs.WriteOut(e.stderr)
		s.out.WriteOut(e.stdout)
		code = max(code, s.code)
	})
	if code != 0 {
		return exitError{code}
	}
	return nil
}

// statsWriter says the stats of one FILE: of a run's stream, its summary
// (as summary.json); of a session stream, each run's summary as the run
// ends, exactly as stats prints that run alone, and the totals; with
// check, the differences from the recorded summaries.
type statsWriter struct {
	name                        string
	several, check, allowErrors bool
	out, errs                   io.Writer
	code                        int
	runs                        int // summaries written
}

func (w *statsWriter) fail(format string, args ...any) {
	fmt.Fprintf(w.errs, "uagent-stream: "+format+"\n", args...)
	w.code = 1
}

func (w *statsWriter) stats(e env) int {
	shown := sanitize(w.name, false)
	// Nothing here keeps a line's strings past it (the folds copy what
	// they keep): they are borrowed.
	in, err := openInput(e, w.name, nil, stream.WithFoldOnly(), stream.WithBorrowedStrings())
	if err != nil {
		w.fail("%s", sanitize(err.Error(), false))
		return w.code
	}
	defer in.Close()
	s := in.Reader.Session()
	var last *uahstream.Ended
	for l := range in.Reader.Lines() {
		if l.Err != nil && !l.End {
			if l.Run < 0 { // between the runs of a session
				w.lineErrors([]error{l.Err}, 1)
			}
		}
		if e := l.Ended; e != nil {
			if r := in.RunOf(e); r != nil { // summary.json's metadata, as uagent stats keeps it
				e.Summary = r.UagentStats(e.Recomputed)
				if r.Summary == nil {
					fmt.Fprintf(w.errs, "uagent-stream: %s: no summary.json: its status is uagent stats' (as if the runner exited 0; %s everywhere else)\n",
						sanitize(r.Dir, false), statedir.StoppedStatus)
				}
			}
			last = e
			w.lineErrors(e.FirstErrors, e.LineErrors)
			if s.Harness() {
				w.sessionRun(s, e)
			}
		}
	}
	for _, p := range in.Problems() {
		if errors.Is(p, statedir.ErrNoSummary) {
			continue // said above, by stats' rule
		}
		fmt.Fprintf(w.errs, "uagent-stream: %s\n", sanitize(p.Error(), false))
		if statedir.Serious(p) && !w.allowErrors {
			w.code = 1
		}
	}
	if readErr := in.Reader.Err(); readErr != nil {
		w.fail("%s", sanitize(readErr.Error(), false))
		return w.code
	}
	lines, lineErrors := s.Lines()
	if lineErrors > 0 {
		fmt.Fprintf(w.errs, "uagent-stream: %s: %d of %d lines could not be read\n", shown, lineErrors, lines)
		if !w.allowErrors {
			w.code = 1
		}
	}
	switch {
	case s.Harness():
		w.sessionEnd(s, in.Session)
	case lines == lineErrors:
		w.fail("%s: an empty stream: no line to summarize", shown)
	case w.check:
		if last.Recorded == nil {
			w.fail("%s: no run_finished summary to check against", shown)
			break
		}
		w.diff("", last.Diff, last.Times)
	default:
		b, err := last.Summary.MarshalIndent()
		if err == nil {
			_, err = (jsonOut{W: w.out}).Write(b)
		}
		if err != nil {
			w.fail("%s: %s", shown, sanitize(err.Error(), false))
		}
	}
	return w.code
}

// lineErrors says the errors of the lines that could not be read: those
// a fold kept of n.
func (w *statsWriter) lineErrors(errs []error, n int) {
	for _, le := range errs {
		fmt.Fprintf(w.errs, "uagent-stream: %s: %s\n", sanitize(w.name, false), sanitize(le.Error(), false))
	}
	if n > len(errs) {
		fmt.Fprintf(w.errs, "uagent-stream: %s: %d more line errors\n", sanitize(w.name, false), n-len(errs))
	}
}

// diff says where a recorded summary differs from its events (exit 1),
// and what of its times cannot be right (warnings).
func (w *statsWriter) diff(run string, diff, times []stream.Difference) {
	prefix := ""
	if w.several {
		prefix = sanitize(w.name, false) + ": "
	}
	for _, d := range diff {
		fmt.Fprintln(w.out, prefix+run+sanitize(d.String(), false))
		w.code = 1
	}
	for _, d := range times {
		fmt.Fprintln(w.out, prefix+run+"warning: "+sanitize(d.String(), false))
	}
}

// sessionRun says a run of a session as it ends: its summary in the
// session's runs, or, with check, its differences.
func (w *statsWriter) sessionRun(s *uahstream.Session, e *uahstream.Ended) {
	if w.check {
		run := fmt.Sprintf("run %d %s", e.Run+1, sanitize(e.Summary.RunID, true))
		if e.Recorded == nil {
			w.fail("%s: %s: no run_finished summary to check against", sanitize(w.name, false), run)
			return
		}
		w.diff(run+": ", e.Diff, e.Times)
		return
	}
	b, err := e.Summary.MarshalIndent() // as stats prints the run alone
	if err != nil {
		w.fail("%s: %s", sanitize(w.name, false), sanitize(err.Error(), false))
		return
	}
	if w.runs == 0 {
		w.sessionStart(s)
	} else {
		io.WriteString(w.out, ",\n")
	}
	w.runs++
	io.WriteString(w.out, "    ")
	w.indented(b, "    ")
}

// sessionStart begins the session's object: its id and its runs, as
// encoding/json indents them.
func (w *statsWriter) sessionStart(s *uahstream.Session) {
	io.WriteString(w.out, "{\n  \"session_id\": ")
	w.indented(marshal(s.ID()), "  ")
	io.WriteString(w.out, ",\n  \"runs\": [\n")
}

// sessionEnd ends the session's object: its totals, and of a session of
// the history what its subagents spent (history.Session.Subagents).
func (w *statsWriter) sessionEnd(s *uahstream.Session, hs *history.Session) {
	if w.check {
		return
	}
	if w.runs == 0 {
		io.WriteString(w.out, "{\n  \"session_id\": ")
		w.indented(marshal(s.ID()), "  ")
		io.WriteString(w.out, ",\n  \"runs\": [],\n  \"totals\": ")
	} else {
		io.WriteString(w.out, "\n  ],\n  \"totals\": ")
	}
	w.indented(marshal(s.Totals()), "  ")
	if hs != nil && hs.Subagents.Sessions > 0 {
		io.WriteString(w.out, ",\n  \"subagents\": ")
		w.indented(marshal(hs.Subagents.JSON()), "  ")
	}
	io.WriteString(w.out, "\n}\n")
}

// indented writes JSON, its lines after the first indented as an element
// at prefix, as encoding/json writes it in an indented document (no HTML
// escaping; what a terminal could act on, escaped).
func (w *statsWriter) indented(b []byte, prefix string) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, bytes.TrimSpace(b), prefix, "  "); err != nil {
		w.fail("%s: %s", sanitize(w.name, false), sanitize(err.Error(), false))
		return
	}
	(jsonOut{W: w.out}).Write(buf.Bytes())
}

// marshal is v as JSON, without HTML escaping.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return b.Bytes()
}
