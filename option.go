package stream

// DecoderOption configures a [Decoder], and everything that reads a
// stream through one ([Summarize], [Validate], a fold's checks): an
// option a function does not read does not compile.
type DecoderOption func(*decoderOptions)

type decoderOptions struct {
	maxLine   int
	foldOnly  bool
	noContent bool
	borrow    bool
}

func newDecoderOptions[O ValidateOption](opts []O) decoderOptions {
	return newValidateOptions(opts).decoderOptions
}

// ValidateOption configures [Validate] and [Fold.Check]: a DecoderOption
// ([WithMaxLineSize]), or one of the checks' own ([WithExitCode],
// [WithStrict]).
type ValidateOption interface{ applyValidate(*validateOptions) }

type validateOptions struct {
	decoderOptions
	exitCode int  // noExitCode unless WithExitCode
	strict   bool // WithStrict
}

func (o DecoderOption) applyValidate(v *validateOptions) {
	if o != nil {
		o(&v.decoderOptions)
	}
}

// validateOption is an option of the checks alone.
type validateOption func(*validateOptions)

func (o validateOption) applyValidate(v *validateOptions) { o(v) }

const noExitCode = -1 << 31 // WithExitCode was not given

func newValidateOptions[O ValidateOption](opts []O) validateOptions {
	o := validateOptions{decoderOptions: decoderOptions{maxLine: DefaultMaxLineSize}, exitCode: noExitCode}
	for _, opt := range opts {
		if any(opt) != nil {
			opt.applyValidate(&o)
		}
	}
	return o
}

// The bounds of what the package reads.
const (
	// DefaultMaxLineSize is the longest line a [Decoder] decodes unless
	// [WithMaxLineSize] says otherwise: 64 MiB.
	DefaultMaxLineSize = 64 << 20
	// MaxSummaryFile is the largest summary.json ReadSummaryFile reads: a
	// summary holds a run's answer, and the runner's answers are far
	// smaller.
	MaxSummaryFile = 64 << 20
)

// WithMaxLineSize sets the longest line, in bytes without its line ending,
// that a Decoder decodes. A longer line is reported as ErrLineTooLong and
// skipped without being held in memory. n <= 0 means DefaultMaxLineSize.
func WithMaxLineSize(n int) DecoderOption {
	return func(o *decoderOptions) {
		if n <= 0 {
			n = DefaultMaxLineSize
		}
		o.maxLine = n
	}
}

// WithFoldOnly makes a Decoder build only what a [Fold] reads: the
// strings it does not read (labels, arguments, details, paths, the texts
// of messages other than the assistant's and of reasoning, a control
// input's reason) are checked as always (their JSON type, their escapes:
// a line is an error exactly when it would be without the option) and
// left empty. For a reader that only folds (stats, checks), about a
// tenth faster; Summarize and Validate read so.
func WithFoldOnly() DecoderOption { return func(o *decoderOptions) { o.foldOnly = true } }

// WithoutContent makes a Decoder leave out what people and models wrote
// but the assistant's text (the texts of user and developer messages and
// of reasoning, tool calls' arguments, a control input's reason): those
// strings are checked as always (a line is an error exactly when it would
// be without the option) and left empty. For a reader that keeps none of
// it, such as an export of tables without content; the fold's answers are
// the same.
func WithoutContent() DecoderOption { return func(o *decoderOptions) { o.noContent = true } }

// WithBorrowedStrings makes a Decoder's strings borrowed, as
// bufio.Scanner.Bytes is: every string of the DTO that Decode returns
// is valid only until the next call to Decode, which may write over its
// memory (errors, and an UnknownDTO's Type and Raw, are their own); a
// string without escapes is a
// slice of the Decoder's buffer, one with escapes is unescaped into memory
// the Decoder reuses for the next line. A reader that keeps a string
// longer copies it (strings.Clone), a map's key included: an assignment
// to a map keeps the key it is given, even for a key the map has, while a
// lookup keeps nothing. For a reader that keeps no text (one
// that counts, folds or writes each line out before the next), it spares
// a copy and an allocation per string; a [Fold] copies what it keeps. The
// values are the same as without the option.
func WithBorrowedStrings() DecoderOption { return func(o *decoderOptions) { o.borrow = true } }

// WithExitCode tells [Validate] the exit code of the process that wrote the
// stream, so that it accepts the endings the contract allows without
// run_finished: no line and exit 2 (preflight blocked), or only run_started
// and preflight warnings and exit 1 (the runner could not start).
func WithExitCode(code int) ValidateOption {
	return validateOption(func(o *validateOptions) { o.exitCode = code })
}

// WithStrict makes [Validate] require every field that the current writer
// always writes (every field not marked ? in the wire table), not only the
// fields a line cannot be read without. Streams written before a field was
// added to v1 fail strict mode but are valid v1 streams; a writer's own
// tests use it.
func WithStrict() ValidateOption { return validateOption(func(o *validateOptions) { o.strict = true }) }
