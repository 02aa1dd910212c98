package acpstream

import (
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
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
