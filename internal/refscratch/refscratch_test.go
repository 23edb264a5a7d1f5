package refscratch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// Every rule, at exact sizes worked out by hand from wgref's blocking (mr
// 12, nr 32, k blocks of 256, n blocks of 512, m blocks of 528); n is a
// symbol so that the rules are checked as expressions, at two values.
const rulesGraph = `{
  "name": "rules",
  "symbols": {"n": {"hint": 2, "min": 1, "max": 8}},
  "tensors": {
    "a": {"dtype": "f32", "shape": ["n", 7, 300]},
    "b": {"dtype": "f32", "shape": [300, 20]},
    "ab": {"dtype": "f32", "shape": ["n", 7, 20]},
    "ai": {"dtype": "i32", "shape": [4, 5]},
    "bi": {"dtype": "i32", "shape": [5, 2]},
    "abi": {"dtype": "i32", "shape": [4, 2]},
    "g": {"dtype": "f32", "shape": [20, 2000]},
    "gw": {"dtype": "f32", "shape": [30, 2000]},
    "gy": {"dtype": "f32", "shape": [20, 30]},
    "x": {"dtype": "f32", "shape": ["n", 4, 10, 10]},
    "w": {"dtype": "f32", "shape": [6, 2, 3, 3]},
    "y": {"dtype": "f32", "shape": ["n", 6, 8, 8]},
    "r": {"dtype": "f32", "shape": ["n", 4, 1, 1]},
    "vals": {"dtype": "f32", "shape": ["n", 4, 10, 3]},
    "idx": {"dtype": "i64", "shape": ["n", 4, 10, 3]},
    "mean": {"dtype": "f32", "shape": [4]},
    "bn": {"dtype": "f32", "shape": ["n", 4, 10, 10]}
  },
  "inputs": ["a", "b", "ai", "bi", "g", "gw", "x", "w", "mean"],
  "outputs": ["ab", "abi", "gy", "y", "r", "vals", "idx", "bn"],
  "ops": [
    {"kernel": "MatMul", "inputs": ["a", "b"], "outputs": ["ab"]},
    {"kernel": "MatMul", "inputs": ["ai", "bi"], "outputs": ["abi"]},
    {"kernel": "Gemm", "inputs": ["g", "gw"], "outputs": ["gy"], "attrs": {"transB": 1}},
    {"kernel": "Conv", "inputs": ["x", "w"], "outputs": ["y"], "attrs": {"group": 2}},
    {"kernel": "ReduceLogSumExp", "inputs": ["x"], "outputs": ["r"]},
    {"kernel": "TopK", "inputs": ["x"], "outputs": ["vals", "idx"], "attrs": {"axis": -1, "k": 3}},
    {"kernel": "BatchNormalization", "inputs": ["x", "mean", "mean", "mean", "mean"], "outputs": ["bn"]}
  ]
}`

func TestRules(t *testing.T) {
	g, err := graph.Parse("rules.json", []byte(rulesGraph))
	require.NoError(t, err)
	require.NoError(t, g.AddScratch(Rule))
	for _, n := range []int64{1, 5} {
		var got []int64
		graph.Walk(g.Ops, func(op *graph.Op, _ []*graph.Op) {
			require.NotNil(t, op.Scratch, op.Label())
			v, err := op.Scratch.Shape[0].Eval(expr.Env{"n": n})
			require.NoError(t, err)
			got = append(got, v)
		})
		assert.Equal(t, []int64{
			4 * ((7*n+11)/12*12*256 + 256*32), // MatMul: n×7 rows (the batch folds into them) → a multiple of 12, k 300 → one block of 256, n 20 → 32 columns
			0,                                 // MatMul of integers: no packing
			4 * (24*256 + 256*32),             // Gemm, transB: m 20 → 24, n 30 → 32
			4 * (12*18 + 18*64),               // Conv, 2 groups: 3 channels → 12 rows, 2×9 taps deep, 8×8 positions
			16 * 4 * n,                        // ReduceLogSumExp: two float64s per output element
			16 * 10,                           // TopK: a float64 and an index per element of the axis
			32 * 4,                            // BatchNormalization: four float64s per channel
		}, got, "n=%d", n)
	}
	assert.Equal(t, "scratch ops[0]", g.Ops[0].Scratch.Name)
	assert.Equal(t, graph.DType("u8"), g.Ops[0].Scratch.DType)
}

func TestAddScratchTwice(t *testing.T) {
	g, err := graph.Parse("rules.json", []byte(rulesGraph))
	require.NoError(t, err)
	require.NoError(t, g.AddScratch(Rule))
	assert.ErrorContains(t, g.AddScratch(Rule), "already has scratch")
}

