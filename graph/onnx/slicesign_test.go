package onnx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// sliceEndModel slices x [n] from 0 to -(8 - n%8), the remainder written
// out as n - 8*(n//8) as Conv-TasNet's export does (y[..., :-(8 - n % 8)]).
func sliceEndModel(end []tNode) []byte {
	nodes := []tNode{
		{op: "Shape", ins: []string{"x"}, outs: []string{"s"}},
		{op: "Constant", outs: []string{"eight"}, constI64: []int64{8}},
		{op: "Constant", outs: []string{"zero"}, constI64: []int64{0}},
		{op: "Div", ins: []string{"s", "eight"}, outs: []string{"q"}},
		{op: "Mul", ins: []string{"q", "eight"}, outs: []string{"q8"}},
		{op: "Sub", ins: []string{"s", "q8"}, outs: []string{"r"}},
	}
	nodes = append(nodes, end...)
	nodes = append(nodes, tNode{op: "Slice", ins: []string{"x", "zero", "end", "zero"}, outs: []string{"y"}})
	return chainModel([]tInput{{"x", 1, []any{"n"}}}, nodes, "y")
}

// A symbolic slice end proven negative over the symbol's whole range is
// counted from the end, as ONNX reads it; the size found is checked against
// Python's slicing at every n of a small range.
func TestSliceEndProvenNegative(t *testing.T) {
	model := sliceEndModel([]tNode{
		{op: "Sub", ins: []string{"eight", "r"}, outs: []string{"pad"}},
		{op: "Neg", ins: []string{"pad"}, outs: []string{"end"}},
	})
	g, _, err := Parse("tasnet_slice.onnx", model, Options{})
	require.NoError(t, err)
	size := g.Tensor("y").Shape[0]
	for n := int64(0); n <= 100; n++ {
		got, err := size.Eval(expr.Env{"n": n})
		require.NoError(t, err)
		end := -(8 - n%8)
		want := max(n+end, 0) // Python's len(range(n)[:end]) for end < 0
		assert.Equal(t, want, got, "n=%d: %s", n, size)
	}
}

// A symbolic end whose sign the range does not decide is refused with the
// way out; a -max that makes the range small lets every value be tried.
func TestSliceEndSignUndecided(t *testing.T) {
	model := sliceEndModel([]tNode{
		{op: "Constant", outs: []string{"three"}, constI64: []int64{3}},
		{op: "Sub", ins: []string{"r", "three"}, outs: []string{"end"}}, // n%8 - 3: either sign
	})
	_, _, err := Parse("undecided.onnx", model, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "slice bound n - 8*(n//8) - 3 may be negative or not")
	assert.Contains(t, err.Error(), "-min, -max")
	// With n in [3, 7] every value is tried: n%8 - 3 >= 0, an index from
	// the start.
	g, _, err := Parse("decided.onnx", model, Options{Min: map[string]int64{"n": 3}, Max: map[string]int64{"n": 7}})
	require.NoError(t, err)
	size := g.Tensor("y").Shape[0]
	for n := int64(3); n <= 7; n++ {
		got, err := size.Eval(expr.Env{"n": n})
		require.NoError(t, err)
		assert.Equal(t, n-3, got, "n=%d: %s", n, size)
	}
}
