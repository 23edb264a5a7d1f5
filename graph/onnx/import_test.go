package onnx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/plan"
)

// The three real exports import with every tensor shaped, in terms of
// their dim_params only, and plan.
func TestImportRealModels(t *testing.T) {
	cases := []struct {
		file    string
		symbols []string
		output  string
	}{
		{"resnet18.onnx", []string{"batch"}, "[batch, 1000]"},
		{"mobilenet_v2.onnx", []string{"batch"}, "[batch, 1000]"},
		{"tiny_bert.onnx", []string{"batch", "seq"}, "[batch, seq, 256]"},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			g, res, err := Load(filepath.Join("testdata", tc.file), Options{Hints: map[string]int64{"seq": 16}})
			require.NoError(t, err)
			assert.Empty(t, res.Notes)
			var syms []string
			for _, s := range g.Symbols {
				syms = append(syms, s.Name)
			}
			assert.Equal(t, tc.symbols, syms)
			for _, tn := range g.Tensors {
				for _, d := range tn.Shape {
					for _, s := range d.Symbols() {
						assert.Contains(t, tc.symbols, s, "tensor %q", tn.Name)
					}
				}
			}
			require.Len(t, g.Outputs, 1)
			assert.Equal(t, tc.output, shapeText(g.Outputs[0].Shape))
			_, err = plan.Make(g, plan.Options{})
			require.NoError(t, err)
		})
	}
}

// Shape subgraphs of tiny_bert fold away: no Shape, Gather on shapes,
// Concat of sizes or Constant reaches the program, and reshapes are views.
func TestBertShapeSubgraphsFold(t *testing.T) {
	g, _, err := Load("testdata/tiny_bert.onnx", Options{})
	require.NoError(t, err)
	kernels := map[string]int{}
	for _, op := range g.Ops {
		kernels[op.Kernel]++
	}
	for _, k := range []string{"Shape", "Concat", "Unsqueeze", "Reshape", "Constant", "Equal"} {
		if k == "Equal" {
			assert.Equal(t, 1, kernels[k], "only the attention mask comparison runs")
			continue
		}
		assert.Zero(t, kernels[k], "kernel %s", k)
	}
	views := 0
	for _, tn := range g.Tensors {
		if tn.IsView() {
			views++
		}
	}
	assert.Greater(t, views, 20)
	assert.Equal(t, "seq", g.Tensor("/Range_output_0").Shape[0].String())
}

func TestImportIsDeterministic(t *testing.T) {
	data, err := os.ReadFile("testdata/tiny_bert.onnx")
	require.NoError(t, err)
	a, err := Import("tiny_bert.onnx", data, Options{})
	require.NoError(t, err)
	b, err := Import("tiny_bert.onnx", data, Options{})
	require.NoError(t, err)
	assert.Equal(t, string(a.JSON), string(b.JSON))
	_, err = graph.Parse("x.json", a.JSON)
	require.NoError(t, err)
}

// Bad models get one clear error naming the place; malformed protobuf
// names the byte.
func TestImportErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/resnet18.onnx")
	require.NoError(t, err)
	_, err = Import("trunc.onnx", good[:len(good)-7], Options{})
	require.Error(t, err)
	assert.Regexp(t, `^trunc.onnx: byte \d+: malformed protobuf`, err.Error())

	_, err = Import("empty.onnx", nil, Options{})
	assert.ErrorContains(t, err, "no graph in the model")

	model := testModel(t, "LpNormalization", []string{"x"}, []string{"y"}, []any{2, 3}, nil)
	_, err = Import("lpnorm.onnx", model, Options{})
	assert.EqualError(t, err, `lpnorm.onnx: nodes[0] (op "LpNormalization", name "n0"): unsupported: no shape inference rule for this operator`)

	model = testModel(t, "If", []string{"x"}, []string{"y"}, []any{2, 3}, nil)
	_, err = Import("if.onnx", model, Options{})
	assert.ErrorContains(t, err, `nodes[0] (op "If", name "n0"): the condition "x" has dtype f32, want bool`)
}

