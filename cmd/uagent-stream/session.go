package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/uahstream"
)

// sessionRead is a session stream of the harness, folded: the session,
// and the lines that could not be read.
type sessionRead struct {
	s           uahstream.Session
	firstErrors []error
}

// readSession folds the session stream r. The error is the reader's.
func readSession(r io.Reader) (*sessionRead, error) {
	sr := &sessionRead{}
	for dto, err := range uahstream.NewDecoder(r).All() {
		if err != nil {
			if _, ok := errors.AsType[*stream.LineError](err); !ok {
				return sr, err
			}
			if len(sr.firstErrors) < 1000 {
				sr.firstErrors = append(sr.firstErrors, err)
			}
		}
		sr.s.Add(dto, err)
	}
	return sr, nil
}

// sessionStats is what stats prints of a session: each run's summary as
// stats prints the run alone, and their totals.
type sessionStats struct {
	SessionID string            `json:"session_id"`
	Runs      []json.RawMessage `json:"runs"`
	Totals    uahstream.Totals  `json:"totals"`
}

// statsOfSession prints a session's stats (or, with check, every run's
// differences from its summary) and returns the exit code.
func statsOfSession(e env, name string, sr *sessionRead, check, allowErrors, several bool) int {
	shown := sanitize(name, false)
	for _, le := range sr.firstErrors {
		fmt.Fprintf(e.stderr, "uagent-stream: %s: %s\n", shown, sanitize(le.Error(), false))
	}
	lines, lineErrors := sr.s.Lines()
	if lineErrors > 0 {
		fmt.Fprintf(e.stderr, "uagent-stream: %s: %d of %d lines could not be read\n", shown, lineErrors, lines)
	}
	code := 0
	if lineErrors > 0 && !allowErrors {
		code = 1
	}
	runs := sr.s.Runs()
	if check {
		prefix := ""
		if several {
			prefix = shown + ": "
		}
		for i, r := range runs {
			run := fmt.Sprintf("run %d %s", i+1, sanitize(r.Summary.RunID, true))
			if r.Recorded == nil {
				fmt.Fprintf(e.stderr, "uagent-stream: %s: %s: no run_finished summary to check against\n", shown, run)
				code = 1
				continue
			}
			for _, d := range r.Diff() {
				fmt.Fprintln(e.stdout, prefix+run+": "+sanitize(d.String(), false))
				code = 1
			}
		}
		return code
	}
	out := sessionStats{SessionID: sr.s.ID(), Runs: []json.RawMessage{}, Totals: sr.s.Totals()}
	for _, r := range runs {
		b, err := stream.MarshalSummary(r.Summary) // as stats prints the run alone
		if err != nil {
			fmt.Fprintf(e.stderr, "uagent-stream: %s: %s\n", shown, sanitize(err.Error(), false))
			return 1
		}
		out.Runs = append(out.Runs, b)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(out)
	if err == nil {
		_, err = (jsonOut{e.stdout}).Write(b.Bytes())
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "uagent-stream: %s: %s\n", shown, sanitize(err.Error(), false))
		return 1
	}
	return code
}
