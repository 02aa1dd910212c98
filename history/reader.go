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
// uah's compactions of the session (its compaction log) are compacted
// lines where they happened, by time: before the first event of a run
// after it, else between the runs, or after the last: the session's
// totals count their calls.
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
	compactions := s.compactions
	lines := func(yield func(any) bool) {
		if !yield(opened) {
			return
		}
		for i, r := range runs {
			events := r.Events()
			if last != nil && i == len(runs)-1 {
				events = last(r)
			}
			for e := range events { // a compaction before the first event after it
				for len(compactions) > 0 && compactions[0].At.Before(e.OccurredAt()) {
					if !yield(compacted(compactions[0])) {
						return
					}
					compactions = compactions[1:]
				}
				if dto, ok := stream.EventToDTO(e); ok && !yield(dto) {
					return
				}
			}
			if i+1 < len(s.Runs) { // between this run and the next
				for len(compactions) > 0 && compactions[0].At.Before(s.Runs[i+1].StartedAt) {
					if !yield(compacted(compactions[0])) {
						return
					}
					compactions = compactions[1:]
				}
			}
		}
		for _, c := range compactions { // after the last run's end
			if !yield(compacted(c)) {
				return
			}
		}
	}
	return into.LinesReader(lines), runs, nil
}

// compacted is a line of uah's compaction log as the compacted line uah
// writes of it.
func compacted(c statedir.Compaction) uahstream.CompactedDTO {
	return uahstream.CompactedDTO{At: c.At, Trigger: c.Trigger, Stats: uahstream.Raw(c.Stats)}
}
