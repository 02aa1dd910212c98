package history

import "sync"

// Live is a history kept current for a program that answers questions
// about it now and then (an editor's session/list, an agent's task): its
// Index is read the first time it is asked for, and read again from what
// changed each time after (Reopen, which costs a few stats when nothing
// did). It is safe for concurrent use; the Indexes it returns are not
// changed after.
type Live struct {
	mu     sync.Mutex
	prices Prices
	dirs   []string
	x      *Index
}

// NewLive returns the live history of the state directories dirs, priced
// by prices. It reads nothing until Index is called.
func NewLive(prices Prices, dirs ...string) *Live { return &Live{prices: prices, dirs: dirs} }

// Index returns the history as it stands.
func (l *Live) Index() *Index {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.x == nil {
		l.x = Open(l.prices, l.dirs...)
	} else {
		l.x = l.x.Reopen()
	}
	return l.x
}
