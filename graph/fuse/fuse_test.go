package fuse

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
)

// doc is a graph of the given tensors (besides x, w, b and y), outputs and
// ops; x is [n, 4, 8, 8], w [4, 4, 3, 3], b [4], y the output.
func doc(tensors, outputs, ops string) string {
	return `{"name": "g", "symbols": {"n": {"hint": 2, "min": 1}},
 "tensors": {
  "x": {"dtype": "f32", "shape": ["n", 4, 8, 8]},
  "w": {"dtype": "f32", "shape": [4, 4, 3, 3]},
  "b": {"dtype": "f32", "shape": [4]},
  "y": {"dtype": "f32", "shape": ["n", 4, 8, 8]}` + tensors + `
 },
 "inputs": ["x"], "params": ["w", "b"], "outputs": [` + outputs + `],
 "ops": [` + ops + `]}`
}

const convAttrs = `"attrs": {"kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1], "group": 1}`

func conv(in, out string) string {
	return `{"kernel": "Conv", "inputs": ["` + in + `", "w", "b"], "outputs": ["` + out + `"], ` + convAttrs + `}`
}

func op(kernel, ins, out string) string {
	return `{"kernel": "` + kernel + `", "inputs": [` + ins + `], "outputs": ["` + out + `"]}`
}

func act(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(`,
  "t` + string(rune('0'+i)) + `": {"dtype": "f32", "shape": ["n", 4, 8, 8]}`)
	}
	return b.String()
}

func apply(t *testing.T, src string) (*graph.Graph, *graph.Graph) {
	t.Helper()
	g, err := graph.Parse("g.json", []byte(src))
	require.NoError(t, err)
	before, err := g.JSON()
	require.NoError(t, err)
	fused, err := Apply(g, Ref)
	require.NoError(t, err)
	after, err := g.JSON()
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "Apply changed the caller's graph")
	return g, fused
}

// fusedOps is the program of g, one op per line, as JSON writes it.
func fusedOps(t *testing.T, g *graph.Graph) string {
	t.Helper()
	data, err := g.JSON()
	require.NoError(t, err)
	s := string(data)
	return s[strings.Index(s, `"ops": [`):]
}

// TestResidualBlock: Conv, the residual Add of a sibling branch and Relu
// become one FusedConv whose output may take over the sum's memory; the
// intermediates are gone. The first conv is the producer: its sum, the
// second conv's output, is defined after it, so the fused op goes after
// the second conv, which stays a Conv (the Add it fed is taken).
func TestResidualBlock(t *testing.T) {
	src := doc(act(3), `"y"`, conv("x", "t1")+", "+
		conv("x", "t2")+", "+
		op("Add", `"t2", "t1"`, "t3")+", "+
		op("Relu", `"t3"`, "y"))
	_, fused := apply(t, src)
	assert.Equal(t, `"ops": [
  {"kernel": "Conv", "inputs": ["x", "w", "b"], "outputs": ["t2"], "attrs": {"kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1], "group": 1}},
  {"kernel": "FusedConv", "inputs": ["x", "w", "b", "t2"], "outputs": ["y"], "attrs": {"kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1], "group": 1, "activation": "Relu", "activation_alpha": 0.0, "activation_beta": 0.0}}],
 "kernels": {
  "FusedConv": {"fuse": true, "may_alias": [[0, 2], [0, 3]]}}
}
`, fusedOps(t, fused))
	assert.Nil(t, fused.Tensor("t1"))
	assert.Nil(t, fused.Tensor("t3"))
}

