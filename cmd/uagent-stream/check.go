package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/uagentkit/stream"
)

func cmdValidate(e env, args []string) error {
	fs := flags(e, "validate", "[--json] [--strict] [--exit-code N] FILE…")
	asJSON := fs.Bool("json", false, "print one JSON object per violation")
	strict := fs.Bool("strict", false, "also require every field the current writer always writes (default: only what a v1 line cannot be read without)")
	exitCode := fs.Int("exit-code", -1, "the exit code of the run that wrote the stream, to accept the endings without run_finished (2: no line, 1: only run_started)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError(e, fs, "want at least one FILE or -")
	}
	var opts []stream.Option
	if *exitCode >= 0 {
		opts = append(opts, stream.WithExitCode(*exitCode))
	}
	if *strict {
		opts = append(opts, stream.WithStrict())
	}
	found, failed := false, false
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	for _, name := range fs.Args() {
		in, err := open(e, name)
		if err != nil {
			fmt.Fprintf(e.stderr, "uagent-stream: %v\n", err)
			failed = true
			continue
		}
		findings, err := stream.Validate(in, opts...)
		in.Close()
		if err != nil {
			fmt.Fprintf(e.stderr, "uagent-stream: %s: %v\n", name, err)
			failed = true
		}
		for _, f := range findings {
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

func cmdStats(e env, args []string) error {
	fs := flags(e, "stats", "[--check] FILE|-")
	check := fs.Bool("check", false, "compare with the stream's own run_finished summary; exit 1 on any difference")
	name, in, err := parseInput(e, fs, args)
	if err != nil {
		return err
	}
	defer in.Close()
	r, err := stream.Summarize(in)
	if err != nil {
		return err
	}
	for _, le := range r.FirstErrors {
		fmt.Fprintf(e.stderr, "uagent-stream: %s: %s\n", sanitize(name, false), sanitize(le.Error(), false))
	}
	if r.LineErrors > len(r.FirstErrors) {
		fmt.Fprintf(e.stderr, "uagent-stream: %s: %d more line errors\n", sanitize(name, false), r.LineErrors-len(r.FirstErrors))
	}
	if *check {
		if r.Recorded == nil {
			return errors.New(name + ": no run_finished summary to check against")
		}
		diffs := r.Diff()
		for _, d := range diffs {
			fmt.Fprintln(e.stdout, sanitize(d.String(), false))
		}
		if len(diffs) > 0 {
			return exitError{1}
		}
		return nil
	}
	b, err := stream.MarshalSummary(r.Summary)
	if err != nil {
		return err
	}
	_, err = e.stdout.Write(b)
	return err
}
