package history

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/regular"
)

// Price is one row of a price table: what a provider publishes for one
// exact model id, in USD per million tokens, for uncached input, cached
// input, cache writes and output (reasoning is output), nil where no rate
// is published; from which day the rates apply (Since, YYYY-MM-DD, UTC;
// "" for always); when the figures were read (Checked, YYYY-MM-DD) and the
// page they came from (Source). Plan names the subscription that bills
// the provider instead of these figures ("ChatGPT" for openai-codex):
// its cost is still the API-price estimate, said to be one.
//
// CacheWrite1hInput is the rate of a cache write kept for an hour where a
// provider publishes one (Anthropic): listed, never charged, since the
// runner reports cache writes as one class, priced at CacheWriteInput
// (the five-minute writes a request makes unless it asks otherwise).
// LongContext, when set, prices a request whose prompt (its input,
// cached and cache-write input included) is above LongContext.Above
// tokens at its rates, the whole request.
type Price struct {
	Provider          string       `json:"provider"`
	Model             string       `json:"model"`
	Since             string       `json:"since,omitempty"`
	Input             *float64     `json:"input"`
	CachedInput       *float64     `json:"cached_input"`
	CacheWriteInput   *float64     `json:"cache_write_input"`
	CacheWrite1hInput *float64     `json:"cache_write_1h_input,omitempty"`
	Output            *float64     `json:"output"`
	LongContext       *LongContext `json:"long_context,omitempty"`
	Checked           string       `json:"checked"`
	Source            string       `json:"source"`
	Plan              string       `json:"plan,omitempty"`
}

// LongContext is the rates of a request whose prompt is above Above
// tokens (see Price), nil where none is published.
type LongContext struct {
	Above           int64    `json:"above"`
	Input           *float64 `json:"input"`
	CachedInput     *float64 `json:"cached_input"`
	CacheWriteInput *float64 `json:"cache_write_input"`
	Output          *float64 `json:"output"`
}

// Prices is a price table: rows per provider and exact model id, each
// from its Since. The zero Prices prices nothing. A Prices is not changed
// after it is made, and is safe for concurrent use.
type Prices struct {
	rows  map[[2]string][]Price // by Since, the earliest first
	plans map[string]string     // a provider's plan, from any of its rows
}

//go:embed prices.json
var defaultPrices []byte

// DefaultPrices returns the table kept in the repository (prices.json):
// each row with the date it was checked and the page it came from.
func DefaultPrices() Prices {
	p, err := ParsePrices(bytes.NewReader(defaultPrices))
	if err != nil {
		panic("history: prices.json: " + err.Error()) // the tests read it: it cannot happen
	}
	return p
}

// PricesWith returns DefaultPrices with the rows of the table in the file
// path in their place (ReadPrices, With); DefaultPrices for "".
func PricesWith(path string) (Prices, error) {
	if path == "" {
		return DefaultPrices(), nil
	}
	more, err := ReadPrices(path)
	if err != nil {
		return Prices{}, err
	}
	return DefaultPrices().With(more), nil
}

// MaxPricesFile is the largest price table ParsePrices reads (LiteLLM's,
// every model the community prices, is about 1 MB).
const MaxPricesFile = 16 << 20

// ReadPrices reads the price table in the file path (see ParsePrices): a
// regular file only (a FIFO or a device is no table), MaxPricesFile bytes
// at most. A row that does not say where it came from or when is said to
// come from the file, as of the day it was last written (UTC). Its error
// names the file.
func ReadPrices(path string) (Prices, error) {
	f, err := regular.Open(path)
	if err != nil {
		return Prices{}, err
	}
	defer f.Close()
	p, err := ParsePrices(f)
	if err != nil {
		return Prices{}, fmt.Errorf("%s: %w", path, err)
	}
	day := ""
	if info, err := f.Stat(); err == nil {
		day = info.ModTime().UTC().Format(time.DateOnly)
	}
	for k, rows := range p.rows {
		for i := range rows {
			rows[i].Source = cmp.Or(rows[i].Source, path)
			rows[i].Checked = cmp.Or(rows[i].Checked, day)
		}
		p.rows[k] = rows
	}
	return p, nil
}

