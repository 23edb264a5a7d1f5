package onnx

import (
	"bytes"
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
