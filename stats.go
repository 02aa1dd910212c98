package stream

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"github.com/uagentkit/stream/internal/jsonparse"
	"iter"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/uagentkit/stream/internal/span"
)

// Tokens counts a model's tokens. InputTokens includes the cached and
// cache-write tokens; OutputTokens includes the reasoning tokens.
type Tokens struct {
	InputTokens           int64
	CachedInputTokens     int64
	CacheWriteInputTokens int64
	OutputTokens          int64
	ReasoningTokens       int64
}

// DTO returns t in its wire form.
func (t Tokens) DTO() TokensDTO {
	return TokensDTO{Input: t.InputTokens, CachedInput: t.CachedInputTokens, CacheWriteInput: t.CacheWriteInputTokens,
		Output: t.OutputTokens, Reasoning: t.ReasoningTokens}
}

// Tokens returns d as [Tokens].
func (d TokensDTO) Tokens() Tokens {
	return Tokens{InputTokens: d.Input, CachedInputTokens: d.CachedInput, CacheWriteInputTokens: d.CacheWriteInput,
		OutputTokens: d.Output, ReasoningTokens: d.Reasoning}
}

// Add returns the field-by-field sum of t and u.
func (t Tokens) Add(u Tokens) Tokens {
	return Tokens{
		InputTokens:           t.InputTokens + u.InputTokens,
		CachedInputTokens:     t.CachedInputTokens + u.CachedInputTokens,
		CacheWriteInputTokens: t.CacheWriteInputTokens + u.CacheWriteInputTokens,
		OutputTokens:          t.OutputTokens + u.OutputTokens,
		ReasoningTokens:       t.ReasoningTokens + u.ReasoningTokens,
	}
}

// Stats aggregates a run's events, as the run_finished summary and
// summary.json report them. [Fold] computes it exactly as the uagent
// runner does; its doc comment gives the meaning of each field.
type Stats struct {
	EventSpan        time.Duration
	ModelTime        time.Duration
	ToolBusyTime     time.Duration
	ToolModelOverlap time.Duration
	Turns            int
	UserMessages     int
	ModelResponses   int
	ToolCalls        int
	FailedToolCalls  int
	MaxParallelTools int
	ToolsByName      map[string]int
	Tokens           Tokens
	StopReasons      map[string]int
	Failures         []string
	Errors           []string
	Warnings         []string
	FinalAnswer      bool
}

// instant is a time as the fold keeps it: 0 for the zero time, Unix
// nanoseconds for the others they can hold (all from 1678 to 2262 but the
// Unix epoch itself), and, for the rest, farBase − 1 − their index in
// Fold.far. The zero instant is the zero time, as for time.Time.
type instant int64

const farBase = math.MinInt64 + 1<<32

// instant returns t as the fold keeps it.
func (f *Fold) instant(t time.Time) instant {
	if t.IsZero() {
		return 0
	}
	if n := t.UnixNano(); n != 0 && n >= farBase && time.Unix(0, n).Equal(t) {
		return instant(n)
	}
	key := [2]int64{t.Unix(), int64(t.Nanosecond())}
	i, ok := f.farIdx[key]
	if !ok {
		if f.farIdx == nil {
			f.farIdx = map[[2]int64]int{}
		}
		i = len(f.far)
		f.farIdx[key] = i
		f.far = append(f.far, t.UTC())
	}
	return farBase - 1 - instant(i)
}

// time returns the time of an instant, in UTC.
func (f *Fold) time(i instant) time.Time {
	switch {
	case i == 0:
		return time.Time{}
	case i >= farBase:
		return time.Unix(0, int64(i)).UTC()
	}
	return f.far[farBase-1-i]
}

// plainPair reports whether a and b are both Unix nanoseconds.
func plainPair(a, b instant) bool { return a >= farBase && b >= farBase && a != 0 && b != 0 }

// compare orders instants as their times order.
func (f *Fold) compare(a, b instant) int {
	if plainPair(a, b) {
		return cmp.Compare(a, b)
	}
	return f.time(a).Compare(f.time(b))
}

