package main

import (
	"encoding/json"
	"fmt"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/pool"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/uahstream"
)

func cmdValidate(e env, args []string) error {
	fs := flags(e, "validate")
	fs.stateDirFlag("")
	asJSON := fs.Bool("json", false, "print one JSON object per violation")
	strict := fs.Bool("strict", false, "also require every field the current writer always writes (default: only what a v1 line cannot be read without)")
	exitCode := fs.Int("exit-code", -1, "the exit `code` of the run that wrote the stream, to accept the endings without run_finished (2: no line, 1: only run_started)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fs.usageError("want at least one FILE or -")
	}
	var opts []stream.ValidateOption
	if *exitCode >= 0 {
		opts = append(opts, stream.WithExitCode(*exitCode))
	}
	if *strict {
		opts = append(opts, stream.WithStrict())
	}
	found, failed := false, false
	enc := json.NewEncoder(jsonOut{W: e.stdout})
	enc.SetEscapeHTML(false)
	names := fs.Args()
	var encErr error
	pool.InOrder(len(names), pool.Each(func(i int) validated {
		in, err := openInput(e, names[i], nil, stream.WithFoldOnly(), stream.WithBorrowedStrings())
		if err != nil {
			return validated{open: err}
		}
		defer in.Close()
		findings, err := in.Reader.Validate(opts...)
		return validated{findings: findings, err: err, problems: in.Problems()}
	}), func(i int, v validated) {
		name := names[i]
		if v.open != nil {
			fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(v.open.Error(), false))
			failed = true
			return
		}
		for _, p := range v.problems {
			fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(p.Error(), false))
			failed = failed || statedir.Serious(p)
		}
		if v.err != nil {
			fmt.Fprintf(e.stderr, "uagent-stream: %s: %s\n", sanitize(name, false), sanitize(v.err.Error(), false))
			failed = true
		}
		for _, f := range v.findings {
			found = found || !f.Warning()
			if *asJSON {
				if err := enc.Encode(struct {
					File string `json:"file"`
					uahstream.Finding
				}{name, f}); err != nil && encErr == nil {
					encErr = err
				}
				continue
			}
			where := fmt.Sprintf("%s:%d", name, f.Line)
			if f.Line == 0 {
				where = name
			}
			run := ""
			if f.Run > 0 {
				run = fmt.Sprintf(" [run %d %s]", f.Run, sanitize(f.RunID, false))
			}
			rule := f.Rule
			if f.Warning() {
				rule += ", a warning"
			}
			fmt.Fprintf(e.stdout, "%s: %s (%s)%s\n", sanitize(where, false), sanitize(f.Message, false), rule, run)
		}
	})
	if encErr != nil {
		return encErr
	}
	if found || failed {
		return exitError{1}
	}
	return nil
}

// validated is what validate says of one file: the findings, the error
// of reading it, or that of opening it.
type validated struct {
	findings  []uahstream.Finding
	err, open error
	problems  []error // of a run directory
}
