package refscratch

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Products whose scratch depends on their sizes in every way the rule
// distinguishes, n a symbol: few rows and many (gemvMaxRows), a batch
// folded into rows or not (B batched, B with a batch of 1, B with a batch
// of n, which folds at n = 1 only), a row-major B
// whose width is a multiple of the widest panel or not, a 1-D B, a
// transposed B and A, convolutions pointwise and not, and depths and
// widths beyond the cache blocks.
const kernelsGraph = `{
  "name": "kernels",
  "symbols": {"n": {"hint": 2, "min": 1, "max": 64}},
  "tensors": {
    "a1": {"dtype": "f32", "shape": ["n", 7, 300]}, "b1": {"dtype": "f32", "shape": [300, 20]}, "y1": {"dtype": "f32", "shape": ["n", 7, 20]},
    "a2": {"dtype": "f32", "shape": ["n", 300]}, "b2": {"dtype": "f32", "shape": [300, 64]}, "y2": {"dtype": "f32", "shape": ["n", 64]},
    "a3": {"dtype": "f32", "shape": [2, "n", 64]}, "b3": {"dtype": "f32", "shape": [2, 64, "n"]}, "y3": {"dtype": "f32", "shape": [2, "n", "n"]},
    "a4": {"dtype": "f32", "shape": ["n", 3, 8]}, "b4": {"dtype": "f32", "shape": [1, 8, 1100]}, "y4": {"dtype": "f32", "shape": ["n", 3, 1100]},
    "a5": {"dtype": "f32", "shape": ["n", 5]}, "b5": {"dtype": "f32", "shape": [5]}, "y5": {"dtype": "f32", "shape": ["n"]},
    "g1": {"dtype": "f32", "shape": ["n", 300]}, "w1": {"dtype": "f32", "shape": [30, 300]}, "z1": {"dtype": "f32", "shape": ["n", 30]},
    "g2": {"dtype": "f32", "shape": [300, "n"]}, "w2": {"dtype": "f32", "shape": [300, 33]}, "z2": {"dtype": "f32", "shape": ["n", 33]},
    "x1": {"dtype": "f32", "shape": [1, 4, "n", 10]}, "k1": {"dtype": "f32", "shape": [6, 4, 3, 3]}, "c1": {"dtype": "f32", "shape": [1, 6, "n", 8]},
    "a6": {"dtype": "f32", "shape": [2, "n", 13, 8]}, "b6": {"dtype": "f32", "shape": ["n", 8, 40]}, "y6": {"dtype": "f32", "shape": [2, "n", 13, 40]},
    "x2": {"dtype": "f32", "shape": [1, 8, "n", 5]}, "k2": {"dtype": "f32", "shape": [6, 8, 1, 1]}, "c2": {"dtype": "f32", "shape": [1, 6, "n", 5]}
  },
  "inputs": ["a1", "b1", "a2", "b2", "a3", "b3", "a4", "b4", "a5", "b5", "g1", "w1", "g2", "w2", "x1", "k1", "x2", "k2", "a6", "b6"],
  "outputs": ["y1", "y2", "y3", "y4", "y5", "z1", "z2", "c1", "c2", "y6"],
  "ops": [
    {"kernel": "MatMul", "inputs": ["a1", "b1"], "outputs": ["y1"]},
    {"kernel": "MatMul", "inputs": ["a2", "b2"], "outputs": ["y2"]},
    {"kernel": "MatMul", "inputs": ["a3", "b3"], "outputs": ["y3"]},
    {"kernel": "MatMul", "inputs": ["a4", "b4"], "outputs": ["y4"]},
    {"kernel": "MatMul", "inputs": ["a5", "b5"], "outputs": ["y5"]},
    {"kernel": "Gemm", "inputs": ["g1", "w1"], "outputs": ["z1"], "attrs": {"transA": 0, "transB": 1}},
    {"kernel": "Gemm", "inputs": ["g2", "w2"], "outputs": ["z2"], "attrs": {"transA": 1, "transB": 0}},
    {"kernel": "Conv", "inputs": ["x1", "k1"], "outputs": ["c1"], "attrs": {"group": 1, "kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 0, 1, 0], "dilations": [1, 1]}},
    {"kernel": "Conv", "inputs": ["x2", "k2"], "outputs": ["c2"], "attrs": {"group": 1, "kernel_shape": [1, 1], "strides": [1, 1], "pads": [0, 0, 0, 0], "dilations": [1, 1]}},
    {"kernel": "MatMul", "inputs": ["a6", "b6"], "outputs": ["y6"]}
  ]
}`

