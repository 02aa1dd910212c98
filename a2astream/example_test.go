//go:build !js && !wasip1

package a2astream_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/uagentkit/stream/a2astream"
	"github.com/uagentkit/stream/execstream"
)

// A Go harness serves its runs to other agents: here each task replays a
// recorded run (execstream.Command would start uagent --stream instead),
// and a client of the A2A SDK sends a message and gets the task, ended, its
// answer the artifact.
func ExampleNew() {
	replay := func(ctx context.Context, p execstream.Prompt) (execstream.Handle, error) {
		return execstream.Open("../testdata/run.jsonl")
	}
	agent := a2astream.New(replay)
	defer agent.Close()
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	defer srv.Close()
	srv.Config.Handler = agent.Handler(srv.URL)

	ctx := context.Background()
	client, err := a2aclient.NewFromCard(ctx, agent.Card(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Destroy()
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("Count the lines of a.txt and b.txt."))
	res, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg})
	if err != nil {
		fmt.Println(err)
		return
	}
	task := res.(*a2a.Task)
	fmt.Println(task.Status.State)
	fmt.Println(task.Artifacts[0].Name+":", task.Artifacts[0].Parts[0].Text())
	// Output:
	// TASK_STATE_COMPLETED
	// answer: a.txt has 3 lines; b.txt does not exist.
}
