// Package check hands the stream package's validator of one run to the
// module's other packages, which check streams that hold runs among
// other lines (a session stream of the harness, run by run). The stream
// package sets New when it is initialized.
package check

// Finding is a stream.Finding.
type Finding struct {
	Line          int
	Rule, Message string
}

// Run is the stream package's checker of one run: every line of the run
// (the lines from its run_started on) goes to Line, right after the
// stream.Decoder it was made with read it; End returns the findings. The
// run's line numbers are the Decoder's; base is the number of lines that
// came before the run, for the findings that count the run's lines.
type Run interface {
	Line(dto any, err error)
	End(base int) []Finding
}

// New returns a checker of one run read by dec, a *stream.Decoder, by
// every rule, with opts, a []stream.Option (WithStrict: every field the
// writer writes too). WithExitCode is left out: it speaks of a whole
// stream.
var New func(dec, opts any) Run
