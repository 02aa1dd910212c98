package stream

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPlainRunMatchesByteByByte(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{0x00, 0x1f, 0x20, 0x21, '"', '\\', 'a', 0x7f, 0x80, 0xa2, 0xdc, 0xff}
	for range 20000 {
		data := make([]byte, rnd.IntN(40))
		for i := range data {
			if rnd.IntN(4) == 0 {
				data[i] = alphabet[rnd.IntN(len(alphabet))]
			} else {
				data[i] = byte('a' + rnd.IntN(26))
			}
		}
		start := 0
		if len(data) > 0 {
			start = rnd.IntN(len(data))
		}
		want, wantASCII := start, true
		for want < len(data) && plain[data[want]] {
			wantASCII = wantASCII && data[want] < 0x80
			want++
		}
		got, ascii := plainRun(data, start)
		require.Equal(t, want, got, "%q from %d", data, start)
		if ascii {
			require.True(t, wantASCII, "ASCII is reported only when it is: %q from %d", data, start)
		}
	}
}
