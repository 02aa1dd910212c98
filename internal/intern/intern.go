// Package intern keeps a set of strings compactly: the fold of a run must
// remember every call_id and op_id it has seen, exactly, and a run can have
// hundreds of thousands of them.
package intern

import (
	"encoding/binary"
	"hash/maphash"
	"unsafe"
)

// Set gives each distinct string a dense index, 0, 1, 2, … in the order
// the strings were first added. Strings are compared byte for byte, never
// by hash alone, so two strings share an index only when they are equal.
//
// The bytes are kept once, in chunks that never move or change, so the
// strings Key returns share them and stay valid for the life of the Set.
// A key costs its bytes, one or two bytes of length, eight bytes of
// position and four to eight of hash table, and holds no pointer for the
// garbage collector to follow. The zero Set is empty and ready. A Set is
// not safe for concurrent use.
type Set struct {
	seed   maphash.Seed
	chunks [][]byte
	pos    []uint64 // per index: chunk<<32 | offset of its length-prefixed bytes
	table  []uint32 // open addressing: 0 is empty, else index+1
}

// chunk is the size of the chunks keys are written into; a key longer than
// a quarter of it gets a chunk of its own.
const chunk = 64 << 10

// Len returns the number of strings in the set.
func (s *Set) Len() int { return len(s.pos) }

// Key returns the string of index i. It panics if i is out of range.
func (s *Set) Key(i int) string {
	p := s.pos[i]
	b := s.chunks[p>>32][uint32(p):]
	n, k := binary.Uvarint(b)
	if n == 0 {
		return ""
	}
	return unsafe.String(&b[k], int(n))
}

// Lookup returns the index of key, if the set has it.
func (s *Set) Lookup(key string) (int, bool) {
	if s.table == nil {
		return 0, false
	}
	mask := uint64(len(s.table) - 1)
	for h := maphash.String(s.seed, key) & mask; ; h = (h + 1) & mask {
		slot := s.table[h]
		if slot == 0 {
			return 0, false
		}
		if i := int(slot - 1); s.is(i, key) {
			return i, true
		}
	}
}

// is reports whether the key of index i is key.
func (s *Set) is(i int, key string) bool { return s.Key(i) == key }

// Index returns the index of key, and whether this call added it.
func (s *Set) Index(key string) (int, bool) {
	if s.table == nil {
		s.seed = maphash.MakeSeed()
		s.table = make([]uint32, 16)
	}
	mask := uint64(len(s.table) - 1)
	for h := maphash.String(s.seed, key) & mask; ; h = (h + 1) & mask {
		slot := s.table[h]
		if slot == 0 {
			if 4*(len(s.pos)+1) > 3*len(s.table) {
				s.grow()
				return s.Index(key)
			}
			s.table[h] = uint32(len(s.pos)) + 1
			s.pos = append(s.pos, s.write(key))
			return len(s.pos) - 1, true
		}
		if i := int(slot - 1); s.is(i, key) {
			return i, false
		}
	}
}

// write stores key's length and bytes and returns their position.
func (s *Set) write(key string) uint64 {
	need := binary.MaxVarintLen64 + len(key)
	n := len(s.chunks)
	if n == 0 || cap(s.chunks[n-1])-len(s.chunks[n-1]) < need {
		// Blocks double from 512 bytes to the chunk size, so that a small
		// set (a short run's ids) is small.
		size := chunk
		if n < 7 {
			size = 512 << n
		}
		if need > size/4 {
			size = max(size, need)
		}
		s.chunks = append(s.chunks, make([]byte, 0, size))
		n++
	}
	c := s.chunks[n-1]
	off := len(c)
	c = binary.AppendUvarint(c, uint64(len(key)))
	s.chunks[n-1] = append(c, key...)
	return uint64(n-1)<<32 | uint64(off)
}

// grow doubles the table and places every key again.
func (s *Set) grow() {
	s.table = make([]uint32, 2*len(s.table))
	mask := uint64(len(s.table) - 1)
	for i := range s.pos {
		h := maphash.String(s.seed, s.Key(i)) & mask
		for s.table[h] != 0 {
			h = (h + 1) & mask
		}
		s.table[h] = uint32(i) + 1
	}
}
