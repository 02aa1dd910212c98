//go:build before && !borrow

package main

import (
	"github.com/uagentkit/stream"
	old "github.com/uagentkit/stream/bench/before/old"
)

// The Decoders' options: none (with the tag borrow, borrowed strings).
var (
	oldOptions []old.DecoderOption
	newOptions []stream.DecoderOption
)
