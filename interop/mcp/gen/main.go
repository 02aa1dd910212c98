// Command gen writes a history for the MCP check: historytest's many runs
// in uagent's and uah's homes, a run whose answer is 5 MB, and a session
// whose title, workspace and model are hostile (historytest.Hostile). It
// prints the homes, one a line.
//
//	go run ./interop/mcp/gen -n 300 -o DIR
package main

import (
	"flag"
	"fmt"
	"log"
	"path/filepath"
	"strings"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history/historytest"
)

func main() {
	n := flag.Int("n", 300, "how many runs of historytest.Many")
	out := flag.String("o", "history", "write the history under this directory")
	flag.Parse()
	homes, err := historytest.Many(*out, *n)
	if err != nil {
		log.Fatal(err)
	}
	home := homes[0]
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	line := "all work and no play makes <Jack> a \"dull\" boy & so on\n"
	err = historytest.Write([]historytest.Run{
		{Homes: []string{home}, ID: "20261201-090000-b16b16b1", Session: "b16b16b1-0000-4000-8000-00000000000b", Start: at, Wall: time.Minute,
			Status: "ok", Provider: "openai", Model: "gpt-5.4", Workspace: "/home/dev/big", Prompt: "write five megabytes",
			Answer: strings.Repeat(line, 5<<20/len(line)+1), Tokens: stream.TokensDTO{Input: 1000, Output: 2000000}},
		{Homes: []string{home}, ID: "20261201-100000-4057113e", Session: "4057113e-0000-4000-8000-00000000000c", Start: at.Add(time.Hour), Wall: time.Second,
			Status: "ok", Provider: "local", Model: "llama-9" + historytest.Hostile, Workspace: "/tmp/x" + historytest.Hostile,
			Prompt: "Say hi " + historytest.Hostile, Answer: "hi " + historytest.Hostile, Tokens: stream.TokensDTO{Input: 10, Output: 1}},
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range homes {
		abs, _ := filepath.Abs(h)
		fmt.Println(abs)
	}
}
