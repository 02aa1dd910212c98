package main

import (
	"encoding/json"
	"fmt"

	"github.com/uagentkit/stream"
)

func cmdValidate(e env, args []string) error {
	fs := flags(e, "validate")
	asJSON := fs.Bool("json", false, "print one JSON object per violation")
	strict := fs.Bool("strict", false, "also require every field the current writer always writes (default: only what a v1 line cannot be read without)")
	exitCode := fs.Int("exit-code", -1, "the exit `code` of the run that wrote the stream, to accept the endings without run_finished (2: no line, 1: only run_started)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fs.usageError("want at least one FILE or -")
	}
	var opts []stream.Option
	if *exitCode >= 0 {
		opts = append(opts, stream.WithExitCode(*exitCode))
	}
	if *strict {
		opts = append(opts, stream.WithStrict())
	}
	found, failed := false, false
	enc := json.NewEncoder(jsonOut{e.stdout})
	enc.SetEscapeHTML(false)
	results := forEachFile(fs.Args(), func(name string) any {
		in, err := open(e, name)
		if err != nil {
			return err
		}
		defer in.Close()
		findings, err := stream.Validate(in, opts...)
		return validated{findings, err}
	})
	for i, name := range fs.Args() {
		var v validated
		switch r := (<-results[i]).(type) {
		case error:
			fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(r.Error(), false))
			failed = true
			continue
		case validated:
			v = r
		}
		if v.err != nil {
			fmt.Fprintf(e.stderr, "uagent-stream: %s: %s\n", sanitize(name, false), sanitize(v.err.Error(), false))
			failed = true
		}
		for _, f := range v.findings {
			found = true
			if *asJSON {
				if err := enc.Encode(struct {
					File string `json:"file"`
					stream.Finding
				}{name, f}); err != nil {
					return err
				}
				continue
			}
			where := fmt.Sprintf("%s:%d", name, f.Line)
			if f.Line == 0 {
				where = name
			}
			fmt.Fprintf(e.stdout, "%s: %s (%s)\n", sanitize(where, false), sanitize(f.Message, false), f.Rule)
		}
	}
	if found || failed {
		return exitError{1}
	}
	return nil
}

type validated struct {
	findings []stream.Finding
	err      error
}

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
	results := forEachFile(fs.Args(), func(name string) any {
		in, err := open(e, name)
		if err != nil {
			return err
		}
		defer in.Close()
		r, err := stream.Summarize(in)
		if err != nil {
			return err
		}
		return r
	})
	code := 0
	for i, name := range fs.Args() {
		var r stream.Recomputed
		switch v := (<-results[i]).(type) {
		case error:
			fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(v.Error(), false))
			code = 1
			continue
		case stream.Recomputed:
			r = v
		}
		if c := statsOf(e, name, r, *check, *allowErrors, fs.NArg() > 1); c > code {
			code = c
		}
	}
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
