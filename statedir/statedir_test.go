package statedir

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
)

const state = "testdata/state"

// convert returns the v1 stream of a run directory, and its problems.
func convert(t *testing.T, dir string) (string, []error) {
	t.Helper()
	r, err := OpenRun(dir)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, r.Write(&b))
	return b.String(), r.Problems()
}

// A run directory's records become the v1 lines uagent writes with
// --stream, by every rule of DESIGN.md's mapping: the expected lines were
// written by hand from its words, rule by rule (see the records' comments
// in the test data's README).
func TestRunBecomesItsStream(t *testing.T) {
	problems := map[string][]string{
		"20261101-090000-5f3c2a1e": {"summary.json:0: " + ErrNoSummary.Error(), "events.jsonl:29: " + ErrWriteInProgress.Error()},
		"20261101-100000-5f3c2a1e": nil,
	}
	for _, id := range []string{"20261101-090000-5f3c2a1e", "20261101-100000-5f3c2a1e"} {
		t.Run(id, func(t *testing.T) {
			got, found := convert(t, filepath.Join(state, "runs", id))
			want, err := os.ReadFile(filepath.Join("testdata", id+".stream.jsonl"))
			require.NoError(t, err)
			if d := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n")); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			var causes []string
			for _, p := range found {
				var pr *Problem
				require.True(t, errors.As(p, &pr))
				causes = append(causes, filepath.Base(pr.File)+":"+strconv.Itoa(pr.Line)+": "+pr.Err.Error())
			}
			assert.Equal(t, problems[id], causes)
		})
	}
}

// A state directory's runs, in order, and what cannot be read of each: a
// directory that is not a run's and a file are said and skipped; a run's
// missing or broken files are its problems, and the rest of it is read.
func TestRuns(t *testing.T) {
	var ids []string
	got := map[string][]error{}
	for r, err := range Runs(state) {
		if err != nil {
			var p *Problem
			require.ErrorAs(t, err, &p)
			require.ErrorIs(t, err, ErrNotARun)
			got[filepath.Base(p.File)] = []error{err}
			continue
		}
		ids = append(ids, r.ID)
		got[r.ID] = r.Problems()
	}
	assert.Equal(t, []string{"20261101-090000-5f3c2a1e", "20261101-100000-5f3c2a1e", "20261101-110000-5f3c2a1e",
		"20261101-120000-aaaa0000", "20261101-130000-bbbb0000", "20261101-140000-cccc0000"}, ids)
	is := func(id string, want ...error) {
		t.Helper()
		require.Len(t, got[id], len(want), "%s: %v", id, got[id])
		for i, w := range want {
			if w != nil { // nil: a cause the standard library words
				assert.ErrorIs(t, got[id][i], w, id)
			}
		}
	}
	is("not-a-run", ErrNotARun)
	is("stray.txt", ErrNotARun)
	is("20261101-090000-5f3c2a1e", ErrNoSummary)
	is("20261101-100000-5f3c2a1e")
	is("20261101-110000-5f3c2a1e", ErrRunning)
	is("20261101-120000-aaaa0000", nil, stream.ErrTruncated)
	is("20261101-130000-bbbb0000", ErrNoSummary, ErrNoEvents)
	is("20261101-140000-cccc0000", ErrNoEvents)
	assert.Contains(t, got["20261101-120000-aaaa0000"][0].Error(), filepath.Join(state, "runs", "20261101-120000-aaaa0000", RequestFile),
		"a problem names its file")
}

// The streams of the runs are what the checker reads them as: the finished
// run valid, its summary equal to its events; the others cut off, by the
// fold's verdict; the run of a summary alone contradicted by its (no)
// events.
func TestRunStreamsValidate(t *testing.T) {
	for id, want := range map[string]stream.Ending{
		"20261101-100000-5f3c2a1e": stream.EndFinished,
		"20261101-090000-5f3c2a1e": stream.EndCutOff,
		"20261101-110000-5f3c2a1e": stream.EndCutOff,
		"20261101-120000-aaaa0000": stream.EndCutOff,
		"20261101-140000-cccc0000": stream.EndFinished,
	} {
		b, _ := convert(t, filepath.Join(state, "runs", id))
		var f stream.Fold
		for dto, err := range stream.NewDecoder(strings.NewReader(b)).All() {
			require.NoError(t, err, id)
			f.Add(dto, err)
		}
		assert.Equal(t, want, f.Verdict().Ending, id)
		findings, err := stream.Validate(strings.NewReader(b))
		require.NoError(t, err)
		switch id {
		case "20261101-100000-5f3c2a1e":
			assert.Empty(t, findings, "the finished run is valid")
		case "20261101-140000-cccc0000":
			assert.NotEmpty(t, f.Recomputed().Diff, "a summary without its events disagrees with them")
		default:
			require.NotEmpty(t, findings)
			assert.Equal(t, stream.RuleFinished, findings[len(findings)-1].Rule, "%s: cut off", id)
		}
	}
}

func TestDir(t *testing.T) {
	t.Setenv(StateDirEnv, "/from/env")
	t.Setenv("XDG_STATE_HOME", "/xdg")
	d, _ := Dir("/from/flag")
	assert.Equal(t, "/from/flag", d)
	d, _ = Dir("")
	assert.Equal(t, "/from/env", d)
	t.Setenv(StateDirEnv, "")
	d, _ = Dir("")
	assert.Equal(t, filepath.Join("/xdg", "uagent"), d)
	d, _ = OldDir()
	assert.Equal(t, filepath.Join("/xdg", "unreal-agent"), d)
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	d, _ = Dir("")
	assert.Equal(t, filepath.Join("/home/u", ".local", "state", "uagent"), d)
	d, _ = OldDir()
	assert.Equal(t, filepath.Join("/home/u", ".local", "state", "unreal-agent"), d)
}
