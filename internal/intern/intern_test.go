package intern

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Set against a map, on keys that share prefixes, lengths and hash
// table slots, the empty key and keys longer than a chunk among them.
func TestSetIsAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var s Set
	want := map[string]int{}
	var order []string
	for range 200000 {
		var key string
		switch r.IntN(600) {
		case 0:
			key = ""
		case 1:
			key = strings.Repeat("x", r.IntN(3*chunk))
		case 2:
			key = strings.Repeat("y", r.IntN(300))
		default:
			key = fmt.Sprintf("call_%d", r.IntN(50000))
		}
		j, seen := want[key]
		k, found := s.Lookup(key)
		require.Equal(t, seen, found, "lookup of %.20q", key)
		if seen {
			require.Equal(t, j, k)
		}
		i, added := s.Index(key)
		if !seen {
			j = len(order)
			want[key] = j
			order = append(order, key)
		}
		require.Equal(t, j, i, "index of %.20q", key)
		require.Equal(t, !seen, added, "added %.20q", key)
	}
	require.Equal(t, len(order), s.Len())
	for i, key := range order {
		require.Equal(t, key, s.Key(i))
	}
}

func TestSetKeysStayValid(t *testing.T) {
	var s Set
	s.Index("first")
	k := s.Key(0)
	for i := range 100000 {
		s.Index(fmt.Sprint(i))
	}
	assert.Equal(t, "first", k, "a key's string survives growth")
	i, added := s.Index("first")
	assert.Zero(t, i)
	assert.False(t, added)
}

func BenchmarkSetIndex(b *testing.B) {
	keys := make([]string, 1<<16)
	for i := range keys {
		keys[i] = fmt.Sprintf("call_%024d", i)
	}
	var s Set
	i := 0
	for b.Loop() {
		s.Index(keys[i&(len(keys)-1)])
		i++
	}
}