// sub is a − b as time.Time.Sub computes it: saturated at the extremes.
func (f *Fold) sub(a, b instant) time.Duration {
	if !plainPair(a, b) {
		return f.time(a).Sub(f.time(b))
	}
	d := a - b
	if (a^b)&(a^d) < 0 { // the difference overflowed
		if a > b {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return time.Duration(d)
}

func (f *Fold) clock() span.Clock[instant] {
	return span.Clock[instant]{Compare: f.compare, Sub: f.sub}
}

// spans returns the model turns' and the operations' intervals, the open
// ones run to the end.
func (f *Fold) spans() (model, tools []span.Span[instant]) {
	end := f.end()
	model = make([]span.Span[instant], 0, len(f.model)+1)
	for _, t := range f.model {
		model = append(model, span.Span[instant]{Start: t.start, End: t.end})
	}
	if f.turnOpen {
		model = append(model, span.Span[instant]{Start: f.open.start, End: end})
	}
	tools = make([]span.Span[instant], len(f.ops))
	for i, op := range f.ops {
		tools[i] = span.Span[instant]{Start: op.start, End: op.end}
		if op.open {
			tools[i].End = end
		}
	}
	return model, tools
}

// Stats returns the statistics of the lines added so far, as of the end
// time. The maps and slices are the caller's. ToolsByName is never nil.
func (f *Fold) Stats() Stats {
	c := f.clock()
	model, tools := f.spans()
	s := Stats{
		Turns:            f.turns,
		UserMessages:     f.userMessages,
		ModelResponses:   f.modelResponses,
		ToolCalls:        len(f.calls),
		FailedToolCalls:  f.failed,
		MaxParallelTools: span.MaxParallel(c, tools),
		ToolsByName:      make(map[string]int, len(f.byName)),
		Tokens:           f.tokens,
		StopReasons:      maps.Clone(f.stopReasons),
		Failures:         slices.Clone(f.failures),
		Errors:           slices.Clone(f.errors),
		Warnings:         slices.Clone(f.warnings),
		FinalAnswer:      f.finalText != "",
	}
	for i, n := range f.byName {
		if n > 0 {
			s.ToolsByName[strings.Clone(f.names.Key(i))] = n // the names' memory is the fold's
		}
	}
	if f.observed {
		s.EventSpan = f.sub(f.obsLast, f.obsFirst)
	}
	model, tools = span.Merge(c, model), span.Merge(c, tools)
	s.ModelTime, s.ToolBusyTime = span.Total(c, model), span.Total(c, tools)
	s.ToolModelOverlap = span.Total(c, span.Intersect(c, model, tools))
	return s
}

// Overlaps returns the intervals in which tools ran while the model was
// generating, in order: the intersection of the merged model and tool
// intervals that ToolModelOverlap sums.
func (f *Fold) Overlaps() iter.Seq2[time.Time, time.Time] {
	return func(yield func(time.Time, time.Time) bool) {
		c := f.clock()
		model, tools := f.spans()
		for _, s := range span.Intersect(c, span.Merge(c, model), span.Merge(c, tools)) {
			if !yield(f.time(s.Start), f.time(s.End)) {
				return
			}
		}
	}
}

// Difference is one field in which a recorded summary and the one
// recomputed from the events differ.
//
// A recorded summary whose times cannot be (a negative wall_ms, a start
// after its run_finished) differs from what any run could record: its
// Want says what the field must be, and Recomputed is empty.
type Difference struct {
	Field      string // the wire path: "stats.model_ms", …, "answer", "wall_ms" or "started_at"
	Recorded   string // the recorded value, as JSON
	Recomputed string // the recomputed value, as JSON
	Want       string // for a field the events cannot recompute, what it must be
}

// String formats the difference as "FIELD is A, recomputed B" (or "FIELD
// is A, want W").
func (d Difference) String() string {
	if d.Want != "" {
		return d.Field + " is " + d.Recorded + ", want " + d.Want
	}
	return d.Field + " is " + d.Recorded + ", recomputed " + d.Recomputed
}

// timesDiff returns what of a recorded summary's times cannot be: a
// negative wall_ms (a run's wall time), or a started_at after the
// run_finished line's at (times that run backwards). A zero started_at
// (a summary that does not say) is not checked.
func timesDiff(recorded SummaryDTO, finishedAt time.Time) []Difference {
	var out []Difference
	if recorded.WallMS < 0 {
		out = append(out, Difference{Field: "wall_ms", Recorded: jsonOf(recorded.WallMS), Want: "0 or more (a run's wall time)"})
	}
	if !recorded.StartedAt.IsZero() && !finishedAt.IsZero() && recorded.StartedAt.After(finishedAt) {
		out = append(out, Difference{Field: "started_at", Recorded: jsonOf(recorded.StartedAt),
			Want: "at or before the run_finished line's at, " + jsonOf(finishedAt.UTC()) + " (the times run backwards)"})
	}
	return out
}

// statsDiff returns the fields in which a recorded summary's stats and
// answer differ from the recomputed ones, in the order of the wire,
// skipping the fields absent marks (those the recorded summary's line did
// not have). An absent map or list equals an empty one. Values are JSON
// without HTML escaping; control characters in strings are escaped, as
// JSON requires.
func statsDiff(recorded, recomputed SummaryDTO, absent uint64) []Difference {
	var out []Difference
	c := summaryCodec.Fields[summaryCodec.ByName["stats"]].Sub
	rv, gv := reflect.ValueOf(recorded.Stats), reflect.ValueOf(recomputed.Stats)
	for i, f := range c.Fields {
		if absent&(1<<i) != 0 {
			continue
		}
		a, b := jsonparse.FieldOf(rv, f.Index), jsonparse.FieldOf(gv, f.Index)
		if (f.Kind == jsonparse.KindMapInt || f.Kind == jsonparse.KindStrings) && a.Len() == 0 && b.Len() == 0 {
			continue
		}
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			out = append(out, Difference{Field: "stats." + f.Name, Recorded: jsonOf(a.Interface()), Recomputed: jsonOf(b.Interface())})
		}
	}
	if recorded.Answer != recomputed.Answer && absent&answerAbsent == 0 {
		out = append(out, Difference{Field: "answer", Recorded: jsonOf(recorded.Answer), Recomputed: jsonOf(recomputed.Answer)})
	}
	return out
}

// answerAbsent is the bit of RunFinishedDTO.absent for the summary's
// answer; bit i, for i below it, is the stats field i.
const answerAbsent = 1 << 63

// jsonOf encodes v as JSON without HTML escaping.
func jsonOf(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// summaryCodec is the field table of summary.json.
var summaryCodec = jsonparse.CodecFor(reflect.TypeFor[SummaryDTO]())
