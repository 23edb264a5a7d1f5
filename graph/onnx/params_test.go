package onnx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
)

// A model exported with its weights inside: the initializers become params
// (named as in the model, their contents the Result's weights, in the
// params' order), small constants inline data, and the inputs are only the
// data that changes per call.
func TestInitializersBecomeParams(t *testing.T) {
	g, res, err := Load("../../examples/tinybert/tinybert.onnx", Options{})
	require.NoError(t, err)
	var inputs []string
	for _, x := range g.Inputs {
		inputs = append(inputs, x.Name)
	}
	assert.Equal(t, []string{"input_ids", "attention_mask"}, inputs)
	require.NotEmpty(t, g.Params)
	require.Len(t, res.Weights, len(g.Params))
	for i, p := range g.Params {
		w := res.Weights[i]
		assert.Equal(t, p.Name, w.Name)
		assert.Equal(t, p.DType, w.DType)
		n, _ := p.StorageBytes().IsConst()
		assert.Equal(t, n, int64(len(w.Data)), p.Name)
	}
	assert.Contains(t, paramNames(g), "tok.weight")
	require.NotEmpty(t, g.Constants, "shape scalars and the mask's -10000 are inline")
	for _, c := range g.Constants {
		assert.LessOrEqual(t, len(c.Data), InlineLimit, c.Name)
	}
}

func paramNames(g *graph.Graph) []string {
	var out []string
	for _, p := range g.Params {
		out = append(out, p.Name)
	}
	return out
}

// Options.Params turns weight inputs into params (import -params), checked
// against the model's declared types.
func TestParamsOptionMakesWeightInputsParams(t *testing.T) {
	g, _, err := Load("testdata/tiny_bert.onnx", Options{})
	require.NoError(t, err)
	ps := map[string]Weight{}
	for _, x := range g.Inputs {
		if x.Name == "input_ids" || x.Name == "attention_mask" {
			continue
		}
		shape := make([]int64, len(x.Shape))
		n := x.DType.Size()
		for i, d := range x.Shape {
			shape[i], _ = d.IsConst()
			n *= shape[i]
		}
		ps[x.Name] = Weight{Name: x.Name, DType: x.DType, Shape: shape, Data: make([]byte, n)}
	}
	g2, res, err := Load("testdata/tiny_bert.onnx", Options{Params: ps})
	require.NoError(t, err)
	require.Len(t, g2.Inputs, 2)
	assert.Len(t, g2.Params, len(ps))
	assert.Len(t, res.Weights, len(ps), "-weights writes exactly the params")

	for name, w := range ps {
		w.DType = "f64"
		w.Data = make([]byte, len(w.Data)*2)
		ps[name] = w
		_, _, err = Load("testdata/tiny_bert.onnx", Options{Params: ps})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "the params file gives it dtype f64, the model declares f32")
		assert.Contains(t, err.Error(), name)
		break
	}
}
