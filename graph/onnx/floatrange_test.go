package onnx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
)

// arangeModel is torch.arange(start, seq, delta, dtype=torch.float): x's
// second dimension through Shape, Gather and Cast to float as the limit.
func arangeModel(start, delta float32) []byte {
	return bModel{
		inputs: []tInput{f32Input("x", 1, "seq")},
		inits: []bInit{{name: "one", i64: []int64{1}}, {name: "start", f32: []float32{start}},
			{name: "delta", f32: []float32{delta}}},
		nodes: []bNode{
			{op: "Shape", name: "shape", ins: []string{"x"}, outs: []string{"s"}},
			{op: "Gather", name: "len", ins: []string{"s", "one"}, outs: []string{"n"}, attrs: []bAttr{{"axis", int64(0)}}},
			{op: "Cast", name: "float", ins: []string{"n"}, outs: []string{"f"}, attrs: []bAttr{{"to", int64(1)}}},
			{op: "Range", name: "arange", ins: []string{"start", "f", "delta"}, outs: []string{"y"}},
		},
		outputs: []string{"y"},
	}.bytes()
}

// TestFloatRangeOfSize: a float Range up to a size imports when its start
// and step are whole (arange(seq) has seq elements, arange(1, seq, 2)
// (seq - 1 + 1)//2); a fractional step is refused, naming it.
func TestFloatRangeOfSize(t *testing.T) {
	for _, c := range []struct {
		start, delta float32
		length       string
	}{{0, 1, "seq"}, {1, 2, "seq//2"}} {
		res, err := Import("m.onnx", arangeModel(c.start, c.delta), Options{})
		require.NoError(t, err)
		g, err := graph.Parse("m.json", res.JSON)
		require.NoError(t, err)
		y := g.Outputs[0]
		assert.Equal(t, graph.DType("f32"), y.DType)
		require.Len(t, y.Shape, 1)
		assert.Equal(t, c.length, y.Shape[0].String(), "arange(%v, seq, %v)", c.start, c.delta)
	}
	_, err := Import("m.onnx", arangeModel(0, 0.5), Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "needs a whole start and delta (has [0] and [0.5])")
}
