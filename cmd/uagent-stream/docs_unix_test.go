//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// needs are the examples of the docs that cannot run in a test, by what
// their line holds, each with the reason: a network, a service, a
// program this module does not build, or what runs until interrupted
// (each of these has tests of its own, or CI runs it, as said).
var needs = []struct{ holds, why string }{
	{"git clone https://", "the network"},
	{"@latest", "a version published on the module proxy"},
	{"go vet ./... && go test", "minutes: it is the test command CI runs"},
	{"go install ./cmd/uagent-stream ", "a clone to install from (CI builds the command from this one)"},
	{"cd iceberg && go install", "the Iceberg module's build (its tests run in CI)"},
	{"--catalog", "uagent-stream-iceberg and a catalog (the Iceberg module's tests run one)"},
	{"-- uagent --stream", "uagent itself (the fake uagent stands in for it in acp's, a2a's and run's tests)"},
	{"curl ", "the A2A agent serving (a2a's tests)"},
	{"uagent-stream serve", "a server that runs until interrupted (serve's tests and the Chromium test)"},
	{"uagent-stream mcp --http", "a server that runs until interrupted (mcpstream's tests)"},
	{"npm ", "npm's registry (CI runs interop/ts)"},
	{"npx ", "npm's registry (CI runs interop/ts)"},
	{"duckdb ", "the DuckDB CLI (CI runs docs/tables.md's SQL in DuckDB from npm)"},
	{"docker ", "Docker and an image from the network"},
	{"uagent-stream otel ", "an OTLP endpoint (otel's tests run a receiver)"},
}

// Every shell example of README.md and docs/*.md runs, as written, on a
// history of the fixture, in a directory with the bundled streams: what
// cannot (a network, a service) is named in needs, with its reason.
func TestDocsExamplesRun(t *testing.T) {
	bin := self(t)
	goenv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output() // the person's, before HOME moves
	require.NoError(t, err)
	caches := strings.Fields(string(goenv))
	require.Len(t, caches, 3)
	historyHome(t)
	dir := t.TempDir()
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	// Copies of the bundled streams, never links to them: an example
	// writes where it is (convert -o run.jsonl), and must not write
	// through a link into the repository.
	copyTo := func(src, dst string) {
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, b, 0o644))
	}
	streams, _ := filepath.Glob(filepath.Join(repo, "testdata", "*.jsonl"))
	before := map[string]string{}
	for _, f := range streams {
		copyTo(f, filepath.Join(dir, "testdata", filepath.Base(f)))
		b, _ := os.ReadFile(f)
		before[f] = string(b)
	}
	for _, f := range []string{"run.jsonl", "every-event.jsonl"} {
		copyTo(filepath.Join(repo, "testdata", f), filepath.Join(dir, "runs", f))
	}
	copyTo(filepath.Join(repo, "testdata", "run.jsonl"), filepath.Join(dir, "run.jsonl"))
	path := filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")

	files, _ := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	files = append([]string{filepath.Join(repo, "README.md")}, files...)
	ran, needed := 0, 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		for _, block := range regexp.MustCompile("(?s)```(?:sh|bash|shell)\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
			var vars []string // a block's assignments, for the lines after them
			for _, line := range strings.Split(strings.ReplaceAll(block[1], "\\\n", " "), "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				if regexp.MustCompile(`^\w+=\S+$`).MatchString(line) {
					vars = append(vars, line)
					continue
				}
				why := ""
				for _, n := range needs {
					if strings.Contains(line, n.holds) {
						why = n.why
						break
					}
				}
				if why != "" {
					needed++
					t.Logf("%s: needs %s: %s", filepath.Base(file), why, line)
					continue
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				cmd := exec.CommandContext(ctx, "sh", "-c", strings.Join(append(vars, line), "\n"))
				cmd.Dir, cmd.Env = dir, append(os.Environ(), "PATH="+path, "NO_COLOR=1")
				if strings.HasPrefix(line, "go ") { // the README's first line: in the clone, with the person's caches
					cmd.Dir = repo
					cmd.Env = append(cmd.Env, "GOCACHE="+caches[0], "GOMODCACHE="+caches[1], "GOPATH="+caches[2])
				}
				out, err := cmd.CombinedOutput()
				cancel()
				assert.NoError(t, err, "%s: %s\n%s", filepath.Base(file), line, out)
				ran++
			}
		}
	}
	for f, was := range before { // nothing written into the repository
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.True(t, string(b) == was, "%s changed", f)
	}
	t.Logf("%d examples ran, %d need what a test does not have", ran, needed)
	assert.GreaterOrEqual(t, ran, 15, "the examples that run")
}
