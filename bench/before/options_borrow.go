//go:build before && borrow

package main

import (
	"github.com/uagentkit/stream"
	old "github.com/uagentkit/stream/bench/before/old"
)

// The Decoders' options: borrowed strings, for a REV that has them.
var (
	oldOptions = []old.DecoderOption{old.WithBorrowedStrings()}
	newOptions = []stream.DecoderOption{stream.WithBorrowedStrings()}
)
