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