// TestSumDefinedLater: the sum comes from an op after the conv; the fused
// op goes right after that op.
func TestSumDefinedLater(t *testing.T) {
	src := doc(act(3), `"y"`, conv("x", "t1")+", "+
		op("Sigmoid", `"x"`, "t2")+", "+
		op("Add", `"t1", "t2"`, "t3")+", "+
		op("HardSigmoid", `"t3"`, "y"))
	src = strings.Replace(src, `"kernel": "HardSigmoid", "inputs": ["t3"], "outputs": ["y"]`, `"kernel": "HardSigmoid", "inputs": ["t3"], "outputs": ["y"], "attrs": {"alpha": 0.25, "beta": 0.5}`, 1)
	_, fused := apply(t, src)
	assert.Equal(t, `"ops": [
  {"kernel": "Sigmoid", "inputs": ["x"], "outputs": ["t2"]},
  {"kernel": "FusedConv", "inputs": ["x", "w", "b", "t2"], "outputs": ["y"], "attrs": {"kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1], "group": 1, "activation": "HardSigmoid", "activation_alpha": 0.25, "activation_beta": 0.5}}],
 "kernels": {
  "FusedConv": {"fuse": true, "may_alias": [[0, 2], [0, 3]]}}
}
`, fusedOps(t, fused))
}

// TestActivations: each activation folds, with its parameters; SiLU from
// x * Sigmoid(x).
func TestActivations(t *testing.T) {
	cases := []struct{ ops, act string }{
		{op("Relu", `"t1"`, "y"), `"activation": "Relu", "activation_alpha": 0.0, "activation_beta": 0.0`},
		{`{"kernel": "Clip", "inputs": ["t1"], "outputs": ["y"], "attrs": {"min": 0.0, "min_from_input": false, "max": 6.0, "max_from_input": false}}`, `"activation": "Clip", "activation_alpha": 0.0, "activation_beta": 6.0`},
		{`{"kernel": "LeakyRelu", "inputs": ["t1"], "outputs": ["y"], "attrs": {"alpha": 0.01}}`, `"activation": "LeakyRelu", "activation_alpha": 0.01, "activation_beta": 0.0`},
		{op("HardSwish", `"t1"`, "y"), `"activation": "HardSwish", "activation_alpha": 0.0, "activation_beta": 0.0`},
		{op("Sigmoid", `"t1"`, "y"), `"activation": "Sigmoid", "activation_alpha": 0.0, "activation_beta": 0.0`},
		{op("Sigmoid", `"t1"`, "t2") + ", " + op("Mul", `"t2", "t1"`, "y"), `"activation": "SiLU", "activation_alpha": 0.0, "activation_beta": 0.0`},
	}
	for _, c := range cases {
		_, fused := apply(t, doc(act(2), `"y"`, conv("x", "t1")+", "+c.ops))
		assert.Equal(t, `"ops": [
  {"kernel": "FusedConv", "inputs": ["x", "w", "b"], "outputs": ["y"], "attrs": {"kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1], "group": 1, `+c.act+`}}],
 "kernels": {
  "FusedConv": {"fuse": true, "may_alias": [[0, 2], [0, 3]]}}
}
`, fusedOps(t, fused), c.ops)
	}
}

// TestNoFusion: what must stay as it is.
func TestNoFusion(t *testing.T) {
	cases := map[string]string{
		"two readers": doc(act(2), `"y", "t2"`, conv("x", "t1")+", "+
			op("Relu", `"t1"`, "y")+", "+op("Sigmoid", `"t1"`, "t2")),
		"intermediate is a graph output": doc(act(1), `"y", "t1"`, conv("x", "t1")+", "+op("Relu", `"t1"`, "y")),
		"broadcasting Add": doc(act(1)+`,
  "c": {"dtype": "f32", "shape": [1, 4, 1, 1], "data": [1, 2, 3, 4]}`, `"y"`, conv("x", "t1")+", "+op("Add", `"t1", "c"`, "y")),
		"adding itself":        doc(act(1), `"y"`, conv("x", "t1")+", "+op("Add", `"t1", "t1"`, "y")),
		"Clip from an input":   doc(act(1), `"y"`, conv("x", "t1")+", "+`{"kernel": "Clip", "inputs": ["t1", "b"], "outputs": ["y"], "attrs": {"min": 0.0, "min_from_input": true, "max": 6.0, "max_from_input": false}}`),
		"activation not fused": doc(act(1), `"y"`, conv("x", "t1")+", "+op("Tanh", `"t1"`, "y")),
		"intermediate viewed": doc(act(1)+`,
  "v": {"view_of": "t1", "shape": ["n", 256]}`, `"y", "v"`, conv("x", "t1")+", "+op("Relu", `"t1"`, "y")),
		"the conv's input is written before the sum": doc(act(3), `"y"`, op("Relu", `"x"`, "t3")+", "+conv("t3", "t1")+", "+
			`{"kernel": "scale_", "inputs": [], "outputs": [], "mutates": ["t3"]}, `+
			op("Sigmoid", `"x"`, "t2")+", "+op("Add", `"t1", "t2"`, "y")),
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			g, fused := apply(t, src)
			assert.Same(t, g, fused, "nothing fuses: the graph itself comes back")
		})
	}
	// float64 throughout.
	src := strings.ReplaceAll(doc(act(1), `"y"`, conv("x", "t1")+", "+op("Relu", `"t1"`, "y")), `"f32"`, `"f64"`)
	g, fused := apply(t, src)
	assert.Same(t, g, fused)
}

