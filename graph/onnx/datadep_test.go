package onnx

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
)

// A small model builder: graph inputs with element types and dims (ints
// or dim_params), nodes with int attributes, outputs by name (untyped) or
// as tInputs (declared).

type tNode struct {
	op       string
	ins      []string
	outs     []string
	ints     map[string]int64
	constI64 []int64 // a Constant node's value, an i64 tensor [len]
}

type tInput struct {
	name string
	elem uint64 // TensorProto.DataType: 1 f32, 7 i64, 9 bool
	dims []any
}

func chainModel(inputs []tInput, nodes []tNode, outputs ...any) []byte {
	bytesField := func(b []byte, num protowire.Number, v []byte) []byte {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, v)
	}
	varint := func(b []byte, num protowire.Number, v uint64) []byte {
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, v)
	}
	var g []byte
	for k, n := range nodes {
		var node []byte
		for _, in := range n.ins {
			node = bytesField(node, 1, []byte(in))
		}
		for _, out := range n.outs {
			node = bytesField(node, 2, []byte(out))
		}
		node = bytesField(node, 3, []byte("n"+string(rune('0'+k))))
		node = bytesField(node, 4, []byte(n.op))
		for name, v := range n.ints {
			a := bytesField(nil, 1, []byte(name))
			a = varint(a, 3, uint64(v))
			a = varint(a, 20, 2) // INT
			node = bytesField(node, 5, a)
		}
		if n.constI64 != nil {
			var tp []byte
			tp = varint(tp, 1, uint64(len(n.constI64)))
			tp = varint(tp, 2, 7) // INT64
			for _, v := range n.constI64 {
				tp = varint(tp, 7, uint64(v))
			}
			a := bytesField(nil, 1, []byte("value"))
			a = bytesField(a, 5, tp)
			a = varint(a, 20, 4) // TENSOR
			node = bytesField(node, 5, a)
		}
		g = bytesField(g, 1, node)
	}
	g = bytesField(g, 2, []byte("g"))
	valueInfo := func(in tInput) []byte {
		var dims []byte
		for _, d := range in.dims {
			var dim []byte
			switch d := d.(type) {
			case int:
				dim = varint(dim, 1, uint64(d))
			case string:
				dim = bytesField(dim, 2, []byte(d))
			}
			dims = bytesField(dims, 1, dim)
		}
		tt := varint(nil, 1, in.elem)
		tt = bytesField(tt, 2, dims)
		vi := bytesField(nil, 1, []byte(in.name))
		return bytesField(vi, 2, bytesField(nil, 1, tt))
	}
	for _, in := range inputs {
		g = bytesField(g, 11, valueInfo(in))
	}
	for _, out := range outputs {
		switch out := out.(type) {
		case string:
			g = bytesField(g, 12, bytesField(nil, 1, []byte(out)))
		case tInput:
			g = bytesField(g, 12, valueInfo(out))
		}
	}
	m := varint(nil, 1, 8)
	m = bytesField(m, 7, g)
	return bytesField(m, 8, varint(nil, 2, 17))
}

// Each op's run-time size gets its own symbol, its bound an expression of
// the given symbols: a size computed from another run-time size is bounded
// through that one's bound.
func TestRunTimeSizesChain(t *testing.T) {
	model := chainModel(
		[]tInput{{"x", 1, []any{"n", 3}}, {"c", 9, []any{"n"}}},
		[]tNode{
			{op: "Compress", ins: []string{"x", "c"}, outs: []string{"y"}, ints: map[string]int64{"axis": 0}},
			{op: "NonZero", ins: []string{"y"}, outs: []string{"z"}},
			{op: "Unique", ins: []string{"z"}, outs: []string{"u", "", "inv"}},
			{op: "NonZero", ins: []string{"x"}, outs: []string{"w"}},
		},
		"u", "inv", "w")
	g, res, err := Parse("chain.onnx", model, Options{})
	require.NoError(t, err)
	js := string(res.JSON)
	for _, want := range []string{
		`"compress_1": {"bound": "n"}`,
		`"nonzero_1": {"bound": "3*n"}`,
		`"unique_1": {"bound": "6*n"}`,
		`"nonzero_2": {"bound": "3*n"}`,
		`"y": {"dtype": "f32", "shape": ["compress_1", 3]}`,
		`"z": {"dtype": "i64", "shape": [2, "nonzero_1"]}`,
		`"u": {"dtype": "i64", "shape": ["unique_1"]}`,
		`"inv": {"dtype": "i64", "shape": [2*nonzero_1]}`,
		`{"kernel": "Compress", "inputs": ["x", "c"], "outputs": ["y", "y.count"], "sets": {"compress_1": "y.count"}, "attrs": {"axis": 0, "has_axis": true}}`,
		`{"kernel": "Unique", "inputs": ["z"], "outputs": ["u", "inv", "u.count"], "sets": {"unique_1": "u.count"}, "attrs": {"sorted": 1, "axis": 0, "has_axis": false, "outputs": [1, 0, 1, 0]}}`,
		`"w.count": {"dtype": "i64", "shape": []}`,
	} {
		assert.Contains(t, js, strings.ReplaceAll(want, `[2*nonzero_1]`, `["2*nonzero_1"]`))
	}
	assert.Contains(t, res.Notes, `symbol nonzero_1 is a size NonZero sets at run time from tensor data (output "z"), at most 3*n`)
	assert.True(t, g.Symbol("unique_1").RunTime())
}

