package wgref

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// naiveGemm is the reference: C = A·B (+ C), in float64.
func naiveGemm(m, n, k int, a, b matrix, c []float32, ldc int, accumulate bool) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			if accumulate {
				s = float64(c[i*ldc+j])
			}
			for p := 0; p < k; p++ {
				s += float64(a.at(i, p)) * float64(b.at(p, j))
			}
			c[i*ldc+j] = float32(s)
		}
	}
}

func randFloats(r *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = r.Float32()*2 - 1
	}
	return out
}

// forEachKernelPath runs f with each micro-kernel this CPU can run made
// the running one (the AVX2 and Go paths too on an AVX-512 machine).
func forEachKernelPath(t *testing.T, f func(t *testing.T)) {
	defer useKernelPath(bestKernelPath())
	for _, p := range kernelPaths() {
		useKernelPath(p)
		t.Run(p.name, f)
	}
}

// Each assembly micro-kernel against the portable one: odd and even kc, B
// packed (ldb = nr) or read in place (ldb > nr), with and without
// accumulation; nothing outside its mr×nr block of C is written.
func TestMicroKernelPathsMatchGo(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, p := range kernelPaths() {
		for _, kc := range []int{0, 1, 7, 255, 256} {
			for _, ldb := range []int{p.nr, p.nr + 5} {
				a, b := randFloats(r, kc*p.mr), randFloats(r, kc*ldb)
				for _, acc := range []bool{false, true} {
					ldc := p.nr + 3
					got, want := randFloats(r, p.mr*ldc), make([]float32, p.mr*ldc)
					copy(want, got)
					p.kernel(kc, a, b, ldb, got, ldc, acc)
					microKernelGo(p.mr, p.nr, kc, a, b, ldb, want, ldc, acc)
					for i := range got {
						if i%ldc >= p.nr {
							require.Equal(t, want[i], got[i], "%s wrote outside its block at %d", p.name, i)
							continue
						}
						require.InDelta(t, want[i], got[i], 1e-5*math.Max(1, math.Abs(float64(want[i]))), "%s kc %d ldb %d acc %v at %d", p.name, kc, ldb, acc, i)
					}
				}
			}
		}
	}
}

// The Go micro-kernel against the naive product (the reference the
// assembly is held to must itself be right).
func TestMicroKernelGoMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	const rows, cols, kc, ldc = 5, 7, 9, 11
	a, b := randFloats(r, kc*rows), randFloats(r, kc*cols)
	got := randFloats(r, rows*ldc)
	want := append([]float32(nil), got...)
	microKernelGo(rows, cols, kc, a, b, cols, got, ldc, true)
	naiveGemm(rows, cols, kc, matrix{a, 1, rows}, matrix{b, cols, 1}, want, ldc, true)
	for i := range got {
		require.InDelta(t, want[i], got[i], 1e-5, "at %d", i)
	}
}

// sgemm against the naive reference on every kernel path, on shapes
// around every block edge, transposed and strided operands, with and
// without accumulation, given exactly gemmPackFloats of scratch.
func TestSgemmMatchesNaive(t *testing.T) {
	forEachKernelPath(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(2))
		shapes := [][3]int{{1, 1, 1}, {5, 17, 3}, {6, 16, 256}, {12, 32, 255}, {13, 31, 257}, {7, 33, 257},
			{25, 65, 513}, {73, 1025, 20}, {130, 40, 600}, {2, 3, 0}}
		for _, s := range shapes {
			m, n, k := s[0], s[1], s[2]
			for _, trans := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
				ad, bd := randFloats(r, m*k+1), randFloats(r, k*n+1)
				a := matrix{ad, k, 1}
				if trans[0] {
					a = matrix{ad, 1, m}
				}
				b := matrix{bd, n, 1}
				if trans[1] {
					b = matrix{bd, 1, k}
				}
				for _, acc := range []bool{false, true} {
					ldc := n + 3
					got, want := randFloats(r, m*ldc), make([]float32, m*ldc)
					copy(want, got)
					sgemm(m, n, k, a, b, nil, got, ldc, acc, make([]float32, gemmPackFloats(m, n, k)))
					naiveGemm(m, n, k, a, b, want, ldc, acc)
					for i := range got {
						require.InDelta(t, want[i], got[i], 1e-4*math.Max(1, math.Abs(float64(want[i]))), "%v trans %v acc %v at %d", s, trans, acc, i)
					}
				}
			}
		}
	})
}

func BenchmarkSgemm(b *testing.B) {
	r := rand.New(rand.NewSource(3))
	for _, s := range [][3]int{{256, 768, 768}, {64, 3136, 576}} {
		m, n, k := s[0], s[1], s[2]
		a, bb := matrix{randFloats(r, m*k), k, 1}, matrix{randFloats(r, k*n), n, 1}
		c := make([]float32, m*n)
		b.Run("", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sgemm(m, n, k, a, bb, nil, c, n, false, make([]float32, gemmPackFloats(m, n, k)))
			}
			b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
