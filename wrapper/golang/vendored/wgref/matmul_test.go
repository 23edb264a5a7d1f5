package wgref

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// strided views data as a float32 tensor of shape and strides (elements).
func strided(data []float32, shape, strides []int) wgrt.Tensor {
	t := wgrt.View(data, len(data))
	t.Shape, t.Strides = shape, strides
	return t
}

// MatMul of a batch [bt, m, k] by B: the batch folds into rows when B is
// shared (2-D, or batch dimensions of 1) and the rows lie evenly, and runs
// one product per element otherwise; each against the naive loop, with
// exactly the scratch the planner's rule gives.
func TestMatMulBatchMatchesNaive(t *testing.T) {
	forEachKernelPath(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(8))
		const bt, m, k, n = 24, 2, 256, 40
		ad := randFloats(r, bt*m*k)
		contiguous := strided(ad, []int{bt, m, k}, []int{m * k, k, 1})
		rowsFirst := strided(ad, []int{bt, m, k}, []int{k, bt * k, 1}) // data [m, bt, k]: rows not evenly spaced
		for _, tc := range []struct {
			name   string
			a      wgrt.Tensor
			bShape []int
		}{
			{"folded", contiguous, []int{k, n}},
			{"folded, B with a batch of 1", contiguous, []int{1, k, n}},
			{"folded, B a vector", contiguous, []int{k}},
			{"rows not even", rowsFirst, []int{k, n}},
			{"B batched", contiguous, []int{bt, k, n}},
		} {
			bElems := 1
			for _, d := range tc.bShape {
				bElems *= d
			}
			bd := randFloats(r, bElems)
			b := wgrt.View(bd, tc.bShape...)
			cols, bBatch := 1, 0
			if len(tc.bShape) >= 2 {
				cols = n
			}
			if len(tc.bShape) == 3 && tc.bShape[0] > 1 {
				bBatch = k * n
			}
			outShape := []int{bt, m, cols}
			if len(tc.bShape) == 1 {
				outShape = []int{bt, m}
			}
			got := make([]float32, bt*m*cols)
			want := make([]float32, bt*m*cols)
			for e := 0; e < bt; e++ {
				for i := 0; i < m; i++ {
					for j := 0; j < cols; j++ {
						s := 0.0
						for p := 0; p < k; p++ {
							av := ad[e*tc.a.Strides[0]+i*tc.a.Strides[1]+p]
							s += float64(av) * float64(bd[e*bBatch+p*cols+j])
						}
						want[(e*m+i)*cols+j] = float32(s)
					}
				}
			}
			scratch := make([]byte, 4*gemmPackFloats(bt*m, cols, k, bRowMajor))
			call := &wgrt.Call{Kernel: "MatMul", Inputs: []wgrt.Tensor{tc.a, b}, Outputs: []wgrt.Tensor{wgrt.View(got, outShape...)}, Scratch: scratch}
			require.NoError(t, Call(call), tc.name)
			requireClose(t, want, got, 1e-4, "%s", tc.name)
		}
	})
}

// The folded batch is one GEMM: as fast per row as a GEMM of that many
// rows, where 24 GEMMs of 2 rows each are not (a benchmark, not a test).
func BenchmarkMatMulBatch(b *testing.B) {
	r := rand.New(rand.NewSource(9))
	for _, s := range [][4]int{{24, 2, 256, 768}, {4, 128, 256, 768}} {
		bt, m, k, n := s[0], s[1], s[2], s[3]
		a := wgrt.View(randFloats(r, bt*m*k), bt, m, k)
		w := wgrt.View(randFloats(r, k*n), k, n)
		out := wgrt.View(make([]float32, bt*m*n), bt, m, n)
		call := &wgrt.Call{Kernel: "MatMul", Inputs: []wgrt.Tensor{a, w}, Outputs: []wgrt.Tensor{out}, Scratch: make([]byte, 4*gemmPackFloats(bt*m, n, k, bRowMajor))}
		b.Run(fmt.Sprintf("%dx%dx%d_by_%dx%d", bt, m, k, k, n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := Call(call); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(2*float64(bt*m*k*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// Gemm with C in every broadcast form ([m, n], a row [n], a column
// [m, 1], [1], a scalar) gives what a plain float64 loop gives, with C
// filled into the output first (alpha and beta 1) and after (otherwise),
// A and B transposed or not, one row (the row dots) and several.
func TestGemmBiasFormsMatchNaive(t *testing.T) {
	r := rand.New(rand.NewSource(34))
	for _, m := range []int{1, 5, 37} {
		const k, n = 19, 23
		for _, cshape := range [][]int{{m, n}, {n}, {m, 1}, {1}, {}} {
			for _, ab := range [][2]float64{{1, 1}, {0.5, 1}, {1, -2}} {
				for _, trans := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
					ashape, bshape := []int{m, k}, []int{k, n}
					if trans[0] == 1 {
						ashape = []int{k, m}
					}
					if trans[1] == 1 {
						bshape = []int{n, k}
					}
					a, b, cin := randomF32(r, 1, ashape...), randomF32(r, 1, bshape...), randomF32(r, 1, cshape...)
					out := wgrt.New(wgrt.F32, m, n)
					require.NoError(t, Call(&wgrt.Call{Kernel: "Gemm", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{a, b, cin},
						Attrs: []wgrt.Attr{floatAttr("alpha", ab[0]), floatAttr("beta", ab[1]), intAttr("transA", trans[0]), intAttr("transB", trans[1])}}))
					as, bs, cs := a.Float32s(), b.Float32s(), cin.Float32s()
					for i := 0; i < m; i++ {
						for j := 0; j < n; j++ {
							s := 0.0
							for p := 0; p < k; p++ {
								av, bv := as[i*k+p], bs[p*n+j]
								if trans[0] == 1 {
									av = as[p*m+i]
								}
								if trans[1] == 1 {
									bv = bs[j*k+p]
								}
								s += float64(av) * float64(bv)
							}
							var c float32
							switch len(cshape) {
							case 0:
								c = cs[0]
							case 1:
								c = cs[j%cshape[0]]
							default:
								c = cs[i*cshape[1]+j%cshape[1]]
							}
							want := ab[0]*s + ab[1]*float64(c)
							require.InDelta(t, want, float64(out.Float32s()[i*n+j]), 1e-5,
								"m %d C %v alpha, beta %v trans %v at (%d, %d)", m, cshape, ab, trans, i, j)
						}
					}
				}
			}
		}
	}
}
