package history

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/uagentkit/stream/statedir"
)

// Locate finds what name names in the history of the state directories
// dirs, as Index.Resolve does, from the directories' names where it can,
// so that naming one run does not read the whole history: "latest" is
// the run directory with the greatest name (run ids begin with their
// start), a run id is its directory, and a prefix is looked for among
// the run ids and the session ids that statedir.Names lists. Only a
// session (to gather its runs), or a name no such name begins with (a
// session that has runs but no file under sessions/), opens the index
// (Open). A prefix of more than one id is an *AmbiguousError; a name of
// none wraps ErrNotFound. The run or session found is priced by prices.
func Locate(prices Prices, dirs []string, name string) (Found, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return Found{}, fmt.Errorf("stream: %q: %w", name, ErrNotFound)
	}
	if name != Latest { // a run id: a stat of it in each home
		if f, err := locateRun(prices, dirs, name); err == nil {
			return f, nil
		}
	}
	runs, sessions := statedir.Names(dirs)
	if name == Latest {
		if len(runs) == 0 {
			return Found{}, fmt.Errorf("stream: latest: %w", ErrNotFound)
		}
		return locateRun(prices, dirs, runs[len(runs)-1])
	}
	if _, ok := slices.BinarySearch(sessions, name); ok {
		return Open(prices, dirs...).Resolve(name)
	}
	var cands []string
	for _, ids := range [][]string{runs, sessions} {
		i, _ := slices.BinarySearch(ids, name)
		for ; i < len(ids) && strings.HasPrefix(ids[i], name); i++ {
			cands = append(cands, ids[i])
		}
	}
	slices.Sort(cands)
	cands = slices.Compact(cands)
	switch {
	case len(cands) > 1:
		return Found{}, &AmbiguousError{Prefix: name, Candidates: cands}
	case len(cands) == 1 && !slices.Contains(sessions, cands[0]):
		return locateRun(prices, dirs, cands[0])
	}
	x := Open(prices, dirs...) // a session's runs, or a session no file names
	if len(cands) == 1 {
		name = cands[0]
	}
	return x.Resolve(name)
}

// locateRun is the run id of dirs, priced by prices: a Found of a run
// whose figures are its summary's (or, for a run that has not finished,
// its records'), as an Index has them.
func locateRun(prices Prices, dirs []string, id string) (Found, error) {
	sr, _, err := statedir.FindRun(dirs, id)
	if errors.Is(err, fs.ErrNotExist) {
		return Found{}, fmt.Errorf("stream: %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return Found{}, err
	}
	x := &Index{prices: prices, recomputed: map[string]recomputed{}}
	return Found{Run: x.run(sr, nil)}, nil
}
