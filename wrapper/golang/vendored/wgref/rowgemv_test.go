package wgref

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// rowTimesB (the assembly where there is some) against rowTimesBGo and a
// float64 sum written here, on widths around its blocks of 32 and 8,
// depths odd and even, A strided, B's rows further apart than their
// length, with and without accumulation, and nothing written past the
// row.
func TestRowTimesBMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	rnd := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(rng.Float64()*2 - 1)
		}
		return s
	}
	for _, n := range []int{1, 7, 8, 9, 31, 32, 33, 40, 63, 100, 1030} {
		for _, k := range []int{0, 1, 2, 3, 8, 17, 300} {
			for _, acs := range []int{1, 3} {
				for _, acc := range []bool{false, true} {
					ldb := n + 5
					a, b := rnd(max(1, k*acs)), rnd(max(1, k*ldb))
					start := rnd(n)
					got, ref := make([]float32, n+1), make([]float32, n+1)
					copy(got, start)
					copy(ref, start)
					got[n], ref[n] = 42, 42
					rowTimesB(got[:n], a, acs, b, ldb, k, acc)
					rowTimesBGo(ref[:n], a, acs, b, ldb, k, acc)
					for j := 0; j < n; j++ {
						sum := 0.0
						if acc {
							sum = float64(start[j])
						}
						for p := 0; p < k; p++ {
							sum += float64(a[p*acs]) * float64(b[p*ldb+j])
						}
						tol := 1e-5 * (1 + math.Sqrt(float64(k)))
						require.InDelta(t, sum, float64(got[j]), tol, "n %d k %d acs %d acc %v column %d (assembly)", n, k, acs, acc, j)
						require.InDelta(t, sum, float64(ref[j]), tol, "n %d k %d acs %d acc %v column %d (Go)", n, k, acs, acc, j)
					}
					require.Equal(t, float32(42), got[n], "n %d k %d: wrote past the row", n, k)
				}
			}
		}
	}
}

// rowsTimesB (the four-row assembly where there is some) against a
// float64 sum written here, for 1 to 4 rows, widths around its blocks of
// 16 and 8, A's rows and steps strided, C's rows further apart than their
// width, with and without accumulation; nothing between or after C's rows
// is written.
func TestRowsTimesBMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	rnd := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(rng.Float64()*2 - 1)
		}
		return s
	}
	for m := 1; m <= gemvMaxRows; m++ {
		for _, n := range []int{1, 8, 15, 16, 17, 24, 40, 1000} {
			for _, k := range []int{1, 2, 9, 300} {
				for _, acc := range []bool{false, true} {
					ars, acs, ldb, ldc := k+3, 1, n+5, n+2
					if m%2 == 0 {
						ars, acs = 1, m+1 // A's columns strided
					}
					a, b := rnd(m*ars+k*acs), rnd(k*ldb)
					start := rnd(m * ldc)
					got := append([]float32(nil), start...)
					rowsTimesB(m, got, ldc, a, ars, acs, b, ldb, n, k, acc)
					for i := 0; i < m; i++ {
						for j := 0; j < ldc; j++ {
							at := i*ldc + j
							if j >= n {
								require.Equal(t, start[at], got[at], "m %d n %d k %d: wrote past row %d", m, n, k, i)
								continue
							}
							sum := 0.0
							if acc {
								sum = float64(start[at])
							}
							for p := 0; p < k; p++ {
								sum += float64(a[i*ars+p*acs]) * float64(b[p*ldb+j])
							}
							require.InDelta(t, sum, float64(got[at]), 1e-5*(1+math.Sqrt(float64(k))), "m %d n %d k %d acc %v at (%d, %d)", m, n, k, acc, i, j)
						}
					}
				}
			}
		}
	}
}
