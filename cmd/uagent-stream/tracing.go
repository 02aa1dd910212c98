package main

import (
	"context"
	"fmt"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/otelstream"
	"github.com/uagentkit/stream/uahstream"
)

// liveExport exports a stream live, beside it, when asked (--otel): a
// trace per run (see otelstream.Exporter.Add).
type liveExport struct {
	t *otelstream.Tracing
	x *otelstream.Exporter
}

func newLiveExport(e env, on, content bool) *liveExport {
	if !on {
		return nil
	}
	t, err := otelstream.NewTracing(context.Background())
	if err != nil {
		fmt.Fprintf(e.stderr, "uagent-stream: %s (the run goes on without it)\n", sanitize(err.Error(), false))
		return nil
	}
	var opts []otelstream.Option
	if content {
		opts = append(opts, otelstream.WithContent())
	}
	return &liveExport{t: t, x: otelstream.New(t.Provider(), opts...)}
}

// add adds a line to the export.
func (l *liveExport) add(line uahstream.Line) {
	if l != nil {
		l.x.Add(line)
	}
}

// end ends the run's trace with status (when the stream did not say it)
// and flushes it; an export failure is reported, and changes nothing else.
func (l *liveExport) end(e env, status stream.Status) {
	if l == nil {
		return
	}
	l.x.End(status)
	if err := l.t.Shutdown(); err != nil {
		fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(err.Error(), false))
	}
}