// TestGemmAndMatMul: a Gemm's residual becomes its C (beta 1) when it has
// none; a MatMul takes its bias Add, then the residual.
func TestGemmAndMatMul(t *testing.T) {
	src := `{"name": "g",
 "tensors": {
  "a": {"dtype": "f32", "shape": [2, 3]}, "bt": {"dtype": "f32", "shape": [5, 3]}, "r": {"dtype": "f32", "shape": [2, 5]},
  "bias": {"dtype": "f32", "shape": [5]},
  "g1": {"dtype": "f32", "shape": [2, 5]}, "g2": {"dtype": "f32", "shape": [2, 5]},
  "m1": {"dtype": "f32", "shape": [2, 5]}, "m2": {"dtype": "f32", "shape": [2, 5]}, "m3": {"dtype": "f32", "shape": [2, 5]},
  "b": {"dtype": "f32", "shape": [3, 5]}, "y": {"dtype": "f32", "shape": [2, 5]}, "z": {"dtype": "f32", "shape": [2, 5]}
 },
 "inputs": ["a", "bt", "r", "b"], "params": ["bias"], "outputs": ["y", "z"],
 "ops": [
  {"kernel": "Gemm", "inputs": ["a", "bt"], "outputs": ["g1"], "attrs": {"alpha": 1.0, "beta": 0.5, "transA": 0, "transB": 1}},
  {"kernel": "Add", "inputs": ["r", "g1"], "outputs": ["g2"]},
  {"kernel": "LeakyRelu", "inputs": ["g2"], "outputs": ["y"], "attrs": {"alpha": 0.1}},
  {"kernel": "MatMul", "inputs": ["a", "b"], "outputs": ["m1"]},
  {"kernel": "Add", "inputs": ["m1", "bias"], "outputs": ["m2"]},
  {"kernel": "Add", "inputs": ["m2", "r"], "outputs": ["m3"]},
  {"kernel": "Relu", "inputs": ["m3"], "outputs": ["z"]}
 ]}`
	_, fused := apply(t, src)
	assert.Equal(t, `"ops": [
  {"kernel": "FusedGemm", "inputs": ["a", "bt", "r"], "outputs": ["y"], "attrs": {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 1, "activation": "LeakyRelu", "activation_alpha": 0.1, "activation_beta": 0.0}},
  {"kernel": "FusedMatMul", "inputs": ["a", "b", "bias", "r"], "outputs": ["z"], "attrs": {"activation": "Relu", "activation_alpha": 0.0, "activation_beta": 0.0}}],
 "kernels": {
  "FusedGemm": {"fuse": true, "may_alias": [[0, 2], [0, 3]]},
  "FusedMatMul": {"fuse": true, "may_alias": [[0, 2], [0, 3]]}}
}
`, fusedOps(t, fused))
}

