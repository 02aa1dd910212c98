package main

import (
	"context"
	"crypto/rand"
	enchex "encoding/hex"
	"os/exec"
	"strings"
	"time"

	"github.com/uagentkit/stream/acpstream"
	"github.com/uagentkit/stream/execstream"
	"github.com/uagentkit/stream/statedir"
)

// cmdACP is an Agent Client Protocol agent on standard input and output
// (the package acpstream): an editor starts it, opens sessions, and each
// prompt is one run of COMMAND in the session's directory, with the prompt
// on its standard input. Diagnostics go to stderr only. The command owns
// its process, so it also stops what each run leaves behind: on Linux it
// is the subreaper of its descendants, and a run's orphans (marked by a
// variable of its own) are stopped when the run ends.
func cmdACP(e env, args []string) error {
	fl := flags(e, "acp")
	fl.interleave = false // what follows COMMAND is the command's own
	grace := fl.Duration("grace", 5*time.Second, "on cancel, how long the run gets before what is left of it is killed")
	stateDirs := fl.stateDirFlag(", for session/list and session/load")
	models := fl.String("models", "", "the models a person may choose, comma-separated (the model option; -m added to COMMAND)")
	window := fl.Int("context-window", 0, "the models' context window in `tokens`: sends usage_update after each response (0: none)")
	if err := fl.parse(args); err != nil {
		return err
	}
	if fl.NArg() == 0 {
		return fl.usageError("want a COMMAND to run for each prompt, such as: -- uagent --stream")
	}
	execstream.BecomeSubreaper()
	argv := fl.Args()
	start := reapedStarter(argv, *grace)
	opts := []acpstream.Option{acpstream.WithInfo("uagent-stream", versionString()), acpstream.WithLog(e.stderr), acpstream.WithContextWindow(*window)}
	if dirs, err := statedir.Homes(*stateDirs); err == nil {
		opts = append(opts, acpstream.WithStateDir(dirs...))
	}
	if *models != "" {
		opts = append(opts, acpstream.WithModels(strings.Split(*models, ",")...))
	}
	for i, a := range argv[:len(argv)-1] { // the command's own effort, shown when none is chosen
		if a == "-e" || a == "--effort" {
			opts = append(opts, acpstream.WithEffort(argv[i+1]))
		}
	}
	a := acpstream.New(start, opts...)
	return a.Serve(e.stdin, e.stdout)
}

// reapedStarter starts argv for a prompt (execstream.Command), with a
// variable that marks what the run starts: what is left of it when it
// ends (its orphans) is stopped, after grace.
func reapedStarter(argv []string, grace time.Duration) execstream.Starter {
	return func(ctx context.Context, p execstream.Prompt) (execstream.Handle, error) {
		b := make([]byte, 12)
		rand.Read(b)
		marker := enchex.EncodeToString(b)
		mark := func(cmd *exec.Cmd) { cmd.Env = append(cmd.Environ(), execstream.RunMarker+"="+marker) }
		run, err := execstream.Command(argv, mark, execstream.WithGrace(grace))(ctx, p)
		if err != nil {
			return nil, err
		}
		return &reapedRun{Handle: run, marker: marker, grace: grace}, nil
	}
}

// reapedRun is a run whose orphans are stopped when it has ended.
type reapedRun struct {
	execstream.Handle
	marker string
	grace  time.Duration
}

func (r *reapedRun) Wait() (execstream.Outcome, error) {
	o, err := r.Handle.Wait()
	execstream.ReapMarked(r.marker, r.grace)
	return o, err
}
