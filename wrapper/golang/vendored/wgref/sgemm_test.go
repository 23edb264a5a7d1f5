package wgref

import (
	"fmt"
	"math"
	"math/rand"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
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

// requireClose fails at the first element of got farther from want's than
// tol relative (absolute below 1).
func requireClose(t testing.TB, want, got []float32, tol float64, msg string, args ...any) {
	t.Helper()
	require.Equal(t, len(want), len(got), msg, args)
	for i := range got {
		if math.IsNaN(float64(want[i])) {
			require.True(t, math.IsNaN(float64(got[i])), "%s at %d: want NaN, got %v", fmt.Sprintf(msg, args...), i, got[i])
			continue
		}
		if math.Abs(float64(got[i])-float64(want[i])) > tol*math.Max(1, math.Abs(float64(want[i]))) {
			require.InDelta(t, want[i], got[i], tol*math.Max(1, math.Abs(float64(want[i]))), fmt.Sprintf(msg, args...)+fmt.Sprintf(" at %d", i))
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

// forEachKernelPathLong is forEachKernelPath in the long tests, and the
// best path alone in the fast ones: for tests whose subject (splitting,
// packing) is the same code on every path, the paths differing only in
// the micro-kernel and its panel width.
func forEachKernelPathLong(t *testing.T, f func(t *testing.T)) {
	if testenv.Long() {
		forEachKernelPath(t, f)
		return
	}
	t.Run(bestKernelPath().name, f)
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
					p.run(kc, a, b, ldb, got, ldc, acc)
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
		shapes := [][3]int{{1, 1, 1}, {1, 70, 9}, {2, 33, 300}, {3, 8, 1}, {4, 1030, 7}, {5, 17, 3}, {6, 16, 256}, {12, 32, 255}, {13, 31, 257}, {7, 33, 257},
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
					sgemm(m, n, k, a, b, nil, got, ldc, acc, make([]float32, gemmPackFloats(m, n, k, formOf(b, nil))), defaultThreads)
					naiveGemm(m, n, k, a, b, want, ldc, acc)
					requireClose(t, want, got, 1e-4, "%v trans %v acc %v", s, trans, acc)
				}
			}
		}
	})
}

// withThreads runs f with SetThreads(n), then restores one thread.
func withThreads(n int, f func()) {
	SetThreads(n)
	defer SetThreads(1)
	f()
}

// With workers, on every path: shapes that split by columns, by rows and
// columns (few column panels), and too small to split, and one whose
// blocks alternate between one part and several.
func TestSgemmThreadsMatchNaive(t *testing.T) {
	forEachKernelPath(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(5))
		for _, threads := range []int{2, 3} {
			withThreads(threads, func() {
				// 624x20x600: blocks of rows one part runs (staging its
				// short B panels on AVX2) before blocks the parts share.
				for _, s := range [][3]int{{40, 2000, 100}, {400, 40, 300}, {50, 1100, 300}, {5, 7, 3}, {624, 20, 600}} {
					m, n, k := s[0], s[1], s[2]
					for _, transB := range []bool{false, true} {
						a := matrix{randFloats(r, m*k), k, 1}
						b := matrix{randFloats(r, k*n), n, 1}
						if transB {
							b = matrix{b.data, 1, k}
						}
						ldc := n + 1
						got, want := randFloats(r, m*ldc), make([]float32, m*ldc)
						copy(want, got)
						sgemm(m, n, k, a, b, nil, got, ldc, true, make([]float32, gemmPackFloats(m, n, k, formOf(b, nil))), defaultThreads)
						naiveGemm(m, n, k, a, b, want, ldc, true)
						requireClose(t, want, got, 1e-4, "%v threads %d transB %v", s, threads, transB)
					}
				}
			})
		}
	})
}

// naiveConv2D is the reference convolution: x [n,c,h,w], w [m,c/g,kh,kw],
// stride s, padding p on every side.
func naiveConv2D(x, w []float32, n, c, h, wd, m, g, kh, kw, s, p int) ([]float32, int, int) {
	oh, ow := (h+2*p-kh)/s+1, (wd+2*p-kw)/s+1
	cg, mg := c/g, m/g
	y := make([]float32, n*m*oh*ow)
	for b := 0; b < n; b++ {
		for oc := 0; oc < m; oc++ {
			gi := oc / mg
			for oy := 0; oy < oh; oy++ {
				for ox := 0; ox < ow; ox++ {
					sum := 0.0
					for ic := 0; ic < cg; ic++ {
						for i := 0; i < kh; i++ {
							for j := 0; j < kw; j++ {
								iy, ix := oy*s-p+i, ox*s-p+j
								if iy < 0 || iy >= h || ix < 0 || ix >= wd {
									continue
								}
								sum += float64(x[((b*c+gi*cg+ic)*h+iy)*wd+ix]) * float64(w[((oc*cg+ic)*kh+i)*kw+j])
							}
						}
					}
					y[((b*m+oc)*oh+oy)*ow+ox] = float32(sum)
				}
			}
		}
	}
	return y, oh, ow
}