// TestUserKernels: a graph whose kernels object declares FusedConv (and
// not FusedGemm) gets FusedConv with its own traits, and keeps its Gemm.
func TestUserKernels(t *testing.T) {
	src := doc(act(1)+`,
  "a": {"dtype": "f32", "shape": [2, 3]}, "bt": {"dtype": "f32", "shape": [5, 3]},
  "g1": {"dtype": "f32", "shape": [2, 5]}, "z": {"dtype": "f32", "shape": [2, 5]}`, `"y", "z"`,
		conv("x", "t1")+", "+op("Relu", `"t1"`, "y")+", "+
			`{"kernel": "Gemm", "inputs": ["a", "bt"], "outputs": ["g1"], "attrs": {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 1}}, `+
			op("Relu", `"g1"`, "z"))
	src = strings.Replace(src, `"inputs": ["x"]`, `"inputs": ["x", "a", "bt"]`, 1)
	src = strings.TrimSuffix(src, "}") + `, "kernels": {"FusedConv": {"fuse": true}, "Relu": {"may_alias": [[0, 0]]}}}`
	g, err := graph.Parse("g.json", []byte(src))
	require.NoError(t, err)
	fused, err := Apply(g, g.Traits)
	require.NoError(t, err)
	assert.Equal(t, `"ops": [
  {"kernel": "FusedConv", "inputs": ["x", "w", "b"], "outputs": ["y"], "attrs": {"kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1], "group": 1, "activation": "Relu", "activation_alpha": 0.0, "activation_beta": 0.0}},
  {"kernel": "Gemm", "inputs": ["a", "bt"], "outputs": ["g1"], "attrs": {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 1}},
  {"kernel": "Relu", "inputs": ["g1"], "outputs": ["z"]}],
 "kernels": {
  "FusedConv": {"fuse": true},
  "Relu": {"may_alias": [[0, 0]]}}
}
`, fusedOps(t, fused))
}

// TestLoopBody: ops inside a loop fuse within the body.
func TestLoopBody(t *testing.T) {
	src := doc(act(2), `"y"`, op("Sigmoid", `"x"`, "y")+`, {"loop": {"count": 2, "body": [`+conv("x", "t1")+", "+op("Relu", `"t1"`, "t2")+
		`, {"kernel": "acc_", "inputs": ["t2"], "outputs": [], "mutates": ["y"]}]}}`)
	_, fused := apply(t, src)
	assert.Contains(t, fusedOps(t, fused), `{"loop": {"count": 2, "body": [
   {"kernel": "FusedConv", "inputs": ["x", "w", "b"], "outputs": ["t2"]`)
}

// TestGelu: GELU as PyTorch exports it, (t * (Erf(t / √2) + 1)) * 0.5,
// folds as the activation "Gelu"; with another divisor it does not.
func TestGelu(t *testing.T) {
	consts := func(div string) string {
		return act(5) + `,
  "sqrt2": {"dtype": "f32", "shape": [], "data": [` + div + `]},
  "one": {"dtype": "f32", "shape": [], "data": [1]},
  "half": {"dtype": "f32", "shape": [], "data": [0.5]}`
	}
	chain := conv("x", "t1") + ", " + op("Div", `"t1", "sqrt2"`, "t2") + ", " + op("Erf", `"t2"`, "t3") + ", " +
		op("Add", `"t3", "one"`, "t4") + ", " + op("Mul", `"t1", "t4"`, "t5") + ", " + op("Mul", `"t5", "half"`, "y")
	_, fused := apply(t, doc(consts("1.4142135"), `"y"`, chain))
	assert.Equal(t, `"ops": [
  {"kernel": "FusedConv", "inputs": ["x", "w", "b"], "outputs": ["y"], "attrs": {"kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1], "group": 1, "activation": "Gelu", "activation_alpha": 0.0, "activation_beta": 0.0}}],
 "kernels": {
  "FusedConv": {"fuse": true, "may_alias": [[0, 2], [0, 3]]}}
}
`, fusedOps(t, fused))
	_, fused = apply(t, doc(consts("2"), `"y"`, chain))
	assert.Contains(t, fusedOps(t, fused), `"kernel": "Div"`, "not GELU: the Div stays")
}
