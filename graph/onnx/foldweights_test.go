package onnx_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/onnx"
	"github.com/wrapgen/wrapgen/internal/fold"
	"github.com/wrapgen/wrapgen/internal/interp"
	"github.com/wrapgen/wrapgen/internal/refscratch"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/emit"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// qdqWeights are a Q/DQ convolution's weights, [m, c, 3, 3] with m*c*9
// beyond the 65536 elements shape folding stops at, so that only
// FoldWeights folds them.
type qdqWeights struct {
	m, c   int64
	w      []float32
	scales []float32
	zeros  []int8
}

func newQDQWeights() qdqWeights {
	q := qdqWeights{m: 64, c: 120}
	r := rand.New(rand.NewPCG(1, 2))
	q.w = make([]float32, q.m*q.c*9)
	for i := range q.w {
		q.w[i] = float32(r.NormFloat64() * 0.1)
	}
	for i := range q.m {
		q.scales = append(q.scales, float32(0.001+0.002*r.Float64()))
		q.zeros = append(q.zeros, int8(i%7-3))
	}
	return q
}

// dequantized is what the weight is after QuantizeLinear and
// DequantizeLinear, computed plainly: per output channel k,
// (clamp(round_half_even(w/s)+z, -128, 127) - z) * s in float32.
func (q qdqWeights) dequantized() []float32 {
	out := make([]float32, len(q.w))
	per := len(q.w) / int(q.m)
	for i, w := range q.w {
		k := i / per
		s, z := q.scales[k], float64(q.zeros[k])
		v := math.RoundToEven(float64(w/s)) + z
		v = math.Max(-128, math.Min(127, v))
		out[i] = float32(v-z) * s
	}
	return out
}

func importQDQ(t *testing.T, data []byte, foldWeights bool) (*graph.Graph, *onnx.Result) {
	g, res, err := onnx.Parse("qdq.onnx", data, onnx.Options{Fold: fold.Call, FoldWeights: foldWeights})
	require.NoError(t, err)
	return g, res
}

func kernels(g *graph.Graph) []string {
	var out []string
	for _, op := range g.Ops {
		out = append(out, op.Kernel)
	}
	return out
}

func weightNames(res *onnx.Result) []string {
	var out []string
	for _, w := range res.Weights {
		out = append(out, w.Name)
	}
	return out
}

func paramBytes(res *onnx.Result) int {
	n := 0
	for _, w := range res.Weights {
		n += len(w.Data)
	}
	return n
}

// runQDQ plans g for the reference kernels and runs it on x.
func runQDQ(t *testing.T, g *graph.Graph, res *onnx.Result, x wgrt.Tensor) []byte {
	require.NoError(t, g.AddScratch(refscratch.Rule))
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	m := interp.New(p)
	defer m.Close()
	params := map[string]wgrt.Tensor{}
	for _, w := range res.Weights {
		shape := make([]int, len(w.Shape))
		for i, d := range w.Shape {
			shape[i] = int(d)
		}
		params[w.Name] = wgrt.FromBytes(wgrt.DType(emit.DTypeCode(w.DType)), w.Data, shape...)
	}
	require.NoError(t, m.BindParams(params))
	outs, err := m.Run(wgref.Call, nil, []wgrt.Tensor{x})
	require.NoError(t, err)
	require.NotEmpty(t, outs)
	return append([]byte(nil), outs[0].Data...)
}

func randomInput(c int64, seed uint64) wgrt.Tensor { return randomInputSized(c, 6, 6, seed) }

func randomInputSized(c int64, h, w int, seed uint64) wgrt.Tensor {
	x := wgrt.New(wgrt.F32, 1, int(c), h, w)
	r := rand.New(rand.NewPCG(seed, 4))
	for i := 0; i < len(x.Data); i += 4 {
		binary.LittleEndian.PutUint32(x.Data[i:], math.Float32bits(float32(r.Float64()*4-2)))
	}
	return x
}

