package stream

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faultFS fails, or "crashes" (stops without cleaning up), at one step.
type faultFS struct {
	osFS
	failAt, crashAt string
	steps           []string
}

var errInjected = errors.New("injected fault")

func (f *faultFS) step(name string) error {
	f.steps = append(f.steps, name)
	switch name {
	case f.failAt:
		return errInjected
	case f.crashAt:
		return errCrash
	}
	return nil
}

type faultFile struct {
	*os.File
	fs *faultFS
}

func (f *faultFS) CreateTemp(dir, pattern string) (tempFile, error) {
	if err := f.step("create"); err != nil {
		return nil, err
	}
	file, err := os.CreateTemp(dir, pattern)
	return faultFile{file, f}, err
}

func (f faultFile) Write(p []byte) (int, error) {
	if err := f.fs.step("write"); err != nil {
		n, _ := f.File.Write(p[:len(p)/2]) // a torn write
		return n, err
	}
	return f.File.Write(p)
}

func (f faultFile) Chmod(m os.FileMode) error { return cmp.Or(f.fs.step("chmod"), f.File.Chmod(m)) }

func (f faultFile) Sync() error { return cmp.Or(f.fs.step("sync"), f.File.Sync()) }

func (f faultFile) Close() error {
	if err := f.fs.step("close"); err != nil {
		return err
	}
	return f.File.Close()
}

func (f *faultFS) Rename(o, n string) error {
	if err := f.step("rename"); err != nil {
		return err
	}
	return os.Rename(o, n)
}

func (f *faultFS) SyncDir(dir string) error { return cmp.Or(f.step("syncdir"), f.osFS.SyncDir(dir)) }

func TestWriteSummaryFileIsAtomic(t *testing.T) {
	oldSum := SummaryToDTO(Result{Status: StatusRunning, Answer: "old"})
	newSum := SummaryToDTO(fullResult())
	oldBytes, err := oldSum.MarshalIndent()
	require.NoError(t, err)
	newBytes, err := newSum.MarshalIndent()
	require.NoError(t, err)
	steps := []string{"create", "chmod", "write", "sync", "close", "rename", "syncdir"}

	for _, step := range steps {
		t.Run("fail at "+step, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "summary.json")
			require.NoError(t, os.WriteFile(path, oldBytes, 0o600))
			err := writeSummaryFile(&faultFS{failAt: step}, path, newSum)
			require.ErrorIs(t, err, errInjected)
			assert.Contains(t, err.Error(), "stream: write summary "+path)
			got, rerr := os.ReadFile(path)
			require.NoError(t, rerr)
			if step == "syncdir" {
				assert.Equal(t, string(newBytes), string(got), "the rename happened")
				assert.ErrorIs(t, err, ErrNotDurable)
			} else {
				assert.Equal(t, string(oldBytes), string(got))
				assert.NotErrorIs(t, err, ErrNotDurable)
			}
			entries, _ := os.ReadDir(dir)
			assert.Len(t, entries, 1, "no temporary file is left")
		})
		t.Run("crash at "+step, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "summary.json")
			require.NoError(t, os.WriteFile(path, oldBytes, 0o600))
			fsys := &faultFS{crashAt: step}
			// A crash runs no cleanup: emulate it by ignoring the result and
			// whatever the deferred cleanup did to the temporary file.
			_ = writeSummaryFile(fsys, path, newSum)
			got, err := ReadSummaryFile(path)
			require.NoError(t, err, "never a torn file")
			assert.Contains(t, []string{"old", newSum.Answer}, got.Answer)
		})
	}

	t.Run("success", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "summary.json")
		fsys := &faultFS{}
		require.NoError(t, writeSummaryFile(fsys, path, newSum))
		assert.Equal(t, steps, fsys.steps, "every step runs, in order")
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, string(newBytes), string(got))
		info, err := os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o600), info.Mode().Perm())
		require.NoError(t, oldSum.WriteFile(path))
		back, err := ReadSummaryFile(path)
		require.NoError(t, err)
		assert.Equal(t, "old", back.Answer)
		assert.Equal(t, string(StatusRunning), back.Status)
	})
}

func TestSummaryFileFormat(t *testing.T) {
	b, err := SummaryToDTO(fullResult()).MarshalIndent()
	require.NoError(t, err)
	golden(t, "summary.json", b)
	assert.True(t, bytes.HasPrefix(b, []byte("{\n  \"v\": 1,\n  \"status\": \"error\",")), string(b[:40]))
	assert.True(t, bytes.HasSuffix(b, []byte("}\n")))
}

func TestReadSummaryFileErrors(t *testing.T) {
	dir := t.TempDir()
	full, err := SummaryToDTO(fullResult()).MarshalIndent()
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		data []byte
		want error
		msg  string
	}{
		{"empty", nil, ErrTruncated, "the file is empty"},
		{"blank", []byte("  \n"), ErrTruncated, "the file is empty"},
		{"truncated", full[:len(full)/2], ErrTruncated, "inside the JSON"},
		{"not json", []byte("status: ok\n"), ErrSyntax, "want '{'"},
		{"trailing", append(bytes.Clone(full), "{}"...), ErrSyntax, "want the end of the file"},
		{"wrong type", []byte(`{"v":1,"wall_ms":"long"}`), ErrFieldType, `field "wall_ms"`},
		{"version", []byte(`{"v":2}`), ErrUnsupportedVersion, "v is 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".json")
			require.NoError(t, os.WriteFile(path, c.data, 0o600))
			_, err := ReadSummaryFile(path)
			require.ErrorIs(t, err, c.want)
			assert.Contains(t, err.Error(), "stream: read summary "+path)
			assert.Contains(t, err.Error(), c.msg)
		})
	}
	_, err = ReadSummaryFile(filepath.Join(dir, "missing.json"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.True(t, strings.HasPrefix(err.Error(), "stream: read summary: "))
}

// FuzzReadSummary feeds arbitrary bytes to the summary.json parser: it never
// panics, every error is one of the documented causes, and what it accepts
// encoding/json reads the same way (when the keys are the exact ones).
func FuzzReadSummary(f *testing.F) {
	full, _ := SummaryToDTO(fullResult()).MarshalIndent()
	f.Add(full)
	f.Add([]byte(`{"v":1,"status":"running"}`))
	f.Add([]byte(`{"v":1,"stats":{"tools_by_name":{"a":1},"errors":["x"]},"started_at":"2026-09-23T12:39:18.96Z"}`))
	f.Add([]byte(`{"v":2}`))
	f.Add(full[:len(full)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		var s SummaryDTO
		err := unmarshalSummary(data, &s)
		if err != nil {
			for _, cause := range []error{ErrSyntax, ErrTruncated, ErrFieldType, ErrBadTime, ErrUnsupportedVersion} {
				if errors.Is(err, cause) {
					return
				}
			}
			t.Fatalf("undocumented error: %v", err)
		}
		if bytes.ContainsFunc(data, func(r rune) bool { return r >= 'A' && r <= 'Z' }) || bytes.Contains(data, []byte(`\u`)) {
			return // encoding/json would also match keys ignoring case
		}
		var want SummaryDTO
		require.NoError(t, json.Unmarshal(data, &want), "encoding/json refuses what the parser accepted: %q", data)
		if d := cmpDiff(want, s); d != "" {
			t.Fatalf("%q (-encoding/json +parser):\n%s", data, d)
		}
	})
}
