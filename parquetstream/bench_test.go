package parquetstream

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/history/historytest"
)

// BenchmarkRepeatExport exports a history of n runs (historytest.Many: two
// homes) a second time, which adds nothing: what a nightly export costs
// once the directory holds the runs. Its time grows with the runs held
// and the sources, not with their product (plan counted every held run
// for every source: 2.1 s at 5,000 runs, 18.1 s at 20,000).
func BenchmarkRepeatExport(b *testing.B) {
	for _, n := range []int{2000, 8000} {
		b.Run("runs="+strconv.Itoa(n), func(b *testing.B) {
			dirs, err := historytest.Many(b.TempDir(), n)
			require.NoError(b, err)
			out := b.TempDir()
			export := func() int {
				x, err := Open(out)
				require.NoError(b, err)
				defer x.Close()
				require.NoError(b, x.Write(context.Background(), Sources(dirs, func(error) {}), func(error) {}))
				require.NoError(b, x.Publish())
				return x.Exported()
			}
			require.Equal(b, n, export())
			for b.Loop() {
				if got := export(); got != 0 {
					b.Fatalf("exported %d again", got)
				}
			}
		})
	}
}
