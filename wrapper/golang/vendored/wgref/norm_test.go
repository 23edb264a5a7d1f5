package wgref

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Softmax and LogSoftmax over the last axis (the float32 rows) give what a
// plain float64 loop gives, on rows of odd lengths, with an attention
// mask's -Inf and huge negative entries among them.
func TestSoftmaxRowsMatchNaiveLoop(t *testing.T) {
	r := rand.New(rand.NewSource(10))
	for _, n := range []int{1, 7, 24, 67, 1000} {
		x := randomF32(r, 8, 3, n)
		xs := x.Float32s()
		xs[0] = float32(math.Inf(-1))
		xs[len(xs)-1] = -3.4e38
		for _, log := range []bool{false, true} {
			kernel := "Softmax"
			if log {
				kernel = "LogSoftmax"
			}
			out := wgrt.New(wgrt.F32, 3, n)
			require.NoError(t, Call(&wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x}, Attrs: []wgrt.Attr{intAttr("axis", -1)}}))
			got := out.Float32s()
			for row := 0; row < 3; row++ {
				v := xs[row*n : row*n+n]
				peak := math.Inf(-1)
				for _, e := range v {
					peak = math.Max(peak, float64(e))
				}
				sum := 0.0
				for _, e := range v {
					sum += math.Exp(float64(e) - peak)
				}
				for i, e := range v {
					want := math.Exp(float64(e)-peak) / sum
					if log {
						want = float64(e) - peak - math.Log(sum)
					}
					g := float64(got[row*n+i])
					if math.IsInf(want, -1) {
						assert.True(t, math.IsInf(g, -1), "%s n %d row %d [%d]: %v, want -Inf", kernel, n, row, i, g)
						continue
					}
					assert.InDelta(t, want, g, 1e-6*math.Max(1, math.Abs(want)), "%s n %d row %d [%d]", kernel, n, row, i)
				}
			}
		}
	}
}

// LayerNormalization's float32 rows give what a plain float64 loop gives,
// also for rows far from zero (where E[x²]-E[x]² in float32 would cancel).
func TestLayerNormRowsMatchNaiveLoop(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, n := range []int{1, 7, 67, 256} {
		x, scale, bias := randomF32(r, 3, 2, 5, n), randomF32(r, 1, n), randomF32(r, 1, n)
		xs := x.Float32s()
		for i := range xs[:n] {
			xs[i] += 1000
		}
		out := wgrt.New(wgrt.F32, 2, 5, n)
		attrs := []wgrt.Attr{intAttr("axis", -1), {Name: "epsilon", Kind: wgrt.AttrFloat, Float: 1e-5}}
		require.NoError(t, Call(&wgrt.Call{Kernel: "LayerNormalization", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x, scale, bias}, Attrs: attrs}))
		got := out.Float32s()
		for row := 0; row < 10; row++ {
			v := xs[row*n : row*n+n]
			mean, vr := 0.0, 0.0
			for _, e := range v {
				mean += float64(e)
			}
			mean /= float64(n)
			for _, e := range v {
				vr += (float64(e) - mean) * (float64(e) - mean)
			}
			vr /= float64(n)
			for i, e := range v {
				want := (float64(e)-mean)/math.Sqrt(vr+1e-5)*float64(scale.Float32s()[i]) + float64(bias.Float32s()[i])
				assert.InDelta(t, want, float64(got[row*n+i]), 2e-5*math.Max(1, math.Abs(want)), "n %d row %d [%d]", n, row, i)
			}
		}
	}
}

