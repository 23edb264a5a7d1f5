package wgref

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The draws are checked by their statistics over n values, with bounds of
// about six standard deviations: a sound generator fails them about never.
const randomN = 100000

func floatAttr(name string, v float64) wgrt.Attr {
	return wgrt.Attr{Name: name, Kind: wgrt.AttrFloat, Float: v}
}

// values are t's elements as float64s.
func values(t wgrt.Tensor) []float64 {
	out := make([]float64, t.NumElements())
	for i := range out {
		out[i] = t.Float64At(i)
	}
	return out
}

func meanStd(xs []float64) (mean, std float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(xs)))
}

func TestRandomUniformIsUniformInRange(t *testing.T) {
	for _, d := range []wgrt.DType{wgrt.F16, wgrt.F32, wgrt.F64} {
		out := wgrt.New(d, randomN/100, 100)
		c := &wgrt.Call{Kernel: "RandomUniformLike", Outputs: []wgrt.Tensor{out}, Attrs: []wgrt.Attr{floatAttr("low", -2), floatAttr("high", 3)}}
		require.NoError(t, Call(c))
		xs := values(out)
		bins := make([]int, 5)
		for _, x := range xs {
			require.True(t, x >= -2 && x < 3, "%s value %g outside [-2, 3)", d, x)
			bins[int(x+2)]++
		}
		for k, n := range bins {
			assert.InDelta(t, 0.2, float64(n)/randomN, 0.01, "%s: share of [%d, %d)", d, k-2, k-1)
		}
		mean, std := meanStd(xs)
		assert.InDelta(t, 0.5, mean, 0.03, "%s mean", d)
		assert.InDelta(t, 5/math.Sqrt(12), std, 0.03, "%s standard deviation", d)
	}
}

// Just below high, a draw rounds up to high in f16 about once in 4096: it
// is drawn again, so that the range stays half-open.
func TestRandomUniformExcludesHighAfterRounding(t *testing.T) {
	out := wgrt.New(wgrt.F16, randomN)
	c := &wgrt.Call{Kernel: "RandomUniform", Outputs: []wgrt.Tensor{out}, Attrs: []wgrt.Attr{floatAttr("low", 0), floatAttr("high", 1)}}
	for range 3 {
		require.NoError(t, Call(c))
		for _, x := range values(out) {
			require.Less(t, x, 1.0)
		}
	}
}

func TestRandomUniformRefusesLowAboveHigh(t *testing.T) {
	c := &wgrt.Call{Kernel: "RandomUniform", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 3)}, Attrs: []wgrt.Attr{floatAttr("low", 1), floatAttr("high", 0)}}
	assert.ErrorContains(t, Call(c), "low 1 is above high 0")
	c.Attrs[0].Float = 0
	require.NoError(t, Call(c))
	assert.Equal(t, []float64{0, 0, 0}, values(c.Outputs[0]), "low == high gives low")
}

func TestRandomNormalHasMeanAndScale(t *testing.T) {
	for _, d := range []wgrt.DType{wgrt.F32, wgrt.F64} {
		out := wgrt.New(d, randomN)
		c := &wgrt.Call{Kernel: "RandomNormal", Outputs: []wgrt.Tensor{out}, Attrs: []wgrt.Attr{floatAttr("mean", 1.5), floatAttr("scale", 2)}}
		require.NoError(t, Call(c))
		xs := values(out)
		mean, std := meanStd(xs)
		assert.InDelta(t, 1.5, mean, 0.04, "%s mean", d)
		assert.InDelta(t, 2, std, 0.03, "%s standard deviation", d)
		within := 0
		for _, x := range xs {
			if math.Abs(x-1.5) < 2 {
				within++
			}
		}
		assert.InDelta(t, 0.6827, float64(within)/randomN, 0.01, "%s share within one standard deviation", d)
	}
}

func TestBernoulliDrawsOnesWithTheInputsProbability(t *testing.T) {
	p := make([]float64, randomN)
	for i := range p {
		p[i] = 0.3
	}
	p[0], p[1] = 0, 1 // never and always
	for _, d := range []wgrt.DType{wgrt.F32, wgrt.F64, wgrt.I32, wgrt.Bool} {
		out := wgrt.New(d, randomN)
		c := &wgrt.Call{Kernel: "Bernoulli", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{wgrt.View(p, randomN)}}
		require.NoError(t, Call(c))
		xs := values(out)
		ones := 0
		for _, x := range xs {
			require.True(t, x == 0 || x == 1, "%s value %g is neither 0 nor 1", d, x)
			ones += int(x)
		}
		assert.Equal(t, 0.0, xs[0], "%s with p = 0", d)
		assert.Equal(t, 1.0, xs[1], "%s with p = 1", d)
		assert.InDelta(t, 0.3, float64(ones)/randomN, 0.01, "%s share of ones", d)
	}
}

// A seed makes a call repeat its draws (the importer folds such a node);
// without, each call draws anew.
func TestRandomSeed(t *testing.T) {
	half := make([]float64, 64)
	for i := range half {
		half[i] = 0.5
	}
	draw := func(kernel string, attrs ...wgrt.Attr) []float64 {
		c := &wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{wgrt.New(wgrt.F64, 64)}, Attrs: attrs}
		if kernel == "Bernoulli" {
			c.Inputs = []wgrt.Tensor{wgrt.View(half, 64)}
		}
		require.NoError(t, Call(c))
		return values(c.Outputs[0])
	}
	for _, kernel := range []string{"RandomUniform", "RandomNormal", "Bernoulli"} {
		var params []wgrt.Attr
		switch kernel {
		case "RandomUniform":
			params = []wgrt.Attr{floatAttr("low", 0), floatAttr("high", 1)}
		case "RandomNormal":
			params = []wgrt.Attr{floatAttr("mean", 0), floatAttr("scale", 1)}
		}
		seeded := append(params[:len(params):len(params)], floatAttr("seed", 3))
		other := append(params[:len(params):len(params)], floatAttr("seed", 4))
		assert.Equal(t, draw(kernel, seeded...), draw(kernel, seeded...), "%s with a seed", kernel)
		assert.NotEqual(t, draw(kernel, seeded...), draw(kernel, other...), "%s with another seed", kernel)
		assert.NotEqual(t, draw(kernel, params...), draw(kernel, params...), "%s without a seed", kernel)
	}
}

// The plan gives kernels their memory: a call allocates nothing.
func TestRandomKernelsDoNotAllocate(t *testing.T) {
	p := wgrt.View([]float64{0.1, 0.5, 0.9}, 3)
	calls := []*wgrt.Call{
		{Kernel: "RandomUniform", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 3)}, Attrs: []wgrt.Attr{floatAttr("low", 0), floatAttr("high", 1)}},
		{Kernel: "RandomNormalLike", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F16, 3)}, Attrs: []wgrt.Attr{floatAttr("mean", 0), floatAttr("scale", 1), floatAttr("seed", 1)}},
		{Kernel: "Bernoulli", Outputs: []wgrt.Tensor{wgrt.New(wgrt.Bool, 3)}, Inputs: []wgrt.Tensor{p}},
	}
	for _, c := range calls {
		assert.Zero(t, testing.AllocsPerRun(10, func() { require.NoError(t, Call(c)) }), c.Kernel)
	}
}
