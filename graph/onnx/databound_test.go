package onnx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rangeOfMaxModel is torch.arange(torch.max(lengths)) for x [b, n] and
// lengths [b], the limit first passed through clamp (nodes between the
// ReduceMax and the Range), then mask = range < lengths[:, None], the
// padding mask, multiplied into x by use.
func rangeOfMaxModel(clamp []tNode, use []tNode, outs ...any) []byte {
	nodes := []tNode{
		{op: "Constant", outs: []string{"zero"}, constI64: []int64{0}},
		{op: "Constant", outs: []string{"one"}, constI64: []int64{1}},
		{op: "Shape", ins: []string{"x"}, outs: []string{"xs"}},
		{op: "ReduceMax", ins: []string{"lengths"}, outs: []string{"m"}, ints: map[string]int64{"keepdims": 1}},
	}
	nodes = append(nodes, clamp...)
	nodes = append(nodes,
		tNode{op: "Squeeze", ins: []string{"lim1"}, outs: []string{"lim"}},
		tNode{op: "Squeeze", ins: []string{"zero"}, outs: []string{"start"}},
		tNode{op: "Squeeze", ins: []string{"one"}, outs: []string{"delta"}},
		tNode{op: "Range", ins: []string{"start", "lim", "delta"}, outs: []string{"r"}},
		tNode{op: "Unsqueeze", ins: []string{"lengths", "one"}, outs: []string{"l2"}},
		tNode{op: "Less", ins: []string{"r", "l2"}, outs: []string{"mask"}},
	)
	nodes = append(nodes, use...)
	return chainModel([]tInput{{"x", 1, []any{"b", "n"}}, {"lengths", 7, []any{"b"}}}, nodes, outs...)
}

// A limit clamped by a size of the shapes (Min with x's frames) bounds the
// Range's length: a run-time size at most n.
func TestRangeOfDataBoundedByShape(t *testing.T) {
	model := rangeOfMaxModel([]tNode{
		{op: "Gather", ins: []string{"xs", "one"}, outs: []string{"frames"}},
		{op: "Min", ins: []string{"m", "frames"}, outs: []string{"lim1"}},
	}, nil, "mask")
	g, res, err := Parse("bounded.onnx", model, Options{})
	require.NoError(t, err)
	js := string(res.JSON)
	assert.Contains(t, js, `"range_1": {"bound": "n"}`)
	assert.Contains(t, js, `{"kernel": "Range", "inputs": ["lim"], "outputs": ["r", "r.count"], "sets": {"range_1": "r.count"}, "attrs": {"start": 0, "delta": 1, "exact": true}}`)
	assert.Equal(t, "[b, range_1]", shapeText(g.Tensor("mask").Shape))
	// A constant clamp (Clip's max) bounds it too, lowered by the start.
	model = rangeOfMaxModel([]tNode{
		{op: "Constant", outs: []string{"cap"}, constI64: []int64{40}},
		{op: "Squeeze", ins: []string{"cap"}, outs: []string{"cap0"}},
		{op: "Clip", ins: []string{"m", "", "cap0"}, outs: []string{"lim1"}},
	}, nil, "mask")
	_, res, err = Parse("clipped.onnx", model, Options{})
	require.NoError(t, err)
	assert.Contains(t, string(res.JSON), `"range_1": {"bound": 40}`)
}

// Nothing bounds the maximum of a graph input's values: the import says
// which size needs a bound and how to give one, and takes the one given.
func TestRangeOfDataUnbounded(t *testing.T) {
	model := rangeOfMaxModel([]tNode{{op: "Identity", ins: []string{"m"}, outs: []string{"lim1"}}}, nil, "mask")
	_, _, err := Parse("unbounded.onnx", model, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `op "Range"`)
	assert.Contains(t, err.Error(), `the length of Range, a size its limit "lim" sets at run time from tensor data, has no bound`)
	assert.Contains(t, err.Error(), `-max range_1=N`)
	_, res, err := Parse("unbounded.onnx", model, Options{Max: map[string]int64{"range_1": 64}})
	require.NoError(t, err)
	assert.Contains(t, string(res.JSON), `"range_1": {"bound": 64}`)
}