// value_info disagreeing with inference is an error naming the node.
func TestImportChecksDeclaredShapes(t *testing.T) {
	model := testModel(t, "Relu", []string{"x"}, []string{"y"}, []any{2, 3}, []any{2, 4})
	_, err := Import("relu.onnx", model, Options{})
	assert.EqualError(t, err, `relu.onnx: nodes[0] (op "Relu", name "n0"): output "y" is declared with size 4 at dimension 1 but inference gives shape [2, 3]`)

	model = testModel(t, "Relu", []string{"x"}, []string{"y"}, []any{"n", 3}, []any{"n", 3})
	res, err := Import("relu.onnx", model, Options{})
	require.NoError(t, err)
	assert.Empty(t, res.Notes)
}

// A dynamic dimension without a name gets a generated symbol, reported.
func TestImportNamesUnnamedDims(t *testing.T) {
	model := testModel(t, "Relu", []string{"x"}, []string{"y"}, []any{nil, 3}, nil)
	res, err := Import("relu.onnx", model, Options{Hints: map[string]int64{"x_dim0": 5}})
	require.NoError(t, err)
	assert.Equal(t, []string{`symbol x_dim0 stands for the unnamed dynamic dimension 0 of input "x"`}, res.Notes)
	g, err := graph.Parse("relu.json", res.JSON)
	require.NoError(t, err)
	assert.Equal(t, "[x_dim0, 3]", shapeText(g.Tensor("y").Shape))
	assert.Equal(t, int64(5), g.Symbol("x_dim0").Hint)
}

// testModel encodes a one-node model over a float input x of shape inDims
// (ints, dim_param strings, nil for an unnamed dynamic size), with output
// y declared with outDims when given.
func testModel(t *testing.T, op string, ins, outs []string, inDims, outDims []any) []byte {
	t.Helper()
	bytesField := func(b []byte, num protowire.Number, v []byte) []byte {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, v)
	}
	var node []byte
	for _, in := range ins {
		node = bytesField(node, 1, []byte(in))
	}
	for _, out := range outs {
		node = bytesField(node, 2, []byte(out))
	}
	node = bytesField(node, 3, []byte("n0"))
	node = bytesField(node, 4, []byte(op))
	valueInfo := func(name string, ds []any) []byte {
		var dims []byte
		for _, d := range ds {
			var dim []byte
			switch d := d.(type) {
			case int:
				dim = protowire.AppendTag(dim, 1, protowire.VarintType)
				dim = protowire.AppendVarint(dim, uint64(d))
			case string:
				dim = bytesField(dim, 2, []byte(d))
			}
			dims = bytesField(dims, 1, dim)
		}
		var tt []byte
		tt = protowire.AppendTag(tt, 1, protowire.VarintType)
		tt = protowire.AppendVarint(tt, 1)
		tt = bytesField(tt, 2, dims)
		typ := bytesField(nil, 1, tt)
		return bytesField(bytesField(nil, 1, []byte(name)), 2, typ)
	}
	var g []byte
	g = bytesField(g, 1, node)
	g = bytesField(g, 2, []byte("g"))
	g = bytesField(g, 11, valueInfo("x", inDims))
	if outDims != nil {
		g = bytesField(g, 12, valueInfo("y", outDims))
	}
	var opset []byte
	opset = protowire.AppendTag(opset, 2, protowire.VarintType)
	opset = protowire.AppendVarint(opset, 17)
	var m []byte
	m = protowire.AppendTag(m, 1, protowire.VarintType)
	m = protowire.AppendVarint(m, 8)
	m = bytesField(m, 7, g)
	m = bytesField(m, 8, opset)
	return m
}

// Elementwise kernels may write over their inputs; others may not.
func TestImportMarksElementwiseKernels(t *testing.T) {
	g, _, err := Load("testdata/tiny_bert.onnx", Options{})
	require.NoError(t, err)
	assert.True(t, g.MayAlias("Add", 0, 0))
	assert.True(t, g.MayAlias("Add", 0, 1))
	assert.True(t, g.MayAlias("Erf", 0, 0))
	assert.False(t, g.MayAlias("Erf", 0, 1))
	assert.False(t, g.MayAlias("MatMul", 0, 0))
	assert.False(t, g.MayAlias("Softmax", 0, 0))
}
