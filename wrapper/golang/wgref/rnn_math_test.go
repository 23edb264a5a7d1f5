package wgref

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The float32 exp, sigmoid and tanh against package math (float64, then
// rounded) over a dense sweep of [-100, 100] with small magnitudes
// included, and at the edges: overflow, underflow, infinities, NaN.
func TestGateMathMatchesMath(t *testing.T) {
	type fn struct {
		name string
		got  func(float32) float32
		want func(float64) float64
	}
	fns := []fn{
		{"exp", expF32, math.Exp},
		{"expm1", expm1F32, math.Expm1},
		{"sigmoid", sigmoidF32, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }},
		{"tanh", tanhF32, math.Tanh},
	}
	var xs []float32
	for x := -100.0; x <= 100; x += 0.0037 {
		xs = append(xs, float32(x))
	}
	for e := -40; e <= 2; e++ {
		v := float32(math.Pow(2, float64(e)) * 1.2345)
		xs = append(xs, v, -v)
	}
	xs = append(xs, 0, float32(math.Copysign(0, -1)), expMaxF32, expMinF32, 88.7, -87.3, 88.73, -87.34, 9, -9, 9.01)
	for _, f := range fns {
		worst := 0.0
		for _, x := range xs {
			want := f.want(float64(x))
			got := float64(f.got(x))
			if f.name == "exp" && want > math.MaxFloat32 {
				assert.True(t, math.IsInf(got, 1), "%s(%g) = %g, want +Inf", f.name, x, got)
				continue
			}
			if f.name == "expm1" && want > math.MaxFloat32 {
				continue
			}
			if math.Abs(want) < 0x1p-126 {
				// Subnormal results may flush to zero.
				assert.LessOrEqual(t, math.Abs(got-want), 0x1p-126, "%s(%g) = %g, want %g", f.name, x, got, want)
				continue
			}
			err := math.Abs(got-want) / math.Abs(want)
			worst = math.Max(worst, err)
			if !assert.LessOrEqual(t, err, 4e-7, "%s(%g) = %g, want %g", f.name, x, got, want) {
				break
			}
		}
		t.Logf("%s: worst relative error %.3g (float32's epsilon is %.3g)", f.name, worst, 0x1p-23)
	}
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	assert.Equal(t, inf, expF32(inf))
	assert.Zero(t, expF32(-inf))
	assert.Zero(t, expF32(-1000))
	assert.Equal(t, float32(1), sigmoidF32(inf))
	assert.Zero(t, sigmoidF32(-inf))
	assert.Equal(t, float32(1), tanhF32(inf))
	assert.Equal(t, float32(-1), tanhF32(-inf))
	for _, f := range fns {
		assert.True(t, math.IsNaN(float64(f.got(nan))), "%s(NaN)", f.name)
	}
}