// Each rule is exactly what its kernel asks for, at several values of the
// symbols: the kernel runs with the rule's bytes and refuses one byte
// less (wgref's scratchOf). Over the product graph above and the
// recurrent one (recurrent_test.go).
func TestRulesAreWhatKernelsAsk(t *testing.T) {
	// The recurrent graph with the attributes its kernels read beyond
	// those the rule reads.
	recurrent := strings.NewReplacer(
		`"attrs": {"direction": "bidirectional"`, `"attrs": {"activations": "Sigmoid,Tanh,Tanh,Sigmoid,Tanh,Tanh", "activation_alpha": "", "activation_beta": "", "clip": 0.0, "input_forget": 0, "direction": "bidirectional"`,
		`"attrs": {"direction": "forward", "hidden_size": 6`, `"attrs": {"activations": "Sigmoid,Tanh", "activation_alpha": "", "activation_beta": "", "clip": 0.0, "direction": "forward", "hidden_size": 6`,
		`"attrs": {"direction": "forward", "hidden_size": 4`, `"attrs": {"activations": "Tanh", "activation_alpha": "", "activation_beta": "", "clip": 0.0, "direction": "forward", "hidden_size": 4`,
	).Replace(recurrentGraph)
	for _, src := range []string{kernelsGraph, recurrent} {
		g, err := graph.Parse("kernels.json", []byte(src))
		require.NoError(t, err)
		require.NoError(t, g.AddScratch(Rule))
		for _, n := range []int64{1, 2, 3, 4, 5, 7, 13, 32, 40} {
			env := expr.Env{"n": n}
			graph.Walk(g.Ops, func(op *graph.Op, _ []*graph.Op) {
				call := callOf(t, op, env)
				at := fmt.Sprintf("%s at n=%d", op.Label(), n)
				bytes, err := op.Scratch.Shape[0].Eval(env)
				require.NoError(t, err, at)
				call.Scratch = make([]byte, bytes)
				require.NoError(t, wgref.Call(call), "%s: given the rule's %d bytes", at, bytes)
				if bytes > 0 {
					call.Scratch = call.Scratch[:bytes-1]
					require.ErrorContains(t, wgref.Call(call), "scratch of", "%s: given one byte less than the rule's %d", at, bytes)
				}
			})
		}
	}
}

// callOf is op's kernel call at env: zeroed tensors of its shapes and
// types, its attributes evaluated.
func callOf(t *testing.T, op *graph.Op, env expr.Env) *wgrt.Call {
	tensor := func(x *graph.Tensor) wgrt.Tensor {
		shape := make([]int, len(x.Shape))
		for i, d := range x.Shape {
			v, err := d.Eval(env)
			require.NoError(t, err)
			shape[i] = int(v)
		}
		for d := wgrt.DType(0); d < 64; d++ {
			if d.String() == string(x.DType) {
				return wgrt.New(d, shape...)
			}
		}
		t.Fatalf("no run-time type for %s", x.DType)
		return wgrt.Tensor{}
	}
	call := &wgrt.Call{Kernel: op.Kernel}
	for _, x := range op.Inputs {
		call.Inputs = append(call.Inputs, tensor(x))
	}
	for _, x := range op.Outputs {
		call.Outputs = append(call.Outputs, tensor(x))
	}
	for _, a := range op.Attrs {
		at := wgrt.Attr{Name: a.Name, Kind: wgrt.AttrKind(a.Kind), Float: a.Float, Bool: a.Bool, Str: a.Str}
		switch a.Kind {
		case graph.AttrInt:
			v, err := a.Int.Eval(env)
			require.NoError(t, err)
			at.Int = int(v)
		case graph.AttrInts:
			for _, e := range a.Ints {
				v, err := e.Eval(env)
				require.NoError(t, err)
				at.Ints = append(at.Ints, int(v))
			}
		}
		call.Attrs = append(call.Attrs, at)
	}
	return call
}

// The product graph's rules at values worked out by hand (floats; a
// register block of 12 rows by 32 columns, k blocks of 256): at most 4
// rows take none; a row-major B packs one panel, whatever its width; a transposed or
// 1-D B packs its columns rounded up to 32; a convolution packs as im2col
// unless it is pointwise (its B the input's rows).
func TestProductRules(t *testing.T) {
	g, err := graph.Parse("kernels.json", []byte(kernelsGraph))
	require.NoError(t, err)
	require.NoError(t, g.AddScratch(Rule))
	want := map[int64][]int64{
		4: {36*256 + 256*32, 0, 0, 12*8 + 8*32, 0, 0, 0, 12*36 + 36*32, 12*8 + 8*32, 24*8 + 8*32},
		// A row-major B packs one panel even at widths that are multiples
		// of 32 (64, 32 and 5n = 160 here): the rule never shrinks as n grows.
		32: {228*256 + 256*32, 36*256 + 256*32, 36*64 + 64*32, 96*8 + 8*32, 36*5 + 5*32, 36*256 + 256*32, 36*256 + 256*32, 12*36 + 36*256, 12*8 + 8*32, 24*8 + 8*32},
		// B's batch of 1 folds A's 2·13 rows into one product.
		1:  {12*256 + 256*32, 0, 0, 0, 0, 0, 0, 12*36 + 36*32, 12*8 + 8*32, 36*8 + 8*32},
		5:  {36*256 + 256*32, 12*256 + 256*32, 12*64 + 64*32, 24*8 + 8*32, 12*5 + 5*32, 12*256 + 256*32, 12*256 + 256*32, 12*36 + 36*64, 12*8 + 8*32, 24*8 + 8*32},
		40: {288*256 + 256*32, 48*256 + 256*32, 48*64 + 64*32, 120*8 + 8*32, 48*5 + 5*32, 48*256 + 256*32, 48*256 + 256*32, 12*36 + 36*320, 12*8 + 8*32, 24*8 + 8*32},
	}
	for n, floats := range want {
		var got []int64
		graph.Walk(g.Ops, func(op *graph.Op, _ []*graph.Op) {
			v, err := op.Scratch.Shape[0].Eval(expr.Env{"n": n})
			require.NoError(t, err)
			got = append(got, v/4)
		})
		require.Equal(t, floats, got, "n=%d", n)
	}
}
