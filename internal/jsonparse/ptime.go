package jsonparse

import "time"

// parseUTC reads the one form uagent writes, "2006-01-02T15:04:05Z" with
// an optional fraction of 1 to 9 digits, as time.Time.UnmarshalText would
// and in UTC. It reports false for anything else, valid or not, which
// UnmarshalText then reads.
func parseUTC(b []byte) (time.Time, bool) {
	n := len(b)
	if n < 20 || n > 30 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[n-1] != 'Z' {
		return time.Time{}, false
	}
	num := func(i, w int) int {
		v := 0
		for _, c := range b[i : i+w] {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, sec := num(11, 2), num(14, 2), num(17, 2)
	if year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	if day > 28 && day > time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
		return time.Time{}, false
	}
	ns := 0
	if n > 20 {
		digits := n - 21
		if b[19] != '.' || digits < 1 || digits > 9 {
			return time.Time{}, false
		}
		if ns = num(20, digits); ns < 0 {
			return time.Time{}, false
		}
		for range 9 - digits {
			ns *= 10
		}
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, ns, time.UTC), true
}

// ParseTime parses an RFC 3339 time as time.Time.UnmarshalText does,
// uagent's own form without it.
func ParseTime(b []byte) (time.Time, bool) {
	t, ok := parseUTC(b)
	if !ok {
		ok = t.UnmarshalText(b) == nil
	}
	return t, ok
}

// ParseAt parses an RFC 3339 time whose offset is zero and returns it in UTC.
func ParseAt(b []byte) (time.Time, bool) {
	t, ok := ParseTime(b)
	if _, off := t.Zone(); !ok || off != 0 {
		return time.Time{}, false
	}
	return t.UTC(), true
}