// Convolutions pack B through im2colB in the running path's panel width:
// on every path, with and without workers, against the naive loop.
func TestConvPathsMatchNaive(t *testing.T) {
	forEachKernelPath(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(6))
		for _, s := range [][8]int{ // n, c, h, w, m, group, stride, pad (3×3 kernels)
			{2, 6, 23, 19, 14, 1, 1, 1}, {1, 4, 40, 40, 26, 2, 2, 0}, {1, 300, 9, 9, 40, 1, 1, 1},
		} {
			n, c, h, wd, m, g, st, pd := s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
			xd, wdata := randFloats(r, n*c*h*wd), randFloats(r, m*c/g*9)
			want, oh, ow := naiveConv2D(xd, wdata, n, c, h, wd, m, g, 3, 3, st, pd)
			ca := convAttrs{kernel: []int{3, 3}, strides: []int{st, st}, pads: []int{pd, pd, pd, pd}, dilations: []int{1, 1}, group: g}
			for _, threads := range []int{1, 2} {
				withThreads(threads, func() {
					got := make([]float32, len(want))
					x, w := wgrt.FromFloat32s(xd, n, c, h, wd), wgrt.FromFloat32s(wdata, m, c/g, 3, 3)
					out := wgrt.FromFloat32s(got, n, m, oh, ow)
					convF32(x, w, nil, out, ca, make([]float32, gemmPackFloats(m/g, oh*ow, c/g*9, bIm2col)), nil, nil, defaultThreads)
					requireClose(t, want, got, 1e-4, "%v threads %d", s, threads)
				})
			}
		}
	})
}

// No allocation per call, with or without workers, sgemm or convolution.
func TestSgemmAllocatesNothing(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	const m, n, k = 200, 1500, 300
	a, b := matrix{randFloats(r, m*k), k, 1}, matrix{randFloats(r, k*n), 1, k}
	c, work := make([]float32, m*n), make([]float32, gemmPackFloats(m, n, k, bStrided))
	xd, wdata := randFloats(r, 2*16*30*30), randFloats(r, 32*16*9)
	x, w := wgrt.FromFloat32s(xd, 2, 16, 30, 30), wgrt.FromFloat32s(wdata, 32, 16, 3, 3)
	out := wgrt.FromFloat32s(make([]float32, 2*32*28*28), 2, 32, 28, 28)
	ca := convAttrs{kernel: []int{3, 3}, strides: []int{1, 1}, pads: []int{0, 0, 0, 0}, dilations: []int{1, 1}, group: 1}
	convWork := make([]float32, gemmPackFloats(32, 28*28, 16*9, bIm2col))
	for _, threads := range []int{1, 2} {
		withThreads(threads, func() {
			require.Zero(t, testing.AllocsPerRun(5, func() { sgemm(m, n, k, a, b, nil, c, n, false, work, defaultThreads) }), "sgemm, threads %d", threads)
			require.Zero(t, testing.AllocsPerRun(5, func() { convF32(x, w, nil, out, ca, convWork, nil, nil, defaultThreads) }), "conv, threads %d", threads)
		})
	}
}

// Two callers at once with workers: one holds the pool, the other runs on
// its own goroutine; both right.
func TestSgemmConcurrentCallers(t *testing.T) {
	withThreads(2, func() {
		const m, n, k = 150, 700, 333
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for g := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewSource(int64(g)))
				a, b := matrix{randFloats(r, m*k), k, 1}, matrix{randFloats(r, k*n), n, 1}
				got, want := make([]float32, m*n), make([]float32, m*n)
				work := make([]float32, gemmPackFloats(m, n, k, bRowMajor))
				for rep := 0; rep < 5; rep++ {
					sgemm(m, n, k, a, b, nil, got, n, false, work, defaultThreads)
				}
				naiveGemm(m, n, k, a, b, want, n, false)
				for i := range got {
					if math.Abs(float64(got[i]-want[i])) > 1e-3 {
						errs[g] = fmt.Errorf("caller %d at %d: %v, want %v", g, i, got[i], want[i])
						return
					}
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
	})
}

// BenchmarkSgemm reports GFLOP/s by wall time and GFLOP per second of the
// process's CPU time (steadier on a shared machine; with two threads, equal
// to one thread's when the split wastes nothing), per kernel path and
// thread count.
func BenchmarkSgemm(b *testing.B) {
	defer useKernelPath(bestKernelPath())
	r := rand.New(rand.NewSource(3))
	for _, s := range [][3]int{{512, 256, 1024}, {512, 1024, 256}, {256, 768, 768}, {64, 3136, 576}, {512, 49, 4608}, {1, 3072, 768}, {4, 1000, 512}} {
		m, n, k := s[0], s[1], s[2]
		a, bb := matrix{randFloats(r, m*k), k, 1}, matrix{randFloats(r, k*n), n, 1}
		c, work := make([]float32, m*n), make([]float32, gemmPackFloats(m, n, k, bRowMajor))
		for _, p := range kernelPaths() {
			for _, threads := range []int{1, 2} {
				b.Run(fmt.Sprintf("%dx%dx%d/%s/threads=%d", m, n, k, p.name, threads), func(b *testing.B) {
					useKernelPath(p)
					SetThreads(threads)
					defer SetThreads(1)
					cpu0 := processCPU()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						sgemm(m, n, k, a, bb, nil, c, n, false, work, defaultThreads)
					}
					flops := 2 * float64(m*n*k) * float64(b.N) / 1e9
					b.ReportMetric(flops/b.Elapsed().Seconds(), "GFLOP/s")
					b.ReportMetric(flops/(processCPU()-cpu0).Seconds(), "GFLOP/cpu-s")
				})
			}
		}
	}
}
