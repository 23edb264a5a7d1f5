package onnx

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/wrapgen/wrapgen/graph"
)

// Distinct dim_params stay distinct symbols however they are spelled, and
// names that expressions reserve are mangled; the mapping is reported.
func TestDimParamsStayDistinct(t *testing.T) {
	data := testModel(t, "Relu", []string{"x"}, []string{"y"}, []any{"a-b", "a_b", "min"}, nil)
	g, res, err := Parse("m.onnx", data, Options{})
	require.NoError(t, err)
	var names []string
	for _, s := range g.Symbols {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"a_b_2", "a_b", "min_"}, names, "a-b cannot take a_b, which the model names itself")
	assert.Contains(t, res.Notes, `symbol a_b_2 stands for dim_param "a-b"`)
	assert.Contains(t, res.Notes, `symbol min_ stands for dim_param "min"`)
}

// A dimension too large to plan, or an opset newer than the importer
// knows, is the model's error with its place, not a wrapgen bug.
func TestModelLimitsAreTheModelsErrors(t *testing.T) {
	_, _, err := Parse("m.onnx", testModel(t, "Relu", []string{"x"}, []string{"y"}, []any{1 << 50}, nil), Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `m.onnx: graph.input[0] ("x"): dimension 0 is 1125899906842624, beyond the 1099511627776 wrapgen plans for`)
	assert.NotContains(t, err.Error(), "wrapgen bug")
	var list graph.ErrorList
	assert.ErrorAs(t, err, &list)

	data := testModel(t, "Relu", []string{"x"}, []string{"y"}, []any{2}, nil)
	// testModel imports opset 17: make it 99.
	old := protowire.AppendVarint(protowire.AppendTag(nil, 2, protowire.VarintType), 17)
	new := protowire.AppendVarint(protowire.AppendTag(nil, 2, protowire.VarintType), 99)
	i := bytes.LastIndex(data, old)
	require.GreaterOrEqual(t, i, 0)
	data = append(append(append([]byte(nil), data[:i]...), new...), data[i+len(old):]...)
	_, _, err = Parse("m.onnx", data, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "opset 99 is newer than the importer knows (up to 18)")
}

// An attribute the operator does not have at the model's opset is refused
// (as onnx.checker refuses it), never dropped: ReduceSum's axes became an
// input at opset 13, and ignoring an axes attribute at opset 17 would
// reduce over every axis.
func TestAttributeNotInTheOpsetRefused(t *testing.T) {
	field := func(b []byte, num protowire.Number, v []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
	}
	varint := func(b []byte, num protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
	}
	// A model y = op(x) with x f32 [2, 3], an int-list attribute [1].
	model := func(op, attrName string, opset uint64) []byte {
		attr := field(nil, 1, []byte(attrName))
		attr = varint(attr, 8, 1)  // ints: [1]
		attr = varint(attr, 20, 7) // type: INTS
		node := field(field(field(nil, 1, []byte("x")), 2, []byte("y")), 4, []byte(op))
		node = field(node, 5, attr)
		dims := field(nil, 1, varint(nil, 1, 2))
		dims = field(dims, 1, varint(nil, 1, 3))
		tt := field(varint(nil, 1, 1), 2, dims)
		input := field(field(nil, 1, []byte("x")), 2, field(nil, 1, tt))
		g := field(field(field(nil, 1, node), 2, []byte("g")), 11, input)
		g = field(g, 12, field(nil, 1, []byte("y")))
		m := varint(nil, 1, 8)
		m = field(m, 7, g)
		return field(m, 8, varint(nil, 2, opset))
	}
	for _, tc := range []struct {
		op, attr string
		opset    uint64
		want     string // "" when the model imports
	}{
		{"ReduceSum", "axes", 17, `nodes[0] (op "ReduceSum", name ""): attribute "axes" is not one of ReduceSum's at opset 17 (version 13 has attributes keepdims, noop_with_empty_axes)`},
		{"ReduceSum", "axes", 11, ""},
		{"Relu", "alpha", 17, `attribute "alpha" is not one of Relu's at opset 17 (version 14 has no attributes)`},
		{"ReduceMean", "axes", 18, `attribute "axes" is not one of ReduceMean's at opset 18 (version 18 has attributes keepdims, noop_with_empty_axes)`},
	} {
		_, _, err := Parse("m.onnx", model(tc.op, tc.attr, tc.opset), Options{})
		if tc.want == "" {
			assert.NoError(t, err, "%s %s at %d", tc.op, tc.attr, tc.opset)
			continue
		}
		assert.ErrorContains(t, err, tc.want)
	}
}

// Every refusal of a model is reported at once; a node that depends on a
// refused one is skipped without an error of its own.
func TestEveryRefusalReported(t *testing.T) {
	field := func(b []byte, num protowire.Number, v []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
	}
	varint := func(b []byte, num protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
	}
	node := func(in, out, op string) []byte {
		return field(field(field(nil, 1, []byte(in)), 2, []byte(out)), 4, []byte(op))
	}
	dims := field(nil, 1, varint(nil, 1, 3))
	dims = field(dims, 1, varint(nil, 1, 3))
	tt := field(varint(nil, 1, 1), 2, dims)
	input := field(field(nil, 1, []byte("x")), 2, field(nil, 1, tt))
	var g []byte
	for _, n := range [][3]string{{"x", "a", "TfIdfVectorizer"}, {"a", "b", "Relu"}, {"x", "c", "TfIdfVectorizer"}, {"x", "d", "Relu"}} {
		g = field(g, 1, node(n[0], n[1], n[2]))
	}
	g = field(field(g, 2, []byte("g")), 11, input)
	for _, out := range []string{"b", "c", "d"} {
		g = field(g, 12, field(nil, 1, []byte(out)))
	}
	m := field(field(varint(nil, 1, 8), 7, g), 8, varint(nil, 2, 17))
	_, _, err := Parse("m.onnx", m, Options{})
	var list graph.ErrorList
	require.ErrorAs(t, err, &list)
	require.Len(t, list, 2, "%v", err)
	assert.Contains(t, list[0].Error(), `nodes[0] (op "TfIdfVectorizer", name "")`)
	assert.Contains(t, list[1].Error(), `nodes[2] (op "TfIdfVectorizer", name "")`)
}

