package termstream

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Money is a cost as a person reads it: "$1.23" ("$0.0042" under a cent);
// "≥$1.23" when part of what it prices is unpriced (partial); "?" for no
// figure (usd nil: nothing priced, or not a finite number).
func Money(usd *float64, partial bool) string {
	switch {
	case usd == nil:
		return "?"
	case partial:
		return "≥" + dollars(*usd)
	}
	return dollars(*usd)
}

func dollars(v float64) string {
	if v > 0 && v < 0.01 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// Compact is a count of tokens in a few characters: 950, 12.3k, 1.5M,
// 2.0G.
func Compact(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "k"
	case n < 1_000_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
	}
	return strconv.FormatFloat(float64(n)/1e9, 'f', 1, 64) + "G"
}

// Thousands writes n with thousands separators: 1,234,567.
func Thousands(n int64) string { return english.Sprint(n) }

var english = message.NewPrinter(language.English)

// Tilde writes a path under the home directory with ~ (~/src/x).
func Tilde(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || path == "" {
		return path
	}
	if path == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(path, home+string(filepath.Separator)); ok {
		return "~" + string(filepath.Separator) + rest
	}
	return path
}

// Wall is a run's wall time in milliseconds as a person reads it, to the
// second: 1m30s.
func Wall(ms int64) string { return (time.Duration(ms) * time.Millisecond).Round(time.Second).String() }