// A count output's name is new: the model's own "y.count" keeps its name.
func TestRunTimeSizeCountNamed(t *testing.T) {
	model := chainModel(
		[]tInput{{"x", 1, []any{4}}},
		[]tNode{
			{op: "NonZero", ins: []string{"x"}, outs: []string{"y"}},
			{op: "Relu", ins: []string{"x"}, outs: []string{"y.count"}},
		},
		"y", "y.count")
	_, res, err := Parse("count.onnx", model, Options{})
	require.NoError(t, err)
	assert.Contains(t, string(res.JSON), `"sets": {"nonzero_1": "y.count_2"}`)
}

// A node with a run-time size is never folded, even with its input known
// at import time.
func TestRunTimeSizeNotFolded(t *testing.T) {
	var folded []string
	opts := Options{Fold: func(c *FoldCall) error {
		folded = append(folded, c.Kernel)
		return nil
	}}
	model := chainModel(
		[]tInput{{"x", 1, []any{2, 3}}},
		[]tNode{
			{op: "Shape", ins: []string{"x"}, outs: []string{"s"}},
			{op: "NonZero", ins: []string{"s"}, outs: []string{"y"}},
		},
		"y")
	g, _, err := Parse("fold.onnx", model, opts)
	require.NoError(t, err)
	assert.NotContains(t, folded, "NonZero")
	assert.Equal(t, "NonZero", g.Ops[len(g.Ops)-1].Kernel)
	assert.Equal(t, "[1, nonzero_1]", shapeText(g.Tensor("y").Shape))
}

// NonMaxSuppression's maximum per class, known at import time, bounds the
// selection and becomes an attribute; the thresholds given at run time
// stay kernel inputs.
func TestNonMaxSuppressionBound(t *testing.T) {
	model := chainModel(
		[]tInput{{"boxes", 1, []any{1, "n", 4}}, {"scores", 1, []any{1, 3, "n"}}, {"iou", 1, []any{1}}},
		[]tNode{
			{op: "Constant", outs: []string{"most"}, constI64: []int64{2}},
			{op: "NonMaxSuppression", ins: []string{"boxes", "scores", "most", "iou"}, outs: []string{"sel"}, ints: map[string]int64{"center_point_box": 1}},
		},
		"sel")
	_, res, err := Parse("nms.onnx", model, Options{})
	require.NoError(t, err)
	js := string(res.JSON)
	assert.Contains(t, js, `"nonmaxsuppression_1": {"bound": "3*min(2, n)"}`)
	assert.Contains(t, js, `{"kernel": "NonMaxSuppression", "inputs": ["boxes", "scores", "iou"], "outputs": ["sel", "sel.count"], "sets": {"nonmaxsuppression_1": "sel.count"}, `+
		`"attrs": {"center_point_box": 1, "max_output_boxes_per_class": 2, "max_output_boxes_per_class_from_input": false, "iou_threshold": 0.0, "iou_threshold_from_input": true, `+
		`"score_threshold": 0.0, "score_threshold_from_input": false, "has_score_threshold": false}}`)
}

// What a file declares for a size set by the data (the exporter's example
// size) is no check: it holds for the data it was exported with only.
func TestRunTimeSizeDeclaredShapeIgnored(t *testing.T) {
	x := []tInput{{"x", 1, []any{2, 3}}}
	nonZero := []tNode{{op: "NonZero", ins: []string{"x"}, outs: []string{"y"}}}
	_, err := Import("nonzero.onnx", chainModel(x, nonZero, tInput{"y", 7, []any{2, 4}}), Options{})
	require.NoError(t, err)
	_, err = Import("nonzero.onnx", chainModel(x, nonZero, tInput{"y", 7, []any{3, 4}}), Options{})
	assert.ErrorContains(t, err, `output "y" is declared with size 3 at dimension 0`)
}
