package wgref

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// rowDots equals a plain loop for one and two rows, B's columns as rows in
// memory with a gap between them, sizes around the dot kernel's eight rows
// and the chunk of outputs, overwriting and accumulating.
func TestRowDotsMatchesPlainLoop(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	for _, m := range []int{1, 2} {
		for _, n := range []int{1, 7, 8, 9, 255, 256, 257, 1000} {
			for _, k := range []int{0, 1, 7, 8, 9, 33, 576} {
				for _, accumulate := range []bool{false, true} {
					lda, ldb, ldc := k+1, k+3, n+2
					a := matrix{data: randFloats(r, max(1, m*lda)), rs: lda, cs: 1}
					b := matrix{data: randFloats(r, max(1, n*ldb)), rs: 1, cs: ldb}
					c := randFloats(r, m*ldc)
					want := append([]float32(nil), c...)
					for i := range m {
						for j := range n {
							s := float32(0)
							for p := range k {
								s += a.data[i*lda+p] * b.data[j*ldb+p]
							}
							if accumulate {
								want[i*ldc+j] += s
							} else {
								want[i*ldc+j] = s
							}
						}
					}
					if !useRowDots(m, a, b) {
						t.Fatalf("m %d: rowDots not chosen", m)
					}
					rowDots(m, n, k, a, b, c, ldc, accumulate)
					requireClose(t, want, c, 1e-4, "%s", fmt.Sprintf("m %d n %d k %d accumulate %v", m, n, k, accumulate))
				}
			}
		}
	}
}

// Gemm of one and two rows with B transposed (a classifier) takes the row
// dots, with C and alpha and beta, and equals a plain loop.
func TestGemmFewRowsMatchesPlainLoop(t *testing.T) {
	r := rand.New(rand.NewSource(22))
	for _, m := range []int{1, 2} {
		const k, n = 37, 23
		a, b, bias := randomOf(r, wgrt.F32, m, k), randomOf(r, wgrt.F32, n, k), randomOf(r, wgrt.F32, n)
		out := wgrt.New(wgrt.F32, m, n)
		require.NoError(t, Call(&wgrt.Call{Kernel: "Gemm", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{a, b, bias},
			Attrs: []wgrt.Attr{floatAttr("alpha", 0.5), floatAttr("beta", 2), intAttr("transA", 0), intAttr("transB", 1)}}))
		as, bs, cs := a.Float32s(), b.Float32s(), bias.Float32s()
		want := make([]float32, m*n)
		for i := range m {
			for j := range n {
				s := float32(0)
				for p := range k {
					s += as[i*k+p] * bs[j*k+p]
				}
				want[i*n+j] = 0.5*s + 2*cs[j]
			}
		}
		requireClose(t, want, out.Float32s(), 1e-5, "m %d", m)
	}
}