func floats(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// A Q/DQ model's weight quantization runs once at import: the weight's
// QuantizeLinear and DequantizeLinear are gone, their output is the one
// param in place of the weight, its scales and zero points (no more
// bytes; the activation's scale stays a param), and it holds the dequantized weight; the activation's pair,
// which reads the input, stays. The output is bit for bit the one of the
// graph that quantizes on every call.
func TestFoldWeightsQDQ(t *testing.T) {
	q := newQDQWeights()
	data := onnx.QDQConvModel(q.m, q.c, q.w, q.scales, q.zeros, false)

	gFolded, folded := importQDQ(t, data, true)
	assert.Equal(t, []string{"QuantizeLinear", "DequantizeLinear", "Conv"}, kernels(gFolded))
	require.Equal(t, []string{"x_scale", "wdq"}, weightNames(folded))
	w := folded.Weights[1]
	assert.Equal(t, graph.DType("f32"), w.DType)
	assert.Equal(t, []int64{q.m, q.c, 3, 3}, w.Shape)
	want := q.dequantized()
	require.Len(t, w.Data, 4*len(want))
	for i, f := range want {
		got := math.Float32frombits(binary.LittleEndian.Uint32(w.Data[4*i:]))
		if !assert.Equal(t, f, got, "element %d", i) {
			break
		}
	}

	gKept, kept := importQDQ(t, data, false)
	assert.Equal(t, []string{"QuantizeLinear", "DequantizeLinear", "QuantizeLinear", "DequantizeLinear", "Conv"}, kernels(gKept))
	assert.ElementsMatch(t, []string{"x_scale", "w", "w_scale", "w_zero"}, weightNames(kept))
	assert.LessOrEqual(t, paramBytes(folded), paramBytes(kept))

	x := randomInput(q.c, 3)
	assert.Equal(t, runQDQ(t, gKept, kept, x), runQDQ(t, gFolded, folded, x))
}

// An initializer that is also a graph input is a default the caller may
// override: the nodes that read it are not folded into a param, as ONNX
// Runtime does not fold them.
func TestFoldWeightsLeavesOverridableInitializers(t *testing.T) {
	q := newQDQWeights()
	g, res := importQDQ(t, onnx.QDQConvModel(q.m, q.c, q.w, q.scales, q.zeros, true), true)
	assert.Equal(t, []string{"QuantizeLinear", "DequantizeLinear", "QuantizeLinear", "DequantizeLinear", "Conv"}, kernels(g))
	assert.Contains(t, weightNames(res), "w")
	assert.NotContains(t, weightNames(res), "wdq")
}

func convBN(convIsOutput bool) (data []byte, c int64) {
	const m = 16
	c = 8
	r := rand.New(rand.NewPCG(5, 6))
	vec := func(n int64, lo, hi float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(lo + (hi-lo)*r.Float64())
		}
		return v
	}
	return onnx.ConvBNModel(m, c, vec(m*c*9, -0.3, 0.3), vec(m, -1, 1), vec(m, 0.5, 2), vec(m, -1, 1), vec(m, -0.5, 0.5), vec(m, 0.1, 3), convIsOutput), c
}

// An inference BatchNormalization after a Conv with constant weights goes
// into the Conv's weight and bias (as ONNX Runtime's ConvBNFusion): its
// statistics and the Conv's own weights are no longer params, and the
// output is the one of normalizing after the convolution (the reference
// kernels, run on the unfolded graph) within float32 rounding.
func TestFoldWeightsBatchNormIntoConv(t *testing.T) {
	data, c := convBN(false)
	gFolded, folded := importQDQ(t, data, true)
	assert.Equal(t, []string{"Conv", "Relu"}, kernels(gFolded))
	assert.Equal(t, []string{"bn.weight", "bn.bias"}, weightNames(folded))
	gKept, kept := importQDQ(t, data, false)
	assert.Equal(t, []string{"Conv", "BatchNormalization", "Relu"}, kernels(gKept))
	assert.Equal(t, paramBytes(folded)+4*4*16, paramBytes(kept), "the statistics are gone")

	x := randomInput(c, 7)
	want, got := floats(runQDQ(t, gKept, kept, x)), floats(runQDQ(t, gFolded, folded, x))
	require.Len(t, got, len(want))
	positive := 0
	for i := range want {
		assert.InDelta(t, want[i], got[i], 1e-5*max(1, math.Abs(float64(want[i]))), "element %d", i)
		if want[i] > 0 {
			positive++
		}
	}
	assert.Positive(t, positive, "the Relu passes some values")
}

// A Conv whose output something else reads too (here the graph returns
// it) keeps its BatchNormalization.
func TestFoldWeightsKeepsBatchNormOfSharedConv(t *testing.T) {
	data, _ := convBN(true)
	g, _ := importQDQ(t, data, true)
	assert.Equal(t, []string{"Conv", "BatchNormalization", "Relu"}, kernels(g))
}

// Folding weights makes no param larger than what the node reads: a
// broadcast of two small constants to a large tensor (beyond the 2^20
// elements the shape rules compute themselves) stays a kernel call.
func TestFoldWeightsDoesNotBroadcastConstants(t *testing.T) {
	g, res := importQDQ(t, onnx.BroadcastAddModel(1100), true)
	assert.Equal(t, []string{"Add", "Add"}, kernels(g))
	assert.Equal(t, []string{"a", "b"}, weightNames(res))
}
