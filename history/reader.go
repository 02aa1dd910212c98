package history

import (
	"iter"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/uahstream"
)

// Reader reads the session as one session stream of its runs (see
// uahstream.Session.RunsReader) into s, which has had no line: a
// session_opened of its id and its first run's settings, then each run's
// directory, in order, opened again (a statedir.Run is not safe for
// concurrent use). The last run's events come from last when it is not
// nil (statedir.Run.Follow, to follow a run still going). It returns the
// runs it opened, whose Problems say what of them could not be read.
func (s *Session) Reader(into *uahstream.Session, last func(*statedir.Run) iter.Seq[stream.Event]) (*uahstream.Reader, []*statedir.Run, error) {
	var runs []*statedir.Run
	for _, r := range s.Runs {
		sr, err := statedir.OpenRun(r.Dir)
		if err != nil {
			return nil, nil, err
		}
		runs = append(runs, sr)
	}
	opened := uahstream.SessionOpenedDTO{ID: s.ID}
	if len(s.Runs) > 0 {
		first := s.Runs[0]
		opened.At = first.StartedAt
		opened.Settings = uahstream.SettingsDTO{Provider: first.Provider, Model: first.Model, Effort: first.Effort, Workspace: first.Workspace}
	}
	each := func(yield func(iter.Seq[stream.Event]) bool) {
		for i, r := range runs {
			events := r.Events()
			if last != nil && i == len(runs)-1 {
				events = last(r)
			}
			if !yield(events) {
				return
			}
		}
	}
	return into.RunsReader(opened, each), runs, nil
}
