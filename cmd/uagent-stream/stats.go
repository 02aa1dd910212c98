package main

import (
	"fmt"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/uahstream"
)

func cmdStats(e env, args []string) error {
	fs := flags(e, "stats")
	check := fs.Bool("check", false, "compare with the stream's own run_finished summary; exit 1 on any difference")
	allowErrors := fs.Bool("allow-errors", false, "exit 0 even when lines could not be read (they are still counted on stderr)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fs.usageError("want at least one FILE or -")
	}
	// Files are independent: they are summarized on all cores, and printed
	// in argument order.
	names := fs.Args()
	type summarized struct {
		r        stream.Recomputed
		session  *sessionRead // a session stream of the harness
		err      error
		problems []error
	}
	code := 0
	inOrder(len(names), each(func(i int) summarized {
		in, err := open(e, names[i])
		if err != nil {
			return summarized{err: err}
		}
		defer in.Close()
		rd, session, err := uahstream.Sniff(in)
		if err == nil && session {
			sr, err := readSession(rd)
			in.Close()
			return summarized{session: sr, err: err, problems: problemsOf(in)}
		}
		r, err := stream.Summarize(rd)
		in.Close()
		if rs, ok := in.(*runStream); ok { // as uagent stats reads a run directory
			r.Summary = statedir.StatsSummary(rs.run, r)
		}
		return summarized{r: r, err: err, problems: problemsOf(in)}
	}), func(i int, s summarized) {
		for _, p := range s.problems {
			fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(p.Error(), false))
			if serious(p) && !*allowErrors {
				code = 1
			}
		}
		if s.err != nil {
			fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(s.err.Error(), false))
			code = 1
			return
		}
		if s.session != nil {
			code = max(code, statsOfSession(e, names[i], s.session, *check, *allowErrors, len(names) > 1))
			return
		}
		code = max(code, statsOf(e, names[i], s.r, *check, *allowErrors, len(names) > 1))
	})
	if code != 0 {
		return exitError{code}
	}
	return nil
}

// statsOf prints one file's summary (or, with check, its differences,
// prefixed with the file's name when there are several) and returns its
// exit code.
func statsOf(e env, name string, r stream.Recomputed, check, allowErrors, several bool) int {
	shown := sanitize(name, false)
	for _, le := range r.FirstErrors {
		fmt.Fprintf(e.stderr, "uagent-stream: %s: %s\n", shown, sanitize(le.Error(), false))
	}
	if r.LineErrors > len(r.FirstErrors) {
		fmt.Fprintf(e.stderr, "uagent-stream: %s: %d more line errors\n", shown, r.LineErrors-len(r.FirstErrors))
	}
	if r.LineErrors > 0 {
		fmt.Fprintf(e.stderr, "uagent-stream: %s: %d of %d lines could not be read\n", shown, r.LineErrors, r.LineErrors+r.Lines)
	}
	if r.Lines == 0 {
		fmt.Fprintf(e.stderr, "uagent-stream: %s: an empty stream: no line to summarize\n", shown)
		return 1
	}
	code := 0
	if r.LineErrors > 0 && !allowErrors {
		code = 1
	}
	if check {
		if r.Recorded == nil {
			fmt.Fprintf(e.stderr, "uagent-stream: %s: no run_finished summary to check against\n", shown)
			return 1
		}
		prefix := ""
		if several {
			prefix = shown + ": "
		}
		for _, d := range r.Diff() {
			fmt.Fprintln(e.stdout, prefix+sanitize(d.String(), false))
			code = 1
		}
		return code
	}
	b, err := stream.MarshalSummary(r.Summary)
	if err == nil {
		_, err = (jsonOut{e.stdout}).Write(b)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "uagent-stream: %s: %s\n", shown, sanitize(err.Error(), false))
		return 1
	}
	return code
}
