package acpstream

import (
	"context"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/uagentkit/stream/history/historytest"
)

func TestACPToolKinds(t *testing.T) {
	for name, want := range map[string]acp.ToolKind{
		"Bash": acp.ToolKindExecute, "shell": acp.ToolKindExecute, "exec_command": acp.ToolKindExecute,
		"Read": acp.ToolKindRead, "read_file": acp.ToolKindRead, "view": acp.ToolKindRead,
		"Edit": acp.ToolKindEdit, "MultiEdit": acp.ToolKindEdit, "Write": acp.ToolKindEdit, "apply_patch": acp.ToolKindEdit,
		"Grep": acp.ToolKindSearch, "Glob": acp.ToolKindSearch, "WebSearch": acp.ToolKindSearch, "ls": acp.ToolKindSearch,
		"WebFetch": acp.ToolKindFetch, "fetch": acp.ToolKindFetch,
		"Think": acp.ToolKindThink, "TodoWrite": acp.ToolKindThink,
		"Tools": acp.ToolKindOther, "calendar": acp.ToolKindOther, "": acp.ToolKindOther,
	} {
		assert.Equal(t, want, toolKind(name), name)
	}
}

// Efforts are uagent's, in order, and the caller's to change.
func TestEfforts(t *testing.T) {
	e := Efforts()
	assert.Equal(t, []string{"low", "medium", "high", "xhigh", "max"}, e)
	e[0] = "changed"
	assert.Equal(t, "low", Efforts()[0], "the package's list is not the caller's slice")
}

// BenchmarkListSessions answers session/list over a history of 20,000
// runs (historytest.Many: two homes, 4,000 sessions): the first page reads
// the history; every page after it reads it again in part (Reopen), not
// whole.
func BenchmarkListSessions(b *testing.B) {
	dirs, err := historytest.Many(b.TempDir(), 20000)
	if err != nil {
		b.Fatal(err)
	}
	a := New(nil, WithStateDir(dirs...))
	if _, err := a.ListSessions(context.Background(), acp.ListSessionsRequest{}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := a.ListSessions(context.Background(), acp.ListSessionsRequest{})
		if err != nil || len(res.Sessions) != listPage {
			b.Fatal(err, len(res.Sessions))
		}
	}
}

// BenchmarkFirstListSessions is the first session/list of an agent over
// the history of BenchmarkListSessions: the history read whole.
func BenchmarkFirstListSessions(b *testing.B) {
	dirs, err := historytest.Many(b.TempDir(), 20000)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		a := New(nil, WithStateDir(dirs...))
		res, err := a.ListSessions(context.Background(), acp.ListSessionsRequest{})
		if err != nil || len(res.Sessions) != listPage {
			b.Fatal(err, len(res.Sessions))
		}
	}
}
