package wgref

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// dotRows and dotRows2 (the assembly where there is some) against
// dotRowsGo and a float64 sum, on row counts and lengths around its blocks of eight, rows
// further apart than their length (a strided view), and nothing written
// past the results.
func TestDotRowsMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, n := range []int{1, 7, 8, 9, 16, 23, 2048} {
		for _, k := range []int{0, 1, 7, 8, 9, 17, 512} {
			lda := k + 5
			x := make([]float32, k)
			a := make([]float32, n*lda)
			for i := range x {
				x[i] = float32(rng.Float64()*2 - 1)
			}
			for i := range a {
				a[i] = float32(rng.Float64()*2 - 1)
			}
			got, ref := make([]float32, n+1), make([]float32, n+1)
			got[n], ref[n] = 42, 42
			dotRows(a, lda, x, got[:n])
			dotRowsGo(a, lda, x, ref[:n])
			// dotRows2 with x and its negation: the same sums, one
			// negated (rounding is symmetric).
			neg := make([]float32, k)
			for i, v := range x {
				neg[i] = -v
			}
			got1, got2 := make([]float32, n+1), make([]float32, n+1)
			got1[n], got2[n] = 42, 42
			dotRows2(a, lda, x, neg, got1[:n], got2[:n])
			for q := 0; q < n; q++ {
				sum := 0.0
				for j := 0; j < k; j++ {
					sum += float64(a[q*lda+j]) * float64(x[j])
				}
				tol := 1e-5 * (1 + math.Sqrt(float64(k)))
				require.InDelta(t, sum, float64(got[q]), tol, "n %d k %d row %d (assembly)", n, k, q)
				require.InDelta(t, sum, float64(ref[q]), tol, "n %d k %d row %d (Go)", n, k, q)
				require.InDelta(t, sum, float64(got1[q]), tol, "n %d k %d row %d (two vectors, first)", n, k, q)
				require.Equal(t, -got1[q], got2[q], "n %d k %d row %d (two vectors, second)", n, k, q)
			}
			require.Equal(t, float32(42), got[n], "n %d k %d: wrote past the results", n, k)
			require.Equal(t, float32(42), got1[n], "n %d k %d: wrote past the first results", n, k)
			require.Equal(t, float32(42), got2[n], "n %d k %d: wrote past the second results", n, k)
		}
	}
}