// InstanceNormalization and BatchNormalization over contiguous float32
// rows give what a plain float64 loop gives.
func TestInstanceAndBatchNormRowsMatchNaiveLoop(t *testing.T) {
	r := rand.New(rand.NewSource(20))
	x := randomF32(r, 3, 2, 3, 5, 13)
	for i := range x.Float32s()[:65] {
		x.Float32s()[i] += 500 // one channel far from zero
	}
	scale, bias, mean, variance := randomF32(r, 1, 3), randomF32(r, 1, 3), randomF32(r, 1, 3), randomF32(r, 1, 3)
	for i := range variance.Float32s() {
		variance.Float32s()[i] += 1.5
	}
	eps := wgrt.Attr{Name: "epsilon", Kind: wgrt.AttrFloat, Float: 1e-5}
	inst, batch := wgrt.New(wgrt.F32, x.Shape...), wgrt.New(wgrt.F32, x.Shape...)
	require.NoError(t, Call(&wgrt.Call{Kernel: "InstanceNormalization", Outputs: []wgrt.Tensor{inst}, Inputs: []wgrt.Tensor{x, scale, bias}, Attrs: []wgrt.Attr{eps}}))
	require.NoError(t, Call(&wgrt.Call{Kernel: "BatchNormalization", Outputs: []wgrt.Tensor{batch}, Inputs: []wgrt.Tensor{x, scale, bias, mean, variance}, Attrs: []wgrt.Attr{eps}}))
	xs := x.Float32s()
	for b := 0; b < 2; b++ {
		for ch := 0; ch < 3; ch++ {
			row := xs[(b*3+ch)*65 : (b*3+ch)*65+65]
			mu, vr := 0.0, 0.0
			for _, v := range row {
				mu += float64(v)
			}
			mu /= 65
			for _, v := range row {
				vr += (float64(v) - mu) * (float64(v) - mu)
			}
			vr /= 65
			g, s := float64(scale.Float32s()[ch]), float64(bias.Float32s()[ch])
			bm, bv := float64(mean.Float32s()[ch]), float64(variance.Float32s()[ch])
			for i, v := range row {
				want := (float64(v)-mu)/math.Sqrt(vr+1e-5)*g + s
				assert.InDelta(t, want, float64(inst.Float32s()[(b*3+ch)*65+i]), 2e-5*math.Max(1, math.Abs(want)), "instance b %d ch %d [%d]", b, ch, i)
				want = (float64(v)-bm)/math.Sqrt(bv+1e-5)*g + s
				assert.InDelta(t, want, float64(batch.Float32s()[(b*3+ch)*65+i]), 1e-5*math.Max(1, math.Abs(want)), "batch b %d ch %d [%d]", b, ch, i)
			}
		}
	}
}

func TestSoftmaxAndLayerNormAllocateNothing(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	x, g, b, out := randomF32(r, 2, 2, 4, 24, 24), randomF32(r, 1, 24), randomF32(r, 1, 24), wgrt.New(wgrt.F32, 2, 4, 24, 24)
	for _, c := range []*wgrt.Call{
		{Kernel: "Softmax", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x}, Attrs: []wgrt.Attr{intAttr("axis", -1)}},
		{Kernel: "LayerNormalization", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x, g, b}, Attrs: []wgrt.Attr{intAttr("axis", -1)}},
	} {
		assert.Zero(t, testing.AllocsPerRun(20, func() { require.NoError(t, Call(c)) }), c.Kernel)
	}
}

// BatchNormalization's float32 path (one pass of scaleShiftRows over
// every image's channels) gives, bit for bit, the product rounded then
// the sum, on planes of 1 to 196 floats (the vector loop, its tail and
// both), NaNs and infinities included, with and without the scratch the
// planner gives it.
func TestBatchNormScaleShiftBits(t *testing.T) {
	r := rand.New(rand.NewSource(51))
	for _, inner := range []int{1, 7, 8, 9, 49, 196} {
		for _, withScratch := range []bool{false, true} {
			const n, ch = 2, 5
			x := wgrt.New(wgrt.F32, n, ch, inner)
			for i := range x.Float32s() {
				x.Float32s()[i] = r.Float32()*8 - 4
			}
			x.Float32s()[3] = float32(math.NaN())
			x.Float32s()[len(x.Float32s())-1] = float32(math.Inf(-1))
			params := make([]wgrt.Tensor, 4)
			for i := range params {
				params[i] = wgrt.New(wgrt.F32, ch)
				for j := range ch {
					params[i].Float32s()[j] = r.Float32() + 0.5
				}
			}
			out := wgrt.New(wgrt.F32, n, ch, inner)
			c := &wgrt.Call{Kernel: "BatchNormalization", Inputs: append([]wgrt.Tensor{x}, params...), Outputs: []wgrt.Tensor{out},
				Attrs: []wgrt.Attr{floatAttr("epsilon", 1e-5)}}
			if withScratch {
				c.Scratch = make([]byte, 8*batchNormFloats*ch)
			}
			require.NoError(t, Call(c))
			for b := range n {
				for i := range ch {
					scale, bias, mean, vr := float64(params[0].Float32s()[i]), float64(params[1].Float32s()[i]), float64(params[2].Float32s()[i]), float64(params[3].Float32s()[i])
					m := scale / math.Sqrt(vr+1e-5)
					mf, sf := float32(m), float32(bias-mean*m)
					for j := range inner {
						o := (b*ch+i)*inner + j
						want := float32(x.Float32s()[o]*mf) + sf
						require.Equal(t, math.Float32bits(want), math.Float32bits(out.Float32s()[o]), "inner %d scratch %v at %d", inner, withScratch, o)
					}
				}
			}
		}
	}
}
