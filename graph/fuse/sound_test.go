package fuse

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
)

// requireNoOverlap fails when a fused op's output shares storage with one
// of its inputs other than as exactly that input's memory at a declared
// pair: what the fused kernels would read after writing.
func requireNoOverlap(t *testing.T, g *graph.Graph) {
	t.Helper()
	graph.Walk(g.Ops, func(op *graph.Op, _ []*graph.Op) {
		if !g.Fuses(op.Kernel) {
			return
		}
		out := op.Outputs[0]
		for i, in := range op.Inputs {
			if in.Root == out.Root {
				assert.True(t, g.MayAlias(op.Kernel, 0, i) && sameMemory(out, in), "%s: output %s overlaps input %s", op.Label(), out.Name, in.Name)
			}
		}
	})
}

// TestViewOfProducerInput: Relu(x)->t; Conv(t)->c; Relu(c)->v with v a
// view of t is legal (t is written only after the conv read it), but one
// FusedConv(t, w, b) -> v would overwrite its own input: the Relu stays.
func TestViewOfProducerInput(t *testing.T) {
	src := doc(act(2)+`,
  "v": {"view_of": "t1", "shape": ["n", 4, 8, 8]}`, `"t1"`,
		op("Relu", `"x"`, "t1")+", "+conv("t1", "t2")+", "+op("Relu", `"t2"`, "v"))
	g, fused := apply(t, src)
	assert.Same(t, g, fused, "nothing fuses")
}

// TestViewOfMatMulInput: the MatMul form, with a bias and a residual: the
// op whose output views the product's input stays out of the fusion; the
// rest still fuses.
func TestViewOfMatMulInput(t *testing.T) {
	src := `{"name": "g",
 "tensors": {
  "a": {"dtype": "f32", "shape": [4, 4]}, "b": {"dtype": "f32", "shape": [4, 4]}, "bias": {"dtype": "f32", "shape": [4]},
  "r": {"dtype": "f32", "shape": [4, 4]},
  "t": {"dtype": "f32", "shape": [4, 4]}, "m1": {"dtype": "f32", "shape": [4, 4]}, "m2": {"dtype": "f32", "shape": [4, 4]},
  "m3": {"dtype": "f32", "shape": [4, 4]}, "v": {"view_of": "t", "shape": [4, 4]}
 },
 "inputs": ["a", "b", "r"], "params": ["bias"], "outputs": ["t"],
 "ops": [
  {"kernel": "Relu", "inputs": ["a"], "outputs": ["t"]},
  {"kernel": "MatMul", "inputs": ["t", "b"], "outputs": ["m1"]},
  {"kernel": "Add", "inputs": ["m1", "bias"], "outputs": ["m2"]},
  {"kernel": "Add", "inputs": ["m2", "r"], "outputs": ["m3"]},
  {"kernel": "Relu", "inputs": ["m3"], "outputs": ["v"]}
 ]}`
	_, fused := apply(t, src)
	requireNoOverlap(t, fused)
	assert.Equal(t, `"ops": [
  {"kernel": "Relu", "inputs": ["a"], "outputs": ["t"]},
  {"kernel": "FusedMatMul", "inputs": ["t", "b", "bias", "r"], "outputs": ["m3"], "attrs": {"activation": "", "activation_alpha": 0.0, "activation_beta": 0.0}},
  {"kernel": "Relu", "inputs": ["m3"], "outputs": ["v"]}],
 "kernels": {
  "FusedMatMul": {"fuse": true, "may_alias": [[0, 2], [0, 3]]}}
}
`, fusedOps(t, fused))
}

// TestTransposedViewOfSum: the activation writes a transposed view of the
// residual: folded, the fused kernel would write the sum's memory in
// another layout than it reads it. The Relu stays; Conv and Add fuse.
func TestTransposedViewOfSum(t *testing.T) {
	src := doc(act(3)+`,
  "v": {"view_of": "t2", "shape": ["n", 4, 8, 8], "strides": [256, 64, 1, 8]}`, `"t2"`,
		op("Sigmoid", `"x"`, "t2")+", "+conv("x", "t1")+", "+op("Add", `"t1", "t2"`, "t3")+", "+op("Relu", `"t3"`, "v"))
	_, fused := apply(t, src)
	requireNoOverlap(t, fused)
	assert.Contains(t, fusedOps(t, fused), `{"kernel": "FusedConv", "inputs": ["x", "w", "b", "t2"], "outputs": ["t3"]`)
	assert.Contains(t, fusedOps(t, fused), `{"kernel": "Relu", "inputs": ["t3"], "outputs": ["v"]}`)
}

