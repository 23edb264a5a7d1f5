package refscratch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// RNN, GRU and LSTM at sizes worked out by hand: a bidirectional float32
// LSTM over a sequence of n (batch 2, input 7, hidden 5: gates·hidden 20;
// no Rᵀ at batch 2), a float32 GRU in layout 1 with sequence_lens (batch
// 3, sequence n, input 4, hidden 6: 18), a float64 RNN (the general
// path's float64s), a float32 RNN whose batch is n (Rᵀ from batch 3) that
// outputs only Y_h, and the GRU again with linear_before_reset, which runs
// step by step and needs none.
const recurrentGraph = `{
  "name": "recurrent",
  "symbols": {"n": {"hint": 2, "min": 1, "max": 8}},
  "tensors": {
    "x": {"dtype": "f32", "shape": ["n", 2, 7]},
    "w": {"dtype": "f32", "shape": [2, 20, 7]},
    "r": {"dtype": "f32", "shape": [2, 20, 5]},
    "b": {"dtype": "f32", "shape": [2, 40]},
    "y": {"dtype": "f32", "shape": ["n", 2, 2, 5]},
    "gx": {"dtype": "f32", "shape": [3, "n", 4]},
    "gw": {"dtype": "f32", "shape": [1, 18, 4]},
    "gr": {"dtype": "f32", "shape": [1, 18, 6]},
    "lens": {"dtype": "i32", "shape": [3]},
    "gy": {"dtype": "f32", "shape": [3, "n", 1, 6]},
    "rx": {"dtype": "f64", "shape": ["n", 1, 3]},
    "rw": {"dtype": "f64", "shape": [1, 4, 3]},
    "rr": {"dtype": "f64", "shape": [1, 4, 4]},
    "ry": {"dtype": "f64", "shape": ["n", 1, 1, 4]},
    "bx": {"dtype": "f32", "shape": [4, "n", 3]},
    "bw": {"dtype": "f32", "shape": [1, 4, 3]},
    "br": {"dtype": "f32", "shape": [1, 4, 4]},
    "by": {"dtype": "f32", "shape": [1, "n", 4]},
    "sy": {"dtype": "f32", "shape": [3, "n", 1, 6]}
  },
  "inputs": ["x", "w", "r", "b", "gx", "gw", "gr", "lens", "rx", "rw", "rr", "bx", "bw", "br"],
  "outputs": ["y", "gy", "ry", "by", "sy"],
  "ops": [
    {"kernel": "LSTM", "inputs": ["x", "w", "r", "b"], "outputs": ["y"],
     "attrs": {"direction": "bidirectional", "hidden_size": 5, "layout": 0, "inputs": [1, 1, 1, 1, 0, 0, 0, 0], "outputs": [1, 0, 0]}},
    {"kernel": "GRU", "inputs": ["gx", "gw", "gr", "lens"], "outputs": ["gy"],
     "attrs": {"direction": "forward", "hidden_size": 6, "layout": 1, "linear_before_reset": 0, "inputs": [1, 1, 1, 0, 1, 0], "outputs": [1, 0, 0]}},
    {"kernel": "RNN", "inputs": ["rx", "rw", "rr"], "outputs": ["ry"],
     "attrs": {"direction": "forward", "hidden_size": 4, "layout": 0, "inputs": [1, 1, 1, 0, 0, 0], "outputs": [1, 0, 0]}},
    {"kernel": "RNN", "inputs": ["bx", "bw", "br"], "outputs": ["by"],
     "attrs": {"direction": "forward", "hidden_size": 4, "layout": 0, "inputs": [1, 1, 1, 0, 0, 0], "outputs": [0, 1, 0]}},
    {"kernel": "GRU", "inputs": ["gx", "gw", "gr", "lens"], "outputs": ["sy"],
     "attrs": {"direction": "forward", "hidden_size": 6, "layout": 1, "linear_before_reset": 1, "inputs": [1, 1, 1, 0, 1, 0], "outputs": [1, 0, 0]}}
  ]
}`

func TestRecurrentRules(t *testing.T) {
	g, err := graph.Parse("recurrent.json", []byte(recurrentGraph))
	require.NoError(t, err)
	require.NoError(t, g.AddScratch(Rule))
	// Packing (the larger of the input projection's and a step's), the
	// projected inputs, Rᵀ with rows padded by 16 (batches beyond 2), a
	// step's pre-activations, two states.
	want := map[int64][]int64{
		// Packing, with the GEMM's largest register block, 12 rows by 32
		// columns, and none for products of up to 4 rows (run row by row);
		// a step's product is asked for as with a packed B.
		// n=1: every product has at most 4 rows: no packing.
		// n=5: LSTM: projection 10 rows → 12 by 7 deep, 20 columns → 32:
		// 12·7+7·32 = 308; a step's 2 rows: none.
		// GRU: projection 15 rows → 24 by 4 deep: 24·4+4·32 = 224; a
		// step's 3 rows: none.
		// RNN of batch n: projection 20 rows → 24 by 3 deep, 4 columns →
		// 32: 24·3+3·32 = 168; a step's 5 rows → 12 by 4 deep: 12·4+4·32 =
		// 176.
		1: {4 * (2*20 + 2*20 + 2*2*5), 4 * (3*18 + 6*(18+16) + 3*18 + 2*3*6), 8 * 4 * (1 + 3), 4 * (4*4 + 4 + 2*4), 0},
		5: {4 * (308 + 10*20 + 2*20 + 2*2*5), 4 * (224 + 15*18 + 6*(18+16) + 3*18 + 2*3*6), 8 * 4 * (1 + 3), 4 * (176 + 20*4 + 4*(4+16) + 5*4 + 2*5*4), 0},
	}
	for _, n := range []int64{1, 5} {
		var got []int64
		graph.Walk(g.Ops, func(op *graph.Op, _ []*graph.Op) {
			require.NotNil(t, op.Scratch, op.Label())
			v, err := op.Scratch.Shape[0].Eval(expr.Env{"n": n})
			require.NoError(t, err)
			got = append(got, v)
		})
		assert.Equal(t, want[n], got, "n=%d", n)
	}
}
