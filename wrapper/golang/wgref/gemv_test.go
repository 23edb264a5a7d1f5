package wgref

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// gemvRow (the assembly where there is some) against gemvGo and against
// a float64 sum, on widths around its 64- and 8-column blocks, depths
// from 1, and B rows wider than the product (a strided view).
func TestGemvRowMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, n := range []int{1, 7, 8, 9, 63, 64, 65, 72, 130, 2048} {
		for _, k := range []int{0, 1, 2, 17, 512} {
			ldb := n + 16
			x := make([]float32, k)
			b := make([]float32, max(k*ldb, 1))
			for i := range x {
				x[i] = float32(rng.Float64()*2 - 1)
			}
			for i := range b {
				b[i] = float32(rng.Float64()*2 - 1)
			}
			got, ref := make([]float32, n+1), make([]float32, n+1)
			got[n], ref[n] = 42, 42 // past the product: untouched
			gemvRow(x, b, ldb, got[:n])
			gemvGo(x, b, ldb, ref[:n])
			for j := 0; j < n; j++ {
				sum := 0.0
				for p := 0; p < k; p++ {
					sum += float64(x[p]) * float64(b[p*ldb+j])
				}
				tol := 1e-5 * (1 + math.Sqrt(float64(k)))
				require.InDelta(t, sum, float64(got[j]), tol, "n %d k %d column %d (assembly)", n, k, j)
				require.InDelta(t, sum, float64(ref[j]), tol, "n %d k %d column %d (Go)", n, k, j)
			}
			require.Equal(t, float32(42), got[n], "n %d k %d: wrote past the row", n, k)
		}
	}
}