// The kernels that set a run-time size and sort: Unique (four ints per
// element, or per slice along its axis) and NonMaxSuppression (12 bytes
// per box), needs of their inputs' shapes only.
const runTimeGraph = `{
  "name": "runtime",
  "symbols": {"n": {"hint": 2, "min": 1, "max": 8}, "u": {"bound": "3*n"}, "v": {"bound": 4}, "k": {"bound": "2*n"}},
  "tensors": {
    "x": {"dtype": "f32", "shape": ["n", 3]},
    "y": {"dtype": "f32", "shape": ["u"]},
    "y.count": {"dtype": "i64", "shape": []},
    "ya": {"dtype": "f32", "shape": ["n", "v"]},
    "ya.count": {"dtype": "i64", "shape": []},
    "boxes": {"dtype": "f32", "shape": [1, "n", 4]},
    "scores": {"dtype": "f32", "shape": [1, 2, "n"]},
    "sel": {"dtype": "i64", "shape": ["k", 3]},
    "sel.count": {"dtype": "i64", "shape": []}
  },
  "inputs": ["x", "boxes", "scores"],
  "outputs": ["y", "ya", "sel"],
  "ops": [
    {"kernel": "Unique", "inputs": ["x"], "outputs": ["y", "y.count"], "sets": {"u": "y.count"}, "attrs": {"sorted": 1, "axis": 0, "has_axis": false, "outputs": [1, 0, 0, 0]}},
    {"kernel": "Unique", "inputs": ["x"], "outputs": ["ya", "ya.count"], "sets": {"v": "ya.count"}, "attrs": {"sorted": 1, "axis": 1, "has_axis": true, "outputs": [1, 0, 0, 0]}},
    {"kernel": "NonMaxSuppression", "inputs": ["boxes", "scores"], "outputs": ["sel", "sel.count"], "sets": {"k": "sel.count"}, "attrs": {"center_point_box": 0}}
  ]
}`

func TestRunTimeSizeRules(t *testing.T) {
	g, err := graph.Parse("runtime.json", []byte(runTimeGraph))
	require.NoError(t, err)
	require.NoError(t, g.AddScratch(Rule))
	for _, n := range []int64{1, 5} {
		var got []int64
		graph.Walk(g.Ops, func(op *graph.Op, _ []*graph.Op) {
			require.NotNil(t, op.Scratch, op.Label())
			v, err := op.Scratch.Shape[0].Eval(expr.Env{"n": n})
			require.NoError(t, err)
			got = append(got, v)
		})
		assert.Equal(t, []int64{32 * 3 * n, 32 * 3, 12 * n}, got, "n=%d", n)
	}
}

// A fused kernel needs exactly its producer's scratch: the same rule,
// whatever bias, sum and activation it carries.
func TestFusedRules(t *testing.T) {
	src := strings.NewReplacer(
		`{"kernel": "MatMul", "inputs": ["a", "b"], "outputs": ["ab"]}`,
		`{"kernel": "FusedMatMul", "inputs": ["a", "b", "ab0"], "outputs": ["ab"], "attrs": {"activation": "Relu", "activation_alpha": 0.0, "activation_beta": 0.0}}`,
		`{"kernel": "Gemm", "inputs": ["g", "gw"], "outputs": ["gy"], "attrs": {"transB": 1}}`,
		`{"kernel": "FusedGemm", "inputs": ["g", "gw", "gy0", "gy0"], "outputs": ["gy"], "attrs": {"transB": 1, "activation": "", "activation_alpha": 0.0, "activation_beta": 0.0}}`,
		`{"kernel": "Conv", "inputs": ["x", "w"], "outputs": ["y"], "attrs": {"group": 2}}`,
		`{"kernel": "FusedConv", "inputs": ["x", "w", "y0"], "outputs": ["y"], "attrs": {"group": 2, "activation": "Clip", "activation_alpha": 0.0, "activation_beta": 6.0}}`,
		`"inputs": ["a", "b",`, `"inputs": ["ab0", "gy0", "y0", "a", "b",`,
		`"tensors": {`, `"tensors": {
    "ab0": {"dtype": "f32", "shape": ["n", 7, 20]}, "gy0": {"dtype": "f32", "shape": [20, 30]}, "y0": {"dtype": "f32", "shape": ["n", 6, 8, 8]},`,
	).Replace(rulesGraph)
	g, err := graph.Parse("rules.json", []byte(src))
	require.NoError(t, err)
	require.NoError(t, g.AddScratch(Rule))
	var got []int64
	graph.Walk(g.Ops, func(op *graph.Op, _ []*graph.Op) {
		if strings.HasPrefix(op.Kernel, "Fused") {
			v, err := op.Scratch.Shape[0].Eval(expr.Env{"n": 3})
			require.NoError(t, err)
			got = append(got, v)
		}
	})
	// MatMul folds the batch into rows (3·7 → 24); the conv's 3 rows per
	// group round up to the register block's 12.
	assert.Equal(t, []int64{4 * (24*256 + 256*32), 4 * (24*256 + 256*32), 4 * (12*18 + 18*64)}, got)
}
