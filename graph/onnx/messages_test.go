package onnx

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rangeModel is Range(start, limit, delta) of constant scalars, added to a
// graph input so that the model has one.
func rangeModel(start, limit, delta int64) []byte {
	return chainModel([]tInput{{"x", 7, []any{1}}}, []tNode{
		{op: "Constant", outs: []string{"s1"}, constI64: []int64{start}},
		{op: "Constant", outs: []string{"l1"}, constI64: []int64{limit}},
		{op: "Constant", outs: []string{"d1"}, constI64: []int64{delta}},
		{op: "Constant", outs: []string{"axes"}, constI64: []int64{0}},
		{op: "Squeeze", ins: []string{"s1", "axes"}, outs: []string{"s"}},
		{op: "Squeeze", ins: []string{"l1", "axes"}, outs: []string{"l"}},
		{op: "Squeeze", ins: []string{"d1", "axes"}, outs: []string{"d"}},
		{op: "Range", ins: []string{"s", "l", "d"}, outs: []string{"r"}},
		{op: "Add", ins: []string{"r", "x"}, outs: []string{"y"}},
	}, "y")
}

// A Range whose length does not fit in int64 (limit - start overflows) is
// refused saying so, not with a wrapped negative size.
func TestRangeLengthOverflow(t *testing.T) {
	for _, c := range []struct{ start, limit, delta int64 }{
		{-5, math.MaxInt64, 1},
		{math.MaxInt64, -5, -1},
		{math.MinInt64, math.MaxInt64, 3},
	} {
		_, _, err := Parse("range.onnx", rangeModel(c.start, c.limit, c.delta), Options{})
		require.Error(t, err, "%+v", c)
		assert.Contains(t, err.Error(), fmt.Sprintf("Range(start %d, limit %d, delta %d): its length", c.start, c.limit, c.delta))
		assert.Contains(t, err.Error(), "overflows int64", "%+v", c)
	}
	// A Range whose length fits is imported.
	g, _, err := Parse("range.onnx", rangeModel(-5, 5, 3), Options{})
	require.NoError(t, err)
	assert.Equal(t, "[4]", shapeText(g.Tensor("r").Shape))
}

// A default-domain opset of version 0 is refused as the invalid version it
// is, not as a model that imports no default-domain opset.
func TestOpsetVersionZero(t *testing.T) {
	model := rangeModel(0, 4, 1)
	tail := []byte{0x42, 2, 0x10, 17} // opset_import: {version: 17}
	require.Equal(t, tail, model[len(model)-len(tail):], "the builder's opset_import ends the model")
	zero := append(append([]byte{}, model[:len(model)-len(tail)]...), 0x42, 2, 0x10, 0)
	_, _, err := Parse("zero.onnx", zero, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "zero.onnx: opset_import: the default-domain opset has version 0, which is no ONNX opset (they start at 1)")
	assert.NotContains(t, err.Error(), "imports no default-domain opset")
}
