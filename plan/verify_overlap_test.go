package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
)

// siblingViews is a graph whose op k reads view u of t and writes view w
// of t; offsets in elements.
func siblingViews(uOff, wOff string) string {
	return `{"name": "g", "symbols": {"n": {"hint": 4, "min": 1, "max": 64}}, "tensors": {
  "x": {"dtype": "f32", "shape": [16]}, "t": {"dtype": "f32", "shape": [16]},
  "u": {"view_of": "t", "shape": [8], "offset": ` + uOff + `}, "w": {"view_of": "t", "shape": [4], "offset": ` + wOff + `},
  "y": {"dtype": "f32", "shape": [16]}},
 "inputs": ["x"], "outputs": ["y"],
 "ops": [{"kernel": "fill", "inputs": ["x"], "outputs": ["t"]},
  {"kernel": "k", "inputs": ["u"], "outputs": ["w"]},
  {"kernel": "copy", "inputs": ["t"], "outputs": ["y"]}]}`
}

// TestVerifyOpOverlap: an op writing a view of a storage over the bytes
// of the view it reads of the same storage is refused by the verifier
// (the sentinel kernels of selftest catch it only when the wrapper runs);
// disjoint views of one storage, and a pair the kernel's may_alias
// allows, are not.
func TestVerifyOpOverlap(t *testing.T) {
	planErr := func(src string) error {
		g, err := graph.Parse("g.json", []byte(src))
		require.NoError(t, err)
		_, err = Make(g, Options{})
		return err
	}
	err := planErr(siblingViews("0", "4"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `output w shares memory with its input u`)

	assert.NoError(t, planErr(siblingViews("0", "8")), "disjoint views")
	allowed := siblingViews("0", "4")
	allowed = allowed[:len(allowed)-1] + `, "kernels": {"k": {"may_alias": [[0, 0]]}}}`
	assert.NoError(t, planErr(allowed), "declared may_alias")
}