// TestSumViewSameLayout: the activation writes a view that is exactly the
// residual's memory: the fused kernel takes that in place.
func TestSumViewSameLayout(t *testing.T) {
	src := doc(act(3)+`,
  "v": {"view_of": "t2", "shape": ["n", 4, 8, 8]}`, `"t2"`,
		op("Sigmoid", `"x"`, "t2")+", "+conv("x", "t1")+", "+op("Add", `"t1", "t2"`, "t3")+", "+op("Relu", `"t3"`, "v"))
	_, fused := apply(t, src)
	requireNoOverlap(t, fused)
	assert.Contains(t, fusedOps(t, fused), `{"kernel": "FusedConv", "inputs": ["x", "w", "b", "t2"], "outputs": ["v"]`)
}

// TestInPlaceLayouts: where the planner could put the fused output in the
// sum's storage (same layout, own storage, dying there), the sum folds
// only in layouts the reference kernels take in place: not a rank-0
// product (vector·vector), not NHWC-strided planes.
func TestInPlaceLayouts(t *testing.T) {
	dot := `{"name": "g",
 "tensors": {
  "a": {"dtype": "f32", "shape": [8]}, "b": {"dtype": "f32", "shape": [8]}, "z": {"dtype": "f32", "shape": []},
  "s": {"dtype": "f32", "shape": []}, "m": {"dtype": "f32", "shape": []}, "y": {"dtype": "f32", "shape": []}
 },
 "inputs": ["a", "b", "z"], "outputs": ["y"],
 "ops": [
  {"kernel": "Relu", "inputs": ["z"], "outputs": ["s"]},
  {"kernel": "MatMul", "inputs": ["a", "b"], "outputs": ["m"]},
  {"kernel": "Add", "inputs": ["m", "s"], "outputs": ["y"]}
 ]}`
	g, fused := apply(t, dot)
	assert.Same(t, g, fused, "a scalar residual of a vector·vector product does not fold")

	nhwc := `, "strides": [256, 1, 32, 4]`
	src := doc(act(3), `"y"`, op("Sigmoid", `"x"`, "t2")+", "+conv("x", "t1")+", "+op("Add", `"t1", "t2"`, "t3")+", "+op("Relu", `"t3"`, "y"))
	for _, name := range []string{`"y": {"dtype": "f32", "shape": ["n", 4, 8, 8]`, `"t1": {"dtype": "f32", "shape": ["n", 4, 8, 8]`, `"t2": {"dtype": "f32", "shape": ["n", 4, 8, 8]`, `"t3": {"dtype": "f32", "shape": ["n", 4, 8, 8]`} {
		src = strings.Replace(src, name, name+nhwc, 1)
	}
	_, fused = apply(t, src)
	assert.NotContains(t, fusedOps(t, fused), `"FusedConv", "inputs": ["x", "w", "b", "t2"]`, "an NHWC-strided residual does not fold")

	// Row-major, the same graph fuses whole.
	_, fused = apply(t, doc(act(3), `"y"`, op("Sigmoid", `"x"`, "t2")+", "+conv("x", "t1")+", "+op("Add", `"t1", "t2"`, "t3")+", "+op("Relu", `"t3"`, "y")))
	assert.Contains(t, fusedOps(t, fused), `{"kernel": "FusedConv", "inputs": ["x", "w", "b", "t2"], "outputs": ["y"]`)
}

// TestUserKernelLayout: a user's FusedConv declared may_alias takes its
// output over the sum's memory only in the output's own layout: a
// transposed view of the sum is not folded into it.
func TestUserKernelLayout(t *testing.T) {
	src := doc(act(3)+`,
  "v": {"view_of": "t2", "shape": ["n", 4, 8, 8], "strides": [256, 64, 1, 8]}`, `"t2"`,
		op("Sigmoid", `"x"`, "t2")+", "+conv("x", "t1")+", "+op("Add", `"t1", "t2"`, "t3")+", "+op("Relu", `"t3"`, "v"))
	src = strings.TrimSuffix(src, "}") + `, "kernels": {"FusedConv": {"fuse": true, "may_alias": [[0, 3]]}}}`
	g, err := graph.Parse("g.json", []byte(src))
	require.NoError(t, err)
	fused, err := Apply(g, g.Traits)
	require.NoError(t, err)
	requireNoOverlap(t, fused)
	assert.Contains(t, fusedOps(t, fused), `{"kernel": "Relu", "inputs": ["t3"], "outputs": ["v"]}`)
}
