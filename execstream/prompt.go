package execstream

import (
	"context"
	"crypto/rand"
	"fmt"
	"iter"
	"os/exec"
	"slices"
	"strings"

	"github.com/uagentkit/stream/uahstream"
)

// Prompt is what a front-end starts a run for (an editor's prompt over
// ACP, another agent's message over A2A): the session's id (a uagent
// session id, which the run continues: uagent --session), its directory
// ("" for the current one), the prompt's text, and the effort and model
// chosen for it ("" for the command's own).
type Prompt struct {
	Session string
	Cwd     string
	Text    string
	Effort  string
	Model   string
}

// Handle is a run started for a prompt: its lines as they arrive, each as
// its session folded it, then the session's end (Run.Lines); its session;
// then its outcome. Wait must release everything the run holds. *Run is
// one.
type Handle interface {
	Lines() iter.Seq[uahstream.Line]
	Session() *uahstream.Session
	Wait() (Outcome, error)
}

// Starter starts the run of a prompt. The run must stop (as Start stops a
// process: interrupt, grace, kill) when ctx ends.
type Starter func(ctx context.Context, p Prompt) (Handle, error)

// Command returns a Starter that runs argv (such as uagent --stream, or
// uah exec --json) with Start and opts, in the prompt's directory, with
// --session and the prompt's session added (so that the conversation goes
// on: uagent and uah both take it), -e EFFORT and -m MODEL when the prompt
// has them, and the prompt's text on its standard input (uagent reads its
// prompt there when none is on its command line). prepare, when not nil,
// may change the command before it starts (its environment, say).
func Command(argv []string, prepare func(*exec.Cmd), opts ...Option) Starter {
	return func(ctx context.Context, p Prompt) (Handle, error) {
		args := append(slices.Clone(argv[1:]), "--session", p.Session)
		if p.Effort != "" {
			args = append(args, "-e", p.Effort)
		}
		if p.Model != "" {
			args = append(args, "-m", p.Model)
		}
		cmd := exec.Command(argv[0], args...)
		cmd.Dir = p.Cwd
		cmd.Stdin = strings.NewReader(p.Text)
		if prepare != nil {
			prepare(cmd)
		}
		return Start(ctx, cmd, opts...)
	}
}

// NewSessionID is a new uagent session id, for a front-end's new
// conversation: a random UUID (version 4), as uagent's own are.
func NewSessionID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
