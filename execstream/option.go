package execstream

import (
	"io"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/uahstream"
)

// Option configures [Start] and [Open]. Each says which of the two reads it.
type Option func(*config)

type config struct {
	grace   time.Duration          // Start
	speed   float64                // Open
	copyTo  io.Writer              // Start and Open
	decoder []stream.DecoderOption // the Decoder of Start and Open
	raw     bool                   // Start and Open
	session *uahstream.Session     // Start and Open
}

// DefaultGrace is how long [Start] waits after the interrupt, unless
// [WithGrace] says otherwise: 5 seconds.
const DefaultGrace = 5 * time.Second

// StderrTail is how much of a process's stderr an [Outcome] keeps: the last
// 64 KiB.
const StderrTail = 64 << 10

func newConfig(opts []Option) config {
	c := config{grace: DefaultGrace}
	for _, opt := range opts {
		if opt != nil {
			opt(&c)
		}
	}
	return c
}

// WithGrace sets how long [Start] waits after the interrupt before it kills
// the process tree, when the context ends, and how long descendants that
// still hold the pipes get after the process has exited. It is never a
// limit on the reader: a slow reader gets every line. The default is
// DefaultGrace.
func WithGrace(d time.Duration) Option { return func(c *config) { c.grace = d } }

// WithTiming makes [Open] replay events with their original spacing (by
// their at), sped up by speed (2 is twice as fast). speed <= 0 replays as
// fast as possible, the default.
func WithTiming(speed float64) Option { return func(c *config) { c.speed = speed } }

// WithStdoutCopy makes [Start] and [Open] copy every byte of the stream,
// unchanged, to w as it is read. w is written from one goroutine.
func WithStdoutCopy(w io.Writer) Option { return func(c *config) { c.copyTo = w } }

// WithDecoder passes options to the [stream.Decoder] that [Start] and
// [Open] read the stream with (stream.WithMaxLineSize).
func WithDecoder(opts ...stream.DecoderOption) Option {
	return func(c *config) { c.decoder = append(c.decoder, opts...) }
}

// WithSession makes [Start] and [Open] fold the lines into s, a Session
// that has had no line, instead of one of their own: for a caller that
// gives it to views before the run starts, or has it keep what a view
// needs (uahstream.Session.KeepText).
func WithSession(s *uahstream.Session) Option { return func(c *config) { c.session = s } }

// WithRaw makes every Line of [Start] and [Open] carry a copy of its
// bytes (uahstream.Line.Raw), its own to keep: for a view that passes a
// line on as it came (ssestream's Recording). Without it, Raw is nil.
func WithRaw() Option { return func(c *config) { c.raw = true } }
