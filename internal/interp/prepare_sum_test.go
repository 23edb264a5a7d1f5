package interp

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/refscratch"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// cmd/wrapgen/testdata/cppref/convmatmul.json's convs as `wrapgen run`
// fuses them: a grouped conv of as many outputs as inputs a group (which
// the mixed blocks would take) and a depthwise one, each fused with a sum
// whose shape depends on the batch, so that Prepare sees no shape for it.
const preparedSumGraph = `{
  "name": "prepared_sum",
  "symbols": {"batch": {"hint": 3, "min": 1, "max": 16}},
  "tensors": {
    "x": {"dtype": "f32", "shape": ["batch", 8, 12, 12]},
    "w4": {"dtype": "f32", "shape": [8, 4, 3, 3]}, "y1": {"dtype": "f32", "shape": ["batch", 8, 12, 12]},
    "w5": {"dtype": "f32", "shape": [8, 1, 3, 3]}, "y2": {"dtype": "f32", "shape": ["batch", 8, 12, 12]}
  },
  "inputs": ["x"], "params": ["w4", "w5"], "outputs": ["y2"],
  "ops": [
    {"kernel": "FusedConv", "inputs": ["x", "w4", "x"], "outputs": ["y1"], "attrs": {"kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1], "group": 2, "activation": "Relu", "activation_alpha": 0.0, "activation_beta": 0.0}},
    {"kernel": "FusedConv", "inputs": ["y1", "w5", "x"], "outputs": ["y2"], "attrs": {"kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1], "group": 8, "activation": "Relu", "activation_alpha": 0.0, "activation_beta": 0.0}}
  ]
}`

// A grouped or depthwise FusedConv with a sum at a symbolic batch, its
// filters prepared, runs in the scratch RuleWithPackedWeights plans (it
// failed with "scratch of 23040 bytes, the kernel needs 24768": Prepare,
// seeing no sum, laid the filters out for the mixed blocks, the rule
// counted them packed for the GEMM the sum takes), gives the outputs of
// filters packed per call, and Prepare allocates PackedBytes.
func TestPreparedGroupedConvWithSum(t *testing.T) {
	planned := func(rule graph.ScratchRule) (*graph.Graph, *plan.Plan) {
		g, err := graph.Parse("prepared_sum.json", []byte(preparedSumGraph))
		require.NoError(t, err)
		require.NoError(t, g.AddScratch(rule))
		p, err := plan.Make(g, plan.Options{})
		require.NoError(t, err)
		return g, p
	}
	g, p := planned(refscratch.Rule)
	_, pp := planned(refscratch.RuleWithPackedWeights)
	r := rand.New(rand.NewSource(7))
	params := map[string]wgrt.Tensor{}
	for _, x := range g.Params {
		shape := make([]int, len(x.Shape))
		for i, d := range x.Shape {
			v, _ := d.IsConst()
			shape[i] = int(v)
		}
		t := wgrt.New(wgrt.F32, shape...)
		for i := range t.Float32s() {
			t.Float32s()[i] = r.Float32()*2 - 1
		}
		params[x.Name] = t
	}
	perCall, prepared := New(p), New(pp)
	defer perCall.Close()
	defer prepared.Close()
	require.NoError(t, perCall.BindParams(params))
	require.NoError(t, prepared.BindParams(params))
	require.NoError(t, prepared.PrepareWeights(wgref.Prepare))
	for _, n := range []int{1, 3, 16} {
		x := wgrt.New(wgrt.F32, n, 8, 12, 12)
		for i := range x.Float32s() {
			x.Float32s()[i] = r.Float32()*2 - 1
		}
		a, err := perCall.Run(wgref.Call, nil, []wgrt.Tensor{x})
		require.NoError(t, err, "batch %d", n)
		want := slices.Clone(a[0].Float32s())
		b, err := prepared.Run(wgref.Call, nil, []wgrt.Tensor{x})
		require.NoError(t, err, "batch %d, filters prepared", n)
		require.True(t, slices.Equal(want, b[0].Float32s()), "batch %d: prepared filters change bits", n)
	}
	require.Equal(t, refscratch.PackedBytes(g), int64(prepared.PreparedBytes()))
}
