package wgref

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// TestFusedGemmSmallAlpha: a fused Gemm with a small alpha and a large
// residual is the residual plus the small product, not inf (at beeff6f
// each block started as sum / alpha), with the sum apart and in the
// output's own memory, C too.
func TestFusedGemmSmallAlpha(t *testing.T) {
	r := rand.New(rand.NewSource(54))
	const m, k, n = 7, 20, 19
	a, b := randomOf(r, wgrt.F32, m, k), randomOf(r, wgrt.F32, k, n)
	cin := randomOf(r, wgrt.F32, n)
	for _, alpha := range []float64{1e-30, 0.5, -3} {
		attrs := append([]wgrt.Attr{floatAttr("alpha", alpha), floatAttr("beta", 2)}, actAttrs("Relu", 0, 0)...)
		sum := randomOf(r, wgrt.F32, m, n)
		for i, v := range elems[float32](sum) {
			elems[float32](sum)[i] = v * 1e10
		}
		// The separate kernels, in float64: relu(alpha·A·B + 2·C + sum).
		want := make([]float64, m*n)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				s := 0.0
				for p := 0; p < k; p++ {
					s += loadF(a, i*k+p) * loadF(b, p*n+j)
				}
				want[i*n+j] = math.Max(0, alpha*s+2*loadF(cin, j)+loadF(sum, i*n+j))
			}
		}
		check := func(got wgrt.Tensor, what string) {
			for i, w := range want {
				g := loadF(got, i)
				require.False(t, math.IsInf(g, 0) || math.IsNaN(g), "alpha %g %s at %d: %v", alpha, what, i, g)
				require.InDelta(t, w, g, 1e-5*math.Max(1, math.Abs(w)), "alpha %g %s at %d", alpha, what, i)
			}
		}
		out := wgrt.New(wgrt.F32, m, n)
		run(t, "FusedGemm", out, []wgrt.Tensor{a, b, cin, sum}, attrs...)
		check(out, "sum apart")
		inPlace := sum
		inPlace.Data = append([]byte(nil), sum.Data...)
		run(t, "FusedGemm", inPlace, []wgrt.Tensor{a, b, cin, inPlace}, attrs...)
		check(inPlace, "output in the sum's memory")
	}
	// C exactly the output's shape, in its memory, and no sum.
	c2 := randomOf(r, wgrt.F32, m, n)
	want := wgrt.New(wgrt.F32, m, n)
	run(t, "Gemm", want, []wgrt.Tensor{a, b, c2}, floatAttr("alpha", 1e-30), floatAttr("beta", 1))
	out := c2
	out.Data = append([]byte(nil), c2.Data...)
	run(t, "FusedGemm", out, []wgrt.Tensor{a, b, out}, append([]wgrt.Attr{floatAttr("alpha", 1e-30), floatAttr("beta", 1)}, actAttrs("", 0, 0)...)...)
	require.Equal(t, elems[float32](want), elems[float32](out))
}
