package refscratch

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
)

// Products whose weights are params, in every way PackedBytes
// distinguishes: convs packed (plain, grouped with many outputs per
// group, 1x1 strided, pointwise, fused with a sum), laid out for the
// mixed blocks (two channels a group) and not (depthwise, grouped with
// few outputs, pointwise with few), a Gemm's B transposed,
// row-major of a width not whole panels and of whole panels, behind a
// transposed A, of constant few rows; MatMul Bs with a batch of 1, of a
// 3-D A, and of a constant A of few rows; a one-direction LSTM's W (its
// input projection's B, Wᵀ) and a bidirectional GRU's (one per direction).
const packedGraph = `{
  "name": "packed",
  "symbols": {"n": {"hint": 2, "min": 1, "max": 64}},
  "tensors": {
    "x": {"dtype": "f32", "shape": ["n", 8, 10, 10]},
    "k1": {"dtype": "f32", "shape": [13, 8, 3, 3]}, "c1": {"dtype": "f32", "shape": ["n", 13, 10, 10]},
    "k2": {"dtype": "f32", "shape": [80, 4, 3, 3]}, "c2": {"dtype": "f32", "shape": ["n", 80, 8, 8]},
    "k3": {"dtype": "f32", "shape": [8, 1, 3, 3]}, "c3": {"dtype": "f32", "shape": ["n", 8, 10, 10]},
    "k4": {"dtype": "f32", "shape": [16, 4, 3, 3]}, "c4": {"dtype": "f32", "shape": ["n", 16, 10, 10]},
    "k5": {"dtype": "f32", "shape": [3, 8, 1, 1]}, "c5": {"dtype": "f32", "shape": ["n", 3, 5, 5]},
    "k6": {"dtype": "f32", "shape": [20, 8, 1, 1]}, "c6": {"dtype": "f32", "shape": ["n", 20, 10, 10]},
    "k7": {"dtype": "f32", "shape": [3, 8, 1, 1]}, "c7": {"dtype": "f32", "shape": ["n", 3, 10, 10]},
    "k8": {"dtype": "f32", "shape": [8, 8, 3, 3]}, "c8": {"dtype": "f32", "shape": ["n", 8, 10, 10]},
    "k9": {"dtype": "f32", "shape": [8, 2, 3, 3]}, "c9": {"dtype": "f32", "shape": ["n", 8, 10, 10]},
    "a": {"dtype": "f32", "shape": ["n", 300]}, "at": {"dtype": "f32", "shape": [300, "n"]}, "a6": {"dtype": "f32", "shape": [6, 300]}, "a2": {"dtype": "f32", "shape": [2, 300]},
    "w1": {"dtype": "f32", "shape": [45, 300]}, "g1": {"dtype": "f32", "shape": ["n", 45]},
    "w2": {"dtype": "f32", "shape": [300, 45]}, "g2": {"dtype": "f32", "shape": ["n", 45]},
    "w3": {"dtype": "f32", "shape": [300, 64]}, "g3": {"dtype": "f32", "shape": ["n", 64]},
    "w4": {"dtype": "f32", "shape": [300, 45]}, "g4": {"dtype": "f32", "shape": ["n", 45]},
    "w5": {"dtype": "f32", "shape": [45, 300]}, "g5": {"dtype": "f32", "shape": [6, 45]}, "g6": {"dtype": "f32", "shape": [2, 45]},
    "b1": {"dtype": "f32", "shape": [1, 300, 50]}, "a3": {"dtype": "f32", "shape": [2, "n", 300]}, "m1": {"dtype": "f32", "shape": [2, "n", 50]},
    "m2": {"dtype": "f32", "shape": [2, 50]},
    "sx": {"dtype": "f32", "shape": [6, "n", 7]},
    "lw": {"dtype": "f32", "shape": [1, 20, 7]}, "lr": {"dtype": "f32", "shape": [1, 20, 5]}, "ly": {"dtype": "f32", "shape": [6, 1, "n", 5]},
    "gw": {"dtype": "f32", "shape": [2, 18, 7]}, "gr": {"dtype": "f32", "shape": [2, 18, 6]}, "gy": {"dtype": "f32", "shape": [6, 2, "n", 6]}
  },
  "inputs": ["x", "a", "at", "a6", "a2", "a3", "sx"],
  "params": ["k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "w1", "w2", "w3", "w4", "w5", "b1", "lw", "lr", "gw", "gr"],
  "outputs": ["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "g1", "g2", "g3", "g4", "g5", "g6", "m1", "m2", "ly", "gy"],
  "ops": [
    {"kernel": "Conv", "inputs": ["x", "k1"], "outputs": ["c1"], "attrs": {"group": 1, "kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1]}},
    {"kernel": "Conv", "inputs": ["x", "k2"], "outputs": ["c2"], "attrs": {"group": 2, "kernel_shape": [3, 3], "strides": [1, 1], "pads": [0, 0, 0, 0], "dilations": [1, 1]}},
    {"kernel": "Conv", "inputs": ["x", "k3"], "outputs": ["c3"], "attrs": {"group": 8, "kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1]}},
    {"kernel": "Conv", "inputs": ["x", "k4"], "outputs": ["c4"], "attrs": {"group": 2, "kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1]}},
    {"kernel": "Conv", "inputs": ["x", "k5"], "outputs": ["c5"], "attrs": {"group": 1, "kernel_shape": [1, 1], "strides": [2, 2], "pads": [0, 0, 0, 0], "dilations": [1, 1]}},
    {"kernel": "Conv", "inputs": ["x", "k6"], "outputs": ["c6"], "attrs": {"group": 1, "kernel_shape": [1, 1], "strides": [1, 1], "pads": [0, 0, 0, 0], "dilations": [1, 1]}},
    {"kernel": "Conv", "inputs": ["x", "k7"], "outputs": ["c7"], "attrs": {"group": 1, "kernel_shape": [1, 1], "strides": [1, 1], "pads": [0, 0, 0, 0], "dilations": [1, 1]}},
    {"kernel": "FusedConv", "inputs": ["x", "k8", "x"], "outputs": ["c8"], "attrs": {"group": 1, "kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1], "activation": "Relu", "activation_alpha": 0.0, "activation_beta": 0.0}},
    {"kernel": "Conv", "inputs": ["x", "k9"], "outputs": ["c9"], "attrs": {"group": 4, "kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1]}},
    {"kernel": "Gemm", "inputs": ["a", "w1"], "outputs": ["g1"], "attrs": {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 1}},
    {"kernel": "Gemm", "inputs": ["a", "w2"], "outputs": ["g2"], "attrs": {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 0}},
    {"kernel": "Gemm", "inputs": ["a", "w3"], "outputs": ["g3"], "attrs": {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 0}},
    {"kernel": "Gemm", "inputs": ["at", "w4"], "outputs": ["g4"], "attrs": {"alpha": 1.0, "beta": 1.0, "transA": 1, "transB": 0}},
    {"kernel": "Gemm", "inputs": ["a6", "w5"], "outputs": ["g5"], "attrs": {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 1}},
    {"kernel": "Gemm", "inputs": ["a2", "w5"], "outputs": ["g6"], "attrs": {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 1}},
    {"kernel": "MatMul", "inputs": ["a3", "b1"], "outputs": ["m1"]},
    {"kernel": "MatMul", "inputs": ["a2", "b1"], "outputs": ["m2"]},
    {"kernel": "LSTM", "inputs": ["sx", "lw", "lr"], "outputs": ["ly"],
     "attrs": {"direction": "forward", "hidden_size": 5, "layout": 0, "inputs": [1, 1, 1, 0, 0, 0, 0, 0], "outputs": [1, 0, 0],
       "activations": "Sigmoid,Tanh,Tanh", "activation_alpha": "", "activation_beta": "", "clip": 0.0, "input_forget": 0}},
    {"kernel": "GRU", "inputs": ["sx", "gw", "gr"], "outputs": ["gy"],
     "attrs": {"direction": "bidirectional", "hidden_size": 6, "layout": 0, "inputs": [1, 1, 1, 0, 0, 0], "outputs": [1, 0, 0],
       "activations": "Sigmoid,Tanh,Sigmoid,Tanh", "activation_alpha": "", "activation_beta": "", "clip": 0.0, "linear_before_reset": 0}}
  ]
}`

