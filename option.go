package stream

import (
	"io"
	"time"
)

// Option configures the functions that read or drive a stream:
// [NewDecoder], [Summarize], [Validate], [Start] and [Open]. Each reads the
// options that apply to it and ignores the others, so one list of options
// can be handed to all of them: the decoder options reach the Decoder that
// each of them reads with.
type Option func(*options)

type options struct {
	maxLine  int           // NewDecoder and all that read
	exitCode int           // Validate
	strict   bool          // Validate
	grace    time.Duration // Start
	speed    float64       // Open
	copyTo   io.Writer     // Start and Open
}

const (
	noExitCode   = -1 << 31 // WithExitCode was not given
	defaultGrace = 5 * time.Second
)

func newOptions(opts []Option) options {
	o := options{maxLine: DefaultMaxLineSize, exitCode: noExitCode, grace: defaultGrace}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// Limits on what is read and kept.
const (
	// DefaultMaxLineSize is the longest line a [Decoder] decodes unless
	// [WithMaxLineSize] says otherwise: 64 MiB.
	DefaultMaxLineSize = 64 << 20
	// StderrTail is how much of a process's stderr an [Outcome] keeps: the
	// last 64 KiB.
	StderrTail = 64 << 10
)

// WithMaxLineSize sets the longest line, in bytes without its line ending,
// that a Decoder decodes. A longer line is reported as ErrLineTooLong and
// skipped without being held in memory. n <= 0 means DefaultMaxLineSize.
// It applies to everything that reads a stream.
func WithMaxLineSize(n int) Option {
	return func(o *options) {
		if n <= 0 {
			n = DefaultMaxLineSize
		}
		o.maxLine = n
	}
}

// WithExitCode tells [Validate] the exit code of the process that wrote the
// stream, so that it accepts the endings the contract allows without
// run_finished: no line and exit 2 (preflight blocked), or only run_started
// and preflight warnings and exit 1 (the runner could not start).
func WithExitCode(code int) Option { return func(o *options) { o.exitCode = code } }

// WithStrict makes [Validate] require every field that the current writer
// always writes (every field not marked ? in the wire table), not only the
// fields a line cannot be read without. Streams written before a field was
// added to v1 fail strict mode but are valid v1 streams; a writer's own
// tests use it.
func WithStrict() Option { return func(o *options) { o.strict = true } }

// WithGrace sets how long [Start] waits after the interrupt before it kills
// the process tree, when the context ends, and how long descendants that
// still hold the pipes get after the process has exited. It is never a
// limit on the reader: a slow reader gets every line. The default is 5
// seconds.
func WithGrace(d time.Duration) Option { return func(o *options) { o.grace = d } }

// WithTiming makes [Open] replay events with their original spacing (by
// their at), sped up by speed (2 is twice as fast). speed <= 0 replays as
// fast as possible, the default.
func WithTiming(speed float64) Option { return func(o *options) { o.speed = speed } }

// WithStdoutCopy makes [Start] and [Open] copy every byte of the stream,
// unchanged, to w as it is read. w is written from one goroutine.
func WithStdoutCopy(w io.Writer) Option { return func(o *options) { o.copyTo = w } }
