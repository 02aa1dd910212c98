package stream

// Option configures the functions that read a stream: [NewDecoder],
// [Summarize] and [Validate]. [WithMaxLineSize] applies to all of them
// (each reads through a Decoder); [WithExitCode] and [WithStrict] are
// Validate's own.
type Option func(*options)

type options struct {
	maxLine  int  // NewDecoder and all that read
	exitCode int  // Validate
	strict   bool // Validate
}

const noExitCode = -1 << 31 // WithExitCode was not given

func newOptions(opts []Option) options {
	o := options{maxLine: DefaultMaxLineSize, exitCode: noExitCode}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// DefaultMaxLineSize is the longest line a [Decoder] decodes unless
// [WithMaxLineSize] says otherwise: 64 MiB.
const DefaultMaxLineSize = 64 << 20

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