// ParsePrices reads a price table, in either of two shapes. The
// project's (prices.json): a JSON array of Price objects, every row with
// its provider and model, a rate that is a number (not negative) or null,
// since and checked, when given, dates (YYYY-MM-DD), and no two rows of a
// model from the same day. LiteLLM's (model_prices_and_context_window.json,
// the table the community keeps current): a JSON object of entries by
// model id, each a row of its litellm_provider and the id without that
// provider's prefix, its per-token costs as rates per million tokens
// (input_cost_per_token, cache_read_input_token_cost,
// cache_creation_input_token_cost and …_above_1hr, output_cost_per_token;
// the …_above_Nk_tokens costs of the lowest N as its LongContext), with
// no source, day or Since; an entry without an input or an output cost
// (an image model, the sample_spec) is no row, and OpenAI's rows price
// openai-codex too. A malformed table is a *PricesError naming the line
// and the field; one over MaxPricesFile bytes is an error, read no
// further.
func ParsePrices(r io.Reader) (Prices, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxPricesFile+1))
	if err != nil {
		return Prices{}, fmt.Errorf("stream: prices: %w", err)
	}
	if len(b) > MaxPricesFile {
		return Prices{}, fmt.Errorf("stream: prices: larger than a price table can be (%d bytes at most)", MaxPricesFile)
	}
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return parseLiteLLM(b)
	}
	var rows []json.RawMessage
	if err := json.Unmarshal(b, &rows); err != nil {
		return Prices{}, notJSON(b, err, "not a JSON array of rows, nor LiteLLM's object of models")
	}
	p := Prices{rows: map[[2]string][]Price{}, plans: map[string]string{}}
	at := 0 // each row is found again in b, in order, for its line
	for _, raw := range rows {
		off := at + bytes.Index(b[at:], raw)
		at = off + len(raw)
		var row Price
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		err := dec.Decode(&row)
		if err == nil {
			err = row.check()
		}
		if err == nil {
			err = p.add(row)
		}
		if err == nil {
			continue
		}
		pe := &PricesError{Line: lineAt(b, off), Err: err}
		switch e := err.(type) {
		case *PricesError:
			pe.Field, pe.Err = e.Field, e.Err
		case *json.UnmarshalTypeError:
			pe.Line, pe.Field = lineAt(b, off+int(e.Offset)), e.Field
			pe.Err = fmt.Errorf("a JSON %s where %s belongs", e.Value, kind(e.Type.Kind()))
		default:
			if _, field, ok := strings.Cut(err.Error(), "unknown field "); ok {
				pe.Field, pe.Err = strings.Trim(field, `"`), errors.New("not a field of a price row")
			}
		}
		return Prices{}, pe
	}
	return p, nil
}

// notJSON is the *PricesError of a table json could not read.
func notJSON(b []byte, err error, shape string) error {
	off, why := 0, err
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		off, why = int(se.Offset), errors.New("not JSON: "+se.Error())
	}
	if _, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		why = errors.New(shape)
	}
	return &PricesError{Line: lineAt(b, off), Err: why}
}

// kind names what a field holds.
func kind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Float64, reflect.Pointer:
		return "a number or null"
	case reflect.Int64:
		return "a whole number"
	}
	return k.String()
}

// PricesError is a price table that cannot be read: the line (1-based)
// and the field where, and why.
type PricesError struct {
	Line  int
	Field string
	Err   error
}

// Error says "stream: prices: line N: field F: why".
func (e *PricesError) Error() string {
	field := ""
	if e.Field != "" {
		field = "field " + e.Field + ": "
	}
	return fmt.Sprintf("stream: prices: line %d: %s%v", e.Line, field, e.Err)
}

// Unwrap returns why.
func (e *PricesError) Unwrap() error { return e.Err }

