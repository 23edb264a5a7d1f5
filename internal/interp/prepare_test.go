package interp

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/refscratch"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/emit"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// A graph whose products' weights are params (a conv, a grouped conv of
// many outputs per group, a depthwise conv, a transposed Gemm B, a
// MatMul B of a width that is not whole panels) or computed (a MatMul
// whose B is another product's output), at a symbolic batch.
const preparedGraph = `{
  "name": "prepared",
  "symbols": {"n": {"hint": 2, "min": 1, "max": 8}},
  "tensors": {
    "x": {"dtype": "f32", "shape": ["n", 6, 9, 9]},
    "w1": {"dtype": "f32", "shape": [40, 6, 3, 3]}, "c1": {"dtype": "f32", "shape": ["n", 40, 9, 9]},
    "w2": {"dtype": "f32", "shape": [80, 20, 3, 3]}, "c2": {"dtype": "f32", "shape": ["n", 80, 7, 7]},
    "w3": {"dtype": "f32", "shape": [80, 1, 3, 3]}, "c3": {"dtype": "f32", "shape": ["n", 80, 7, 7]},
    "f": {"dtype": "f32", "shape": ["n", 3920]},
    "wg": {"dtype": "f32", "shape": [45, 3920]}, "g": {"dtype": "f32", "shape": ["n", 45]},
    "wm": {"dtype": "f32", "shape": [45, 37]}, "h": {"dtype": "f32", "shape": ["n", 37]},
    "hs": {"dtype": "f32", "shape": [37, "n"]}, "y": {"dtype": "f32", "shape": ["n", "n"]}
  },
  "inputs": ["x"],
  "params": ["w1", "w2", "w3", "wg", "wm"],
  "outputs": ["y", "g"],
  "ops": [
    {"kernel": "Conv", "inputs": ["x", "w1"], "outputs": ["c1"], "attrs": {"group": 1, "kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1]}},
    {"kernel": "Conv", "inputs": ["c1", "w2"], "outputs": ["c2"], "attrs": {"group": 2, "kernel_shape": [3, 3], "strides": [1, 1], "pads": [0, 0, 0, 0], "dilations": [1, 1]}},
    {"kernel": "Conv", "inputs": ["c2", "w3"], "outputs": ["c3"], "attrs": {"group": 80, "kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1]}},
    {"kernel": "Reshape", "inputs": ["c3"], "outputs": ["f"]},
    {"kernel": "Gemm", "inputs": ["f", "wg"], "outputs": ["g"], "attrs": {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 1}},
    {"kernel": "MatMul", "inputs": ["g", "wm"], "outputs": ["h"]},
    {"kernel": "Transpose", "inputs": ["h"], "outputs": ["hs"], "attrs": {"perm": [1, 0]}},
    {"kernel": "MatMul", "inputs": ["h", "hs"], "outputs": ["y"]}
  ]
}`

// Weights prepared once give the outputs of weights packed per call, bit
// for bit, at several batches (the Gemm and MatMuls at n above and below
// the rows that run unpacked); the bytes prepared are the planner's
// PackedBytes.
func TestPreparedWeightsSameOutputs(t *testing.T) {
	// Each model planned with its kernels' scratch: the prepared one's
	// products ask for no packing of their weights.
	planned := func(rule graph.ScratchRule) (*graph.Graph, *plan.Plan) {
		g, err := graph.Parse("prepared.json", []byte(preparedGraph))
		require.NoError(t, err)
		require.NoError(t, g.AddScratch(rule))
		p, err := plan.Make(g, plan.Options{})
		require.NoError(t, err)
		return g, p
	}
	g, p := planned(refscratch.Rule)
	_, pp := planned(refscratch.RuleWithPackedWeights)
	r := rand.New(rand.NewSource(5))
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
	// Conv 1 (40·54 floats, rounded up to 48 rows), conv 2 (2 groups of 40
	// rows rounded up to 48, 180 deep), the Gemm's transposed B (45 columns
	// rounded up to 64, 3920 deep) and the MatMul's last panel (32·45);
	// the depthwise conv and the computed B none.
	want := 4 * (48*54 + 2*48*180 + 64*3920 + 32*45)
	require.Equal(t, want, prepared.PreparedBytes())
	require.Equal(t, int64(want), refscratch.PackedBytes(g))
	for _, n := range []int{1, 2, 5, 8} {
		x := wgrt.New(wgrt.F32, n, 6, 9, 9)
		for i := range x.Float32s() {
			x.Float32s()[i] = r.Float32()*2 - 1
		}
		a, err := perCall.Run(wgref.Call, nil, []wgrt.Tensor{x})
		require.NoError(t, err)
		want := [][]float32{slices.Clone(a[0].Float32s()), slices.Clone(a[1].Float32s())}
		b, err := prepared.Run(wgref.Call, nil, []wgrt.Tensor{x})
		require.NoError(t, err)
		for i := range b {
			require.True(t, slices.Equal(want[i], b[i].Float32s()), "n=%d output %d: prepared weights change bits", n, i)
		}
	}
}

