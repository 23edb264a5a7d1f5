package wgref

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
)

// ulps is how many float32 spacings at want got lies from it (0 when both
// are NaN or the same infinity; +Inf when only one is NaN).
func ulps(got float32, want float64) float64 {
	if math.IsNaN(want) || math.IsNaN(float64(got)) {
		if math.IsNaN(want) && math.IsNaN(float64(got)) {
			return 0
		}
		return math.Inf(1)
	}
	w := float32(want) // the correctly rounded value, or ±Inf past the range
	if math.IsInf(float64(w), 0) || math.IsInf(float64(got), 0) {
		if got == w {
			return 0
		}
		return math.Inf(1)
	}
	_, e := math.Frexp(math.Abs(want))
	spacing := math.Ldexp(1, max(e-24, -149))
	return math.Abs(float64(got)-want) / spacing
}

// sweepPoints are dense points over [lo, hi], the edges of float32 and
// random bit patterns (denormals, huge values, NaNs among them).
func sweepPoints(lo, hi float64, dense int) []float32 {
	xs := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		1.17549435e-38, -1.17549435e-38, 1e-30, -1e-30, 1e30, -1e30, 200, -200}
	for i := 0; i <= dense; i++ {
		xs = append(xs, float32(lo+(hi-lo)*float64(i)/float64(dense)))
	}
	r := rand.New(rand.NewSource(7))
	for i := 0; i < dense/4; i++ {
		xs = append(xs, math.Float32frombits(r.Uint32()))
	}
	return xs
}

// Each float32 function is within a few ulps of float64's exact one over
// a dense sweep and at the edges. GELU's negative tail is x/2·(1+erf),
// (and the tanh form x/2·(1+tanh)), which cancel as ONNX Runtime's and PyTorch's float32 forms do: there
// its error is absolute, erf's few ulps near -1 times x/2 (under 1.5e-6).
func TestFloat32FunctionsMatchFloat64(t *testing.T) {
	sigmoid := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	geluErf := func(x float64) float64 { return 0.5 * x * math.Erfc(-x/math.Sqrt2) }
	cases := []struct {
		name    string
		kind    unaryKind
		f       func(float32) float32
		ref     func(float64) float64
		lo, hi  float64
		maxULPs float64
		abs     float64 // an absolute error also accepted in the negative tail (x < -1)
	}{
		{"exp", unaryExp, exp32, math.Exp, -110, 95, 2, 0},
		{"sigmoid", unarySigmoid, sigmoid32, sigmoid, -110, 110, 3, 0},
		{"tanh", unaryTanh, tanh32, math.Tanh, -12, 12, 3, 0},
		{"erf", unaryErf, erf32, math.Erf, -6, 6, 8, 0},
		{"gelu", unaryGeluErf, geluErf32, geluErf, -12, 12, 8, 1.5e-6},
		{"gelu tanh", unaryGeluTanh, geluTanh32, geluTanh, -12, 12, 4, 1e-6},
	}
	for _, c := range cases {
		xs := sweepPoints(c.lo, c.hi, 400000)
		// The scalar function, and the row kernel (the assembly where
		// there is one) over the same points.
		rows := make([]float32, len(xs))
		unaryF32{kind: c.kind}.row(rows, xs)
		for form, f := range []func(i int) float32{func(i int) float32 { return c.f(xs[i]) }, func(i int) float32 { return rows[i] }} {
			worst, at := 0.0, float32(0)
			for i, x := range xs {
				want := c.ref(float64(x))
				got := f(i)
				if x < -1 && math.Abs(float64(got)-want) <= c.abs {
					continue
				}
				if u := ulps(got, want); u > worst {
					worst, at = u, x
				}
			}
			assert.LessOrEqual(t, worst, c.maxULPs, "%s (form %d): %.2f ulps at %g", c.name, form, worst, at)
			t.Logf("%s (form %d): worst %.2f ulps (at %g)", c.name, form, worst, at)
		}
	}
}

func TestExp32Edges(t *testing.T) {
	assert.Equal(t, float32(1), exp32(0))
	assert.True(t, math.IsInf(float64(exp32(89)), 1))
	assert.True(t, math.IsInf(float64(exp32(float32(math.Inf(1)))), 1))
	assert.Equal(t, float32(0), exp32(float32(math.Inf(-1))))
	assert.Equal(t, float32(0), exp32(-200))
	assert.True(t, math.IsNaN(float64(exp32(float32(math.NaN())))))
	// Denormal results, not flushed to zero.
	assert.InDelta(t, math.Exp(-100), float64(exp32(-100)), 2e-45)
	assert.Greater(t, exp32(-100), float32(0))
}
