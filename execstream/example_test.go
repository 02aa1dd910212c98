//go:build unix

package execstream_test

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/execstream"
)

func ExampleStart() {
	// Any command that writes a stream to stdout; here, a recording.
	run, err := execstream.Start(context.Background(), exec.Command("cat", "../testdata/run.jsonl"))
	if err != nil {
		fmt.Println(err)
		return
	}
	tools := 0
	for l := range run.Lines() { // each line as the run's session folded it
		if l.Err != nil {
			fmt.Println(l.Err)
			continue
		}
		if l.Step.CallStep == stream.StepOpened {
			tools++
		}
	}
	out, err := run.Wait()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tools, "tool calls;", out.Ending, out.Status, "exit", out.ExitCode, "lines", out.Lines)
	// Output: 3 tool calls; finished ok exit 0 lines 21
}

func ExampleOpen() {
	run, err := execstream.Open("../testdata/invalid/run-finished-missing.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	for l := range run.Lines() {
		if l.Step.ToolStep == stream.StepClosed { // the fold paired it with its start
			fmt.Println(l.Tool.Label, l.Tool.OK, l.Tool.Detail)
		}
		if l.End && l.Ended != nil {
			for _, op := range l.Ended.Fold.Running() {
				fmt.Println(op.Label, "still running")
			}
		}
	}
	out, _ := run.Wait()
	fmt.Println(out.Ending, out.Status)
	// Output:
	// ls true exit 0
	// wc -l a.txt true exit 0
	// cat b.txt false exit 1
	// cut_off error
}