// PackedBytes is what wgref.Prepare allocates for each op, given the
// weight's data and the other inputs' shapes only where constant (as the
// runner gives them); and with the weight prepared, each op's
// RuleWithPackedWeights is exactly the scratch its kernel asks for, at
// several values of the symbol.
func TestPackedBytesAreWhatPrepareAllocates(t *testing.T) {
	g, err := graph.Parse("packed.json", []byte(packedGraph))
	require.NoError(t, err)
	withPacked, err := graph.Parse("packed.json", []byte(packedGraph))
	require.NoError(t, err)
	require.NoError(t, withPacked.AddScratch(RuleWithPackedWeights))
	// By hand (floats; 12 rows by 32 columns): k1 13 rows rounded up to
	// 24 by 72; k2 2 groups of 40 rows (48) by 36; k3 and k4 tap rows,
	// none; k5 (1x1 strided) 12 by 8; k6 24 by 8; k7 pointwise of 3 rows,
	// none; k8 fused with a sum, 12 by 72; k9 laid out for one block of
	// eight channels, 9 taps by 8 inputs by 8 outputs; w1 transposed, 64 columns by
	// 300; w2 its last panel, 32 by 300; w3 whole panels, none; w4 32 by
	// 300; w5 at 6 rows 64 by 300, at 2 rows none; b1 32 by 300 for a3,
	// none for 2 rows; lw 20 columns (32) by 7; gw two directions of 18
	// columns (32) by 7.
	want := []int{24 * 72, 2 * 48 * 36, 0, 0, 12 * 8, 24 * 8, 0, 12 * 72, 9 * 64, 64 * 300, 32 * 300, 0, 32 * 300, 64 * 300, 0, 32 * 300, 0, 32 * 7, 2 * 32 * 7}
	total := 0
	for _, w := range want {
		total += 4 * w
	}
	require.Equal(t, int64(total), PackedBytes(g))
	i := 0
	graph.Walk(withPacked.Ops, func(op *graph.Op, _ []*graph.Op) {
		require.Equal(t, int64(4*want[i]), packedBytes(op), "%s", op.Label())
		for _, n := range []int64{1, 3, 5, 40} {
			env := expr.Env{"n": n}
			at := fmt.Sprintf("%s at n=%d", op.Label(), n)
			call := callOf(t, op, env)
			prep := *call
			prep.Inputs = append(prep.Inputs[:0:0], call.Inputs...)
			for j, x := range op.Inputs {
				if _, ok := fixedShape(x); !ok {
					prep.Inputs[j].Shape, prep.Inputs[j].Strides = nil, nil
				}
				if !x.Param {
					prep.Inputs[j].Data = nil
				}
			}
			prepared, bytes, err := wgref.Prepare(&prep)
			require.NoError(t, err, at)
			require.Equal(t, 4*want[i], bytes, "%s: bytes Prepare allocates", at)
			call.Prepared = prepared
			scratch, err := op.Scratch.Shape[0].Eval(env)
			require.NoError(t, err, at)
			call.Scratch = make([]byte, scratch)
			require.NoError(t, wgref.Call(call), "%s: given the rule's %d bytes", at, scratch)
			// (Tap-row and mixed-block convs ask for none of what the
			// rule reserves: their rule is unchanged.)
			if scratch > 0 && want[i] > 0 && !mixedFilters(op) {
				call.Scratch = call.Scratch[:scratch-1]
				require.ErrorContains(t, wgref.Call(call), "scratch of", "%s: given one byte less than the rule's %d", at, scratch)
			}
		}
		i++
	})
}
