package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outputViewGraph is a Gemm whose output v is a view of its own C; kernels
// is the graph's "kernels" object ("" for none).
func outputViewGraph(view, kernels string) string {
	src := `{"name": "g", "tensors": {
  "a": {"dtype": "f32", "shape": [4, 4]}, "b": {"dtype": "f32", "shape": [4, 4]}, "z": {"dtype": "f32", "shape": [4, 4]},
  "c": {"dtype": "f32", "shape": [4, 4]}, "v": ` + view + `},
 "inputs": ["a", "b", "z"], "outputs": ["c"],
 "ops": [{"kernel": "Relu", "inputs": ["z"], "outputs": ["c"]},
  {"kernel": "Gemm", "inputs": ["a", "b", "c"], "outputs": ["v"]}]`
	if kernels != "" {
		src += `, "kernels": ` + kernels
	}
	return src + "}"
}

// TestOutputViewsOwnInput: an op writing into a view of one of its own
// inputs is refused, naming the op and both tensors, unless the kernel
// declares the pair in its may_alias and the view is exactly the input.
func TestOutputViewsOwnInput(t *testing.T) {
	whole := `{"view_of": "c", "shape": [4, 4]}`
	_, err := Parse("g.json", []byte(outputViewGraph(whole, "")))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `g.json`)
	assert.Contains(t, err.Error(), `ops[1] (kernel "Gemm")`)
	assert.Contains(t, err.Error(), `output "v" is a view of its own input "c"`)

	declared := `{"Gemm": {"may_alias": [[0, 2]]}}`
	_, err = Parse("g.json", []byte(outputViewGraph(whole, declared)))
	assert.NoError(t, err, "declared, and exactly C's memory")

	for _, view := range []string{
		`{"view_of": "c", "shape": [4, 4], "strides": [1, 4]}`,
		`{"view_of": "c", "shape": [2, 4], "offset": 8}`,
	} {
		_, err = Parse("g.json", []byte(outputViewGraph(view, declared)))
		require.Error(t, err, view)
		assert.Contains(t, err.Error(), `output "v" is a view of its own input "c"`, view)
	}
}