func (p Price) check() error {
	bad := func(field, why string) error { return &PricesError{Field: field, Err: errors.New(why)} }
	switch {
	case p.Provider == "":
		return bad("provider", "missing")
	case p.Model == "":
		return bad("model", "missing")
	}
	rates := []struct {
		name string
		v    *float64
	}{{"input", p.Input}, {"cached_input", p.CachedInput}, {"cache_write_input", p.CacheWriteInput}, {"cache_write_1h_input", p.CacheWrite1hInput}, {"output", p.Output}}
	if lc := p.LongContext; lc != nil {
		if lc.Above <= 0 {
			return bad("long_context.above", "not a number of tokens above 0")
		}
		rates = append(rates, []struct {
			name string
			v    *float64
		}{{"long_context.input", lc.Input}, {"long_context.cached_input", lc.CachedInput}, {"long_context.cache_write_input", lc.CacheWriteInput}, {"long_context.output", lc.Output}}...)
	}
	for _, r := range rates {
		if r.v != nil && (*r.v < 0 || math.IsNaN(*r.v)) {
			return bad(r.name, "a negative rate")
		}
	}
	for _, d := range []struct{ name, v string }{{"checked", p.Checked}, {"since", p.Since}} {
		if d.v == "" {
			continue
		}
		if _, err := time.Parse(time.DateOnly, d.v); err != nil {
			return bad(d.name, "not a date (YYYY-MM-DD)")
		}
	}
	return nil
}

func lineAt(b []byte, off int) int {
	off = min(max(off, 0), len(b))
	return bytes.Count(b[:off], []byte("\n")) + 1
}

// With returns the table with the rows of more added: the rows of more
// for a provider and model take the place of all of this one's (a file
// that prices a model says all there is of it, from its dates on).
func (p Prices) With(more Prices) Prices {
	out := Prices{rows: make(map[[2]string][]Price, len(p.rows)+len(more.rows)), plans: map[string]string{}}
	for k, v := range p.rows {
		out.rows[k] = v
	}
	for k, v := range more.rows {
		out.rows[k] = v
	}
	for _, t := range []Prices{p, more} {
		for k, v := range t.plans {
			out.plans[k] = v
		}
	}
	return out
}

// add adds a row in its place by Since: a second row of the model from
// the same day is an error.
func (p *Prices) add(row Price) error {
	k := [2]string{row.Provider, row.Model}
	rows := p.rows[k]
	i, found := slices.BinarySearchFunc(rows, row.Since, func(r Price, since string) int { return strings.Compare(r.Since, since) })
	if found {
		return &PricesError{Field: "since", Err: fmt.Errorf("a second row of %s/%s from the same day", row.Provider, row.Model)}
	}
	p.rows[k] = slices.Insert(rows, i, row)
	if row.Plan != "" {
		p.plans[row.Provider] = row.Plan
	}
	return nil
}

// Rows returns the table's rows, by provider, model and since.
func (p Prices) Rows() []Price {
	var out []Price
	for _, rs := range p.rows {
		out = append(out, rs...)
	}
	slices.SortFunc(out, func(a, b Price) int {
		return cmp.Or(strings.Compare(a.Provider, b.Provider), strings.Compare(a.Model, b.Model), strings.Compare(a.Since, b.Since))
	})
	return out
}

// Lookup returns the row of a provider's exact model id in force now: its
// latest.
func (p Prices) Lookup(provider, model string) (Price, bool) {
	rs := p.rows[[2]string{provider, model}]
	if len(rs) == 0 {
		return Price{}, false
	}
	return rs[len(rs)-1], true
}

// At returns the row of a provider's exact model id in force at t: the
// one with the latest Since on or before t's day (UTC). A model priced
// only from a day after t has no row at t.
func (p Prices) At(provider, model string, t time.Time) (Price, bool) {
	day := t.UTC().Format(time.DateOnly)
	rs := p.rows[[2]string{provider, model}]
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].Since <= day {
			return rs[i], true
		}
	}
	return Price{}, false
}