// A convolution stack over raw audio (wav2vec2's feature extractor) only
// has positive sizes from 400 samples on: the importer derives that
// minimum and says so; a smaller -min is refused at the convolution that
// needs more.
func TestSymbolMinimumFromTheModel(t *testing.T) {
	data, err := os.ReadFile("testdata/conv_stack.onnx")
	require.NoError(t, err)
	g, res, err := Parse("conv_stack.onnx", data, Options{})
	require.NoError(t, err)
	s := g.Symbol("samples")
	require.NotNil(t, s)
	assert.Equal(t, int64(400), s.Min)
	assert.Equal(t, int64(400), s.Hint)
	assert.Contains(t, res.Notes, "symbol samples: min 400, so that output size ((samples//5//2//2//2//2 + 1)//2 + 1)//2 - 1 is at least 1 (-min samples=N sets it)")

	g, _, err = Parse("conv_stack.onnx", data, Options{Min: map[string]int64{"samples": 1000}, Hints: map[string]int64{"samples": 16000}})
	require.NoError(t, err)
	assert.Equal(t, int64(1000), g.Symbol("samples").Min)
	assert.Equal(t, int64(16000), g.Symbol("samples").Hint)

	_, _, err = Parse("conv_stack.onnx", data, Options{Min: map[string]int64{"samples": 100}})
	assert.ErrorContains(t, err, `(op "Conv", name "/net/net.8/Conv"): unsupported: output size samples//5//2//2//2//2 - 1 may be below 1`)
}

// A scripted model's If on a size known at import imports as the branch
// taken, its output a view of the branch's.
func TestIfWithKnownConditionInlined(t *testing.T) {
	data, err := os.ReadFile("testdata/scripted_if.onnx")
	require.NoError(t, err)
	g, _, err := Parse("scripted_if.onnx", data, Options{})
	require.NoError(t, err)
	var kernels []string
	graph.Walk(g.Ops, func(op *graph.Op, _ []*graph.Op) { kernels = append(kernels, op.Kernel) })
	assert.Equal(t, []string{"Relu", "Add", "ReduceSum"}, kernels, "then_branch (size 6 > 4) taken")
	out := g.Tensor("/If_output_0")
	require.NotNil(t, out)
	assert.Equal(t, "/Add_output_0", out.ViewOf.Name)
}

// A node's inputs are checked against its operator's schema before its
// rule runs, which then reads its required inputs without checking them.
func TestInputsCheckedAgainstTheSchema(t *testing.T) {
	for _, tc := range []struct {
		op   string
		ins  []string
		want string // "" when the model imports
	}{
		{"Gather", []string{"x"}, `nodes[0] (op "Gather", name "n0"): takes 2 inputs at opset 17, got 1`},
		{"Relu", []string{"x", "x"}, `takes 1 input at opset 17, got 2`},
		{"Clip", []string{"x", "x", "x", "x"}, `takes 1 to 3 inputs at opset 17, got 4`},
		{"Concat", nil, `takes at least 1 input at opset 17, got 0`},
		{"Gemm", []string{"x", ""}, `input 1 is required but its name is empty`},
		{"Concat", []string{"x", ""}, `unsupported: input 1 is omitted (its name is empty): wrapgen needs every input of a variadic operator`},
		{"Gelu", []string{"x", "x"}, `(op "Gelu", name "n0"): takes 1 input, got 2`},
		{"Clip", []string{"x", "", ""}, ""},
	} {
		_, err := Import("m.onnx", testModel(t, tc.op, tc.ins, []string{"y"}, []any{2, 3}, nil), Options{})
		if tc.want == "" {
			assert.NoError(t, err, "%s%q", tc.op, tc.ins)
			continue
		}
		assert.ErrorContains(t, err, tc.want, "%s%q", tc.op, tc.ins)
	}
}

// checkInputs knows how many inputs every rule's operator takes: from
// ONNX's schemas, or for an operator they do not list, unlistedInputs.
func TestEveryRuleKnowsItsInputs(t *testing.T) {
	for key := range rules {
		_, listed := opSchemas[key]
		_, unlisted := unlistedInputs[key]
		assert.True(t, listed != unlisted, "%s: listed in opSchemas %v, in unlistedInputs %v; want exactly one", key, listed, unlisted)
	}
}

// A symbol -min and -max pin to one value is that constant: a model
// exported with a size traced as a constant imports with the dynamic one
// pinned to it.
func TestFixedSymbolIsAConstant(t *testing.T) {
	data, err := os.ReadFile("testdata/conv_stack.onnx")
	require.NoError(t, err)
	g, res, err := Parse("conv_stack.onnx", data, Options{Min: map[string]int64{"samples": 16000}, Max: map[string]int64{"samples": 16000}})
	require.NoError(t, err)
	assert.Nil(t, g.Symbol("samples"))
	assert.Equal(t, "[batch 16000]", fmt.Sprint(g.Inputs[0].Shape))
	assert.Contains(t, res.Notes, "symbol samples is fixed to 16000 (-min and -max): its dimensions are constants")
}
