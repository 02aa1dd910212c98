//go:build unix

package stream_test

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/uagentkit/stream"
)

func ExampleStart() {
	// Any command that writes a stream to stdout; here, a recording.
	run, err := stream.Start(context.Background(), exec.Command("cat", "testdata/run.jsonl"))
	if err != nil {
		fmt.Println(err)
		return
	}
	tools := 0
	for dto, err := range run.Events() {
		if err != nil {
			fmt.Println(err)
			continue
		}
		if _, ok := dto.(stream.ToolCalledDTO); ok {
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