// Cost is an API-price estimate of tokens: what they would cost at the
// rates of a price table. Priced is false when the model has no row, or
// its row no rate for a class of tokens it used: then USD is 0 and means
// nothing (never a cost of zero). Plan names the subscription that bills
// the provider instead (see Price: any row of the provider that names
// one), whether or not the model has a row. Checked is the day the row
// that priced it was checked.
//
// LongRequests counts the requests priced at the row's long-context
// rates. Unapplied reports an estimate from a run's totals alone whose
// row has a long-context rule the run's input could have met (more than
// its Above in all): the rule could not be applied, and the figure is
// the base rates'.
type Cost struct {
	USD          float64
	Priced       bool
	Plan         string
	Checked      string
	LongRequests int
	Unapplied    bool
}

// Cost estimates what tokens of a provider's model would cost at the
// rates in force at start (see At), from a run's totals alone: uncached
// input (input less cached and cache-write input) at the input rate,
// cached input at the cached rate, cache writes at the write rate and
// output (reasoning included, so never charged twice) at the output
// rate, per million tokens. A class of tokens that is zero needs no rate,
// and no tokens cost nothing, whatever the model. The long-context rule
// is not applied (see Cost.Unapplied): CostRequests applies it.
func (p Prices) Cost(provider, model string, start time.Time, t stream.TokensDTO) Cost {
	row, ok := p.At(provider, model, start)
	c := Cost{Plan: p.plans[provider]}
	if t == (stream.TokensDTO{}) {
		c.Priced = true
		return c
	}
	if !ok {
		return c
	}
	c.Checked = row.Checked
	c.USD, c.Priced = row.price(t, row.base())
	c.Unapplied = row.LongContext != nil && t.Input > row.LongContext.Above
	if !c.Priced {
		c.USD = 0
	}
	return c
}

// CostRequests estimates what a run's requests would cost, as Cost does,
// request by request (each model_response's usage): a request whose
// prompt is above the row's long-context threshold is priced at its
// long-context rates, the whole request.
func (p Prices) CostRequests(provider, model string, start time.Time, requests []stream.TokensDTO) Cost {
	m := p.meter(provider, model, start)
	for _, t := range requests {
		m.add(t)
	}
	return m.c
}

// meter prices a run's requests one at a time, as they come (see
// CostRequests): what it keeps is the sum, not the requests.
type meter struct {
	row Price
	ok  bool // the model has a row at the run's start
	c   Cost
}

func (p Prices) meter(provider, model string, start time.Time) *meter {
	row, ok := p.At(provider, model, start)
	return &meter{row: row, ok: ok, c: Cost{Plan: p.plans[provider], Priced: true}}
}

// add prices one request: a model without a row, or a class of tokens
// without a rate, leaves the run unpriced.
func (m *meter) add(t stream.TokensDTO) {
	if t == (stream.TokensDTO{}) || !m.c.Priced {
		return
	}
	if !m.ok {
		m.c = Cost{Plan: m.c.Plan}
		return
	}
	m.c.Checked = m.row.Checked
	rates := m.row.base()
	if lc := m.row.LongContext; lc != nil && t.Input > lc.Above {
		rates = [4]*float64{lc.Input, lc.CachedInput, lc.CacheWriteInput, lc.Output}
		m.c.LongRequests++
	}
	usd, priced := m.row.price(t, rates)
	if !priced {
		m.c = Cost{Plan: m.c.Plan}
		return
	}
	m.c.USD += usd
}

// base is the row's rates: input, cached, cache write, output.
func (row Price) base() [4]*float64 {
	return [4]*float64{row.Input, row.CachedInput, row.CacheWriteInput, row.Output}
}

// price is what tokens cost at rates; false when a class used has no
// rate.
func (row Price) price(t stream.TokensDTO, rates [4]*float64) (float64, bool) {
	usd := 0.0
	for i, n := range [4]int64{t.Input - t.CachedInput - t.CacheWriteInput, t.CachedInput, t.CacheWriteInput, t.Output} {
		if n == 0 {
			continue
		}
		if rates[i] == nil {
			return 0, false
		}
		usd += float64(n) * *rates[i] / 1e6
	}
	return usd, true
}
