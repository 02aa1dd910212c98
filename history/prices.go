package history

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
// is published; when the figures were read (Checked, YYYY-MM-DD) and the
// page they came from (Source). Plan names the subscription that bills
// the provider instead of these figures ("ChatGPT" for openai-codex):
// its cost is still the API-price estimate, said to be one.
type Price struct {
	Provider        string   `json:"provider"`
	Model           string   `json:"model"`
	Input           *float64 `json:"input"`
	CachedInput     *float64 `json:"cached_input"`
	CacheWriteInput *float64 `json:"cache_write_input"`
	Output          *float64 `json:"output"`
	Checked         string   `json:"checked"`
	Source          string   `json:"source"`
	Plan            string   `json:"plan,omitempty"`
}

// Prices is a price table: a row per provider and exact model id. The
// zero Prices prices nothing. A Prices is not changed after it is made,
// and is safe for concurrent use.
type Prices struct {
	rows  map[[2]string]Price
	plans map[string]string // a provider's plan, from any of its rows
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

// MaxPricesFile is the largest price table ParsePrices reads (LiteLLM's,
// every model the community prices, is about 1 MB).
const MaxPricesFile = 16 << 20

// ReadPrices reads the price table in the file path (see ParsePrices): a
// regular file only (a FIFO or a device is no table), MaxPricesFile bytes
// at most. Its error names the file.
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
	return p, nil
}

// ParsePrices reads a price table: a JSON array of Price objects. Every
// row needs its provider and model, and a rate that is a number (not
// negative) or null; checked, when given, is a date (YYYY-MM-DD). A
// malformed table is a *PricesError naming the line and the field; one
// over MaxPricesFile bytes is an error, read no further.
func ParsePrices(r io.Reader) (Prices, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxPricesFile+1))
	if err != nil {
		return Prices{}, fmt.Errorf("stream: prices: %w", err)
	}
	if len(b) > MaxPricesFile {
		return Prices{}, fmt.Errorf("stream: prices: larger than a price table can be (%d bytes at most)", MaxPricesFile)
	}
	var rows []json.RawMessage
	if err := json.Unmarshal(b, &rows); err != nil {
		off, why := 0, err
		if se, ok := errors.AsType[*json.SyntaxError](err); ok {
			off, why = int(se.Offset), errors.New("not JSON: "+se.Error())
		}
		if _, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			why = errors.New("not a JSON array of rows")
		}
		return Prices{}, &PricesError{Line: lineAt(b, off), Err: why}
	}
	p := Prices{rows: map[[2]string]Price{}, plans: map[string]string{}}
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
			p.add(row)
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

// kind names what a field holds.
func kind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Float64, reflect.Pointer:
		return "a number or null"
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
	for _, r := range []struct {
		name string
		v    *float64
	}{{"input", p.Input}, {"cached_input", p.CachedInput}, {"cache_write_input", p.CacheWriteInput}, {"output", p.Output}} {
		if r.v != nil && *r.v < 0 {
			return bad(r.name, "a negative rate")
		}
	}
	if p.Checked != "" {
		if _, err := time.Parse(time.DateOnly, p.Checked); err != nil {
			return bad("checked", "not a date (YYYY-MM-DD)")
		}
	}
	return nil
}

func lineAt(b []byte, off int) int {
	off = min(max(off, 0), len(b))
	return bytes.Count(b[:off], []byte("\n")) + 1
}

// With returns the table with the rows of more added, a row of more for
// the same provider and model taking the place of this one's.
func (p Prices) With(more Prices) Prices {
	out := Prices{rows: make(map[[2]string]Price, len(p.rows)+len(more.rows)), plans: map[string]string{}}
	for _, v := range p.rows {
		out.add(v)
	}
	for _, v := range more.rows {
		out.add(v)
	}
	return out
}

func (p *Prices) add(row Price) {
	p.rows[[2]string{row.Provider, row.Model}] = row
	if row.Plan != "" {
		p.plans[row.Provider] = row.Plan
	}
}

// Rows returns the table's rows, by provider and model.
func (p Prices) Rows() []Price {
	out := make([]Price, 0, len(p.rows))
	for _, r := range p.rows {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Price) int {
		return strings.Compare(a.Provider+"\x00"+a.Model, b.Provider+"\x00"+b.Model)
	})
	return out
}

// Lookup returns the row of a provider's exact model id.
func (p Prices) Lookup(provider, model string) (Price, bool) {
	r, ok := p.rows[[2]string{provider, model}]
	return r, ok
}

// Cost is an API-price estimate of tokens: what they would cost at the
// rates of a price table. Priced is false when the model has no row, or
// its row no rate for a class of tokens it used: then USD is 0 and means
// nothing (never a cost of zero). Plan names the subscription that bills
// the provider instead (see Price: any row of the provider that names
// one), whether or not the model has a row.
type Cost struct {
	USD    float64
	Priced bool
	Plan   string
}

// Cost estimates what tokens of a provider's model would cost: uncached
// input (input less cached and cache-write input) at the input rate,
// cached input at the cached rate, cache writes at the write rate and
// output (reasoning included, so never charged twice) at the output
// rate, per million tokens. A class of tokens that is zero needs no rate,
// and no tokens cost nothing, whatever the model.
func (p Prices) Cost(provider, model string, t stream.TokensDTO) Cost {
	row, ok := p.Lookup(provider, model)
	plan := p.plans[provider]
	if t == (stream.TokensDTO{}) {
		return Cost{Priced: true, Plan: plan}
	}
	if !ok {
		return Cost{Plan: plan}
	}
	usd := 0.0
	for _, part := range []struct {
		n    int64
		rate *float64
	}{
		{t.Input - t.CachedInput - t.CacheWriteInput, row.Input},
		{t.CachedInput, row.CachedInput},
		{t.CacheWriteInput, row.CacheWriteInput},
		{t.Output, row.Output},
	} {
		if part.n == 0 {
			continue
		}
		if part.rate == nil {
			return Cost{Plan: plan}
		}
		usd += float64(part.n) * *part.rate / 1e6
	}
	return Cost{USD: usd, Priced: true, Plan: plan}
}
