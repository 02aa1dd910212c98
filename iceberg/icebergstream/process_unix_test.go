//go:build unix

package icebergstream

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/parquetstream"
	"github.com/uagentkit/stream/statedir"
)

func killSelf() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }

// exporter is a child exporter process of inputs.
func exporter(t *testing.T, cat, wh string, inputs []string, killAfter string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "ICEBERG_TEST_CHILD=1", "ICEBERG_TEST_CATALOG="+cat, "ICEBERG_TEST_WAREHOUSE="+wh,
		"ICEBERG_TEST_INPUTS="+strings.Join(inputs, "\n"), "ICEBERG_TEST_KILL_AFTER="+killAfter)
	cmd.Stdout, cmd.Stderr = new(bytes.Buffer), new(bytes.Buffer)
	return cmd
}

// runDirs writes a history of n runs and returns its run directories.
func runDirs(t *testing.T, n int) []string {
	homes, err := historytest.Many(filepath.Join(t.TempDir(), "h"), n)
	require.NoError(t, err)
	var dirs []string
	for _, r := range statedir.OpenHistory(homes...).Runs() {
		dirs = append(dirs, r.Dir)
	}
	require.Len(t, dirs, n)
	return dirs
}

// eachOnce checks that every table holds each of the runs of dirs once,
// row for row the local export's.
func eachOnce(t *testing.T, cat, wh string, dirs []string) {
	t.Helper()
	x := open(t, Config{Catalog: cat, Warehouse: wh})
	want := localRows(t, parquetstream.Sources(dirs, func(err error) { t.Fatal(err) }), false)
	for _, k := range kinds {
		if k.content {
			continue
		}
		if d := cmp.Diff(want[k.name], tableRows(t, x.Catalog(), x.Table(k.name))); d != "" {
			t.Errorf("%s (-local +iceberg):\n%s", k.name, d)
		}
	}
}

// TestFourExportersAtOnce: four processes started together on
// overlapping runs leave every run once in every table.
func TestFourExportersAtOnce(t *testing.T) {
	fakeS3(t)
	t.Run("sqlite", func(t *testing.T) { fourAtOnce(t, "sqlite:"+filepath.Join(t.TempDir(), "cat.db")) })
	t.Run("postgres", func(t *testing.T) { fourAtOnce(t, postgresCatalog(t)) })
}

func fourAtOnce(t *testing.T, cat string) {
	dirs := runDirs(t, 80)
	wh := "s3://lake/four-" + filepath.Base(t.TempDir())
	sets := [][]string{dirs[:50], dirs[10:60], dirs[20:70], dirs[30:]}
	cmds := make([]*exec.Cmd, len(sets))
	for i, set := range sets {
		cmds[i] = exporter(t, cat, wh, set, "")
		require.NoError(t, cmds[i].Start())
	}
	appended := 0
	for i, cmd := range cmds {
		err := cmd.Wait()
		require.NoError(t, err, "exporter %d: %s", i, cmd.Stderr)
		var rep Report
		require.NoError(t, json.Unmarshal(cmd.Stdout.(*bytes.Buffer).Bytes(), &rep))
		appended += rep.Appended
		assert.Equal(t, len(sets[i]), rep.Appended+rep.Already, "exporter %d: each of its runs appended or there already", i)
		t.Logf("exporter %d: %+v", i, rep)
	}
	assert.Equal(t, 80, appended, "each run appended by one exporter")
	eachOnce(t, cat, wh, dirs)
}

// TestKilledExporter: an exporter killed (SIGKILL) between its commits
// leaves no run half visible (a run's rows without its runs row are not
// joined), and the next export completes it without writing its rows
// twice; so does one killed at any moment.
func TestKilledExporter(t *testing.T) {
	fakeS3(t)
	dirs := runDirs(t, 40)
	cat, wh := "sqlite:"+filepath.Join(t.TempDir(), "cat.db"), "s3://lake/killed"

	cmd := exporter(t, cat, wh, dirs, "turns")
	err := cmd.Run()
	require.Error(t, err)
	require.Equal(t, syscall.SIGKILL, cmd.ProcessState.Sys().(syscall.WaitStatus).Signal())
	x := open(t, Config{Catalog: cat, Warehouse: wh})
	assert.NotEmpty(t, tableRows(t, x.Catalog(), x.Table("turns")), "killed after turns were committed")
	runs, err := x.Catalog().LoadTable(context.Background(), x.Table("runs"))
	require.NoError(t, err, "every table is made (and its schema checked) before the first commit")
	assert.Nil(t, runs.CurrentSnapshot(), "the runs table has no row: no run is visible")

	for range 3 { // killed at any moment
		cmd := exporter(t, cat, wh, dirs[:30], "")
		require.NoError(t, cmd.Start())
		time.Sleep(time.Duration(rand.N(300)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
	}
	cmd = exporter(t, cat, wh, dirs, "")
	require.NoError(t, cmd.Run(), "%s", cmd.Stderr)
	eachOnce(t, cat, wh, dirs)
}