// The mask broadcast against x's frames n (at least 2) must have n
// columns for ONNX to run the model: the Range's length becomes n, given
// to the kernel, which checks it; no run-time size, no bound needed. With
// n possibly 1 a mask of any width broadcasts against it: not unified.
func TestRangeOfDataUnifiedByBroadcast(t *testing.T) {
	use := []tNode{
		{op: "Cast", ins: []string{"mask"}, outs: []string{"maskf"}, ints: map[string]int64{"to": 1}},
		{op: "Mul", ins: []string{"x", "maskf"}, outs: []string{"y"}},
		// The limit reused as a size (the mask's expand(b, max(lengths))).
		{op: "Concat", ins: []string{"zero", "lim1"}, outs: []string{"shape"}, ints: map[string]int64{"axis": 0}},
	}
	model := rangeOfMaxModel([]tNode{{op: "Identity", ins: []string{"m"}, outs: []string{"lim1"}}}, use, "y", "shape")
	g, res, err := Parse("unified.onnx", model, Options{Min: map[string]int64{"n": 2}})
	require.NoError(t, err)
	js := string(res.JSON)
	assert.NotContains(t, js, `range_1`)
	assert.Contains(t, js, `{"kernel": "Range", "inputs": ["lim"], "outputs": ["r", "r.count"], "attrs": {"start": 0, "delta": 1, "exact": true, "length": {"expr": "n"}}}`)
	assert.Equal(t, "[b, n]", shapeText(g.Tensor("y").Shape))
	assert.Contains(t, res.Notes, "symbol range_1, the length of a Range whose limit is computed from data, must equal n for the model's shapes to agree: it is n (the kernel refuses data that gives another length)")

	_, _, err = Parse("unified.onnx", model, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot broadcast size n with range_1 at dimension 1 (range_1 is the length of a Range whose limit is computed from data; with n at least 2 the shapes would require it to equal n: -min n=2)")
}

// A float limit, a limit and a start both from data, a negative delta:
// refused, saying what is imported.
func TestRangeOfDataRefused(t *testing.T) {
	model := chainModel([]tInput{{"lim", 1, []any{}}, {"s", 7, []any{}}, {"l", 7, []any{}}},
		[]tNode{
			{op: "Constant", outs: []string{"one"}, constI64: []int64{1}},
			{op: "Squeeze", ins: []string{"one"}, outs: []string{"d"}},
			{op: "Range", ins: []string{"s", "l", "d"}, outs: []string{"r"}},
		}, "r")
	_, _, err := Parse("start.onnx", model, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `input 0 "s" of Range is computed from tensor data at run time (wrapgen imports a Range whose limit only is)`)
}

// A bound survives widening casts and Cast to float of values it holds
// exactly, not a narrowing cast, which wraps: Min(max(lengths), frames)
// cast to i8 and back has no bound.
func TestRangeOfDataBoundThroughCasts(t *testing.T) {
	clamp := func(to ...int64) []tNode {
		nodes := []tNode{
			{op: "Gather", ins: []string{"xs", "one"}, outs: []string{"frames"}},
			{op: "Min", ins: []string{"m", "frames"}, outs: []string{"c0"}},
		}
		prev := "c0"
		for i, d := range to {
			next := "c" + string(rune('1'+i))
			nodes = append(nodes, tNode{op: "Cast", ins: []string{prev}, outs: []string{next}, ints: map[string]int64{"to": d}})
			prev = next
		}
		return append(nodes, tNode{op: "Identity", ins: []string{prev}, outs: []string{"lim1"}})
	}
	// i64 -> f32 -> i64 with frames at most 1000: the bound holds.
	_, res, err := Parse("widening.onnx", rangeOfMaxModel(clamp(1, 7), nil, "mask"), Options{Max: map[string]int64{"n": 1000}})
	require.NoError(t, err)
	assert.Contains(t, string(res.JSON), `"range_1": {"bound": "n"}`)
	// i64 -> i8 -> i64: none.
	_, _, err = Parse("narrowing.onnx", rangeOfMaxModel(clamp(3, 7), nil, "mask"), Options{})
	assert.ErrorContains(t, err, "-max range_1=N")
	// i64 -> f32 with frames unbounded: rounding may pass the bound.
	_, _, err = Parse("rounding.onnx", rangeOfMaxModel(clamp(1, 7), nil, "mask"), Options{})
	assert.ErrorContains(t, err, "-max range_1=N")
}