// wgrt numbers operand roles and attribute kinds as emit and graph do:
// PrepareWeights and generated wrappers hand emit's layouts to wgrt by
// number.
func TestOperandNumberingMatchesEmit(t *testing.T) {
	require.Equal(t, []wgrt.OperandRole{wgrt.RoleOutput, wgrt.RoleScratch, wgrt.RoleInputs, wgrt.RoleInput, wgrt.RoleAttr},
		[]wgrt.OperandRole{wgrt.OperandRole(emit.RoleOutput), wgrt.OperandRole(emit.RoleScratch), wgrt.OperandRole(emit.RoleInputs),
			wgrt.OperandRole(emit.RoleInput), wgrt.OperandRole(emit.RoleAttr)})
	require.Equal(t, []wgrt.AttrKind{wgrt.AttrInt, wgrt.AttrFloat, wgrt.AttrBool, wgrt.AttrString, wgrt.AttrInts},
		[]wgrt.AttrKind{wgrt.AttrKind(graph.AttrInt), wgrt.AttrKind(graph.AttrFloat), wgrt.AttrKind(graph.AttrBool),
			wgrt.AttrKind(graph.AttrString), wgrt.AttrKind(graph.AttrInts)})
}

// Prepare is called once per op whose attributes are all constants, with
// every attribute's value, the param inputs' data and layout, and no
// data or layout for an input whose shape depends on a symbol; an op with
// a symbolic int or int list attribute is left to prepare per call. Its
// results reach those ops' calls and its bytes are summed.
func TestPrepareSeesConstantCallsOnly(t *testing.T) {
	const src = `{
  "name": "consts",
  "symbols": {"n": {"hint": 2, "min": 1, "max": 8}},
  "tensors": {
    "x": {"dtype": "f32", "shape": ["n", 4]}, "w": {"dtype": "f32", "shape": [4, 3]},
    "y1": {"dtype": "f32", "shape": ["n", 3]}, "y2": {"dtype": "f32", "shape": ["n", 3]}, "y3": {"dtype": "f32", "shape": ["n", 3]}
  },
  "inputs": ["x"],
  "params": ["w"],
  "outputs": ["y1", "y2", "y3"],
  "ops": [
    {"kernel": "k", "inputs": ["w", "x"], "outputs": ["y1"], "attrs": {"a": 3, "f": 0.5, "b": true, "s": "str", "l": [4, 5]}},
    {"kernel": "k", "inputs": ["w", "x"], "outputs": ["y2"], "attrs": {"a": {"expr": "n//2"}, "f": 0.5, "b": true, "s": "str", "l": [4, 5]}},
    {"kernel": "k", "inputs": ["w", "x"], "outputs": ["y3"], "attrs": {"a": 3, "f": 0.5, "b": true, "s": "str", "l": [4, {"expr": "n+1"}]}}
  ]
}`
	g, err := graph.Parse("consts.json", []byte(src))
	require.NoError(t, err)
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	m := New(p)
	defer m.Close()
	w := wgrt.New(wgrt.F32, 4, 3)
	for i := range w.Float32s() {
		w.Float32s()[i] = float32(i)
	}
	require.NoError(t, m.BindParams(map[string]wgrt.Tensor{"w": w}))
	var seen []wgrt.Call
	require.NoError(t, m.PrepareWeights(func(c *wgrt.Call) (any, int, error) {
		seen = append(seen, *c)
		return c.Op.Place, 7, nil
	}))
	require.Len(t, seen, 1)
	c := seen[0]
	require.Equal(t, "ops[0]", c.Op.Place)
	require.Equal(t, "k", c.Kernel)
	require.Equal(t, []int{4, 3}, c.Inputs[0].Shape)
	require.Equal(t, w.Float32s(), c.Inputs[0].Float32s())
	require.Nil(t, c.Inputs[1].Shape, "x's shape depends on n")
	require.Nil(t, c.Inputs[1].Data)
	require.Equal(t, []wgrt.Attr{
		{Name: "a", Kind: wgrt.AttrInt, Int: 3}, {Name: "f", Kind: wgrt.AttrFloat, Float: 0.5}, {Name: "b", Kind: wgrt.AttrBool, Bool: true},
		{Name: "s", Kind: wgrt.AttrString, Str: "str"}, {Name: "l", Kind: wgrt.AttrInts, Ints: []int{4, 5}},
	}, c.Attrs)
	require.Equal(t, 7, m.PreparedBytes())
	require.Equal(t, []any{"ops[0]", nil, nil}, []any{m.calls[0].Prepared, m.calls[1].Prepared, m.calls[2].Prepared})
	m.Close()
	require.Zero(t, m.PreparedBytes())
	require.Nil(t, m.calls[0].Prepared)
}
