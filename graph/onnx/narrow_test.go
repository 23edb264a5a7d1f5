package onnx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
)

// poolConcat is x [n, 4, h] max-pooled by 2 (ceil mode off: h//2), upsampled
// back by a Resize of scale 2 ((h//2)*2) and concatenated with x along
// channels: the sizes agree exactly when h is even.
func poolConcat(upsample float32) []byte {
	return bModel{
		inputs: []tInput{f32Input("x", "n", 4, "h")},
		inits:  []bInit{{name: "scales", dims: []int64{3}, f32: []float32{1, 1, upsample}}},
		nodes: []bNode{
			{op: "MaxPool", name: "pool", ins: []string{"x"}, outs: []string{"p"}, attrs: []bAttr{{"kernel_shape", []int64{2}}, {"strides", []int64{2}}}},
			{op: "Resize", name: "up", ins: []string{"p", "", "scales"}, outs: []string{"u"}, attrs: []bAttr{{"mode", "nearest"}}},
			{op: "Concat", name: "skip", ins: []string{"u", "x"}, outs: []string{"y"}, attrs: []bAttr{{"axis", int64(1)}}},
		},
		outputs: []string{"y"},
	}.bytes()
}

// TestNarrowToMultiple: a Concat whose sizes agree only at even h imports
// with h taken as 2*h_div2, says so in a note naming the node, and keeps
// the range (-max h=101 gives h_div2 up to 50); a fact that holds at no
// multiple (upsampled by 3: 3*(h//2) against h) is still refused.
func TestNarrowToMultiple(t *testing.T) {
	res, err := Import("m.onnx", poolConcat(2), Options{Max: map[string]int64{"h": 101}})
	require.NoError(t, err)
	assert.Contains(t, res.Notes, `h must be a multiple of 2 (node "skip"): symbol h_div2 stands for h/2, and the wrapper refuses other sizes`)
	g, err := graph.Parse("m.json", res.JSON)
	require.NoError(t, err)
	var names []string
	for _, s := range g.Symbols {
		names = append(names, s.Name)
		if s.Name == "h_div2" {
			assert.Equal(t, int64(1), s.Min)
			assert.Equal(t, int64(50), s.Max)
		}
	}
	assert.Equal(t, []string{"n", "h_div2"}, names)
	assert.Equal(t, "2*h_div2", g.Inputs[0].Shape[2].String())
	assert.Equal(t, "n", g.Inputs[0].Shape[0].String())

	_, err = Import("m.onnx", poolConcat(3), Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `(op "Concat", name "skip"): input 1 has size h at dimension 2, input 0 has 3*(h//2)`)
}

// positionSlice adds x [1, seq, 4] to a [512, 4] position table sliced to
// the sequence length: min(512, seq) rows against seq.
func positionSlice() []byte {
	return bModel{
		inputs: []tInput{f32Input("x", 1, "seq", 4)},
		inits: []bInit{{name: "pos", dims: []int64{512, 4}, f32: make([]float32, 2048)}, {name: "zero", i64: []int64{0}},
			{name: "one", i64: []int64{1}}, {name: "axis0", i64: []int64{0}}},
		nodes: []bNode{
			{op: "Shape", name: "shape", ins: []string{"x"}, outs: []string{"s"}},
			{op: "Gather", name: "len", ins: []string{"s", "one"}, outs: []string{"n"}, attrs: []bAttr{{"axis", int64(0)}}},
			{op: "Unsqueeze", name: "n1", ins: []string{"n", "axis0"}, outs: []string{"end"}},
			{op: "Slice", name: "rows", ins: []string{"pos", "zero", "end", "axis0"}, outs: []string{"p"}},
			{op: "Add", name: "add", ins: []string{"x", "p"}, outs: []string{"y"}},
		},
		outputs: []string{"y"},
	}.bytes()
}

// TestMaxHint: sizes that agree up to a value of the symbol and not beyond
// are refused with the -max that makes them agree; with it, the model
// imports.
func TestMaxHint(t *testing.T) {
	_, err := Import("m.onnx", positionSlice(), Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "give -max seq=512")
	_, err = Import("m.onnx", positionSlice(), Options{Max: map[string]int64{"seq": 512}})
	require.NoError(t, err)
}
