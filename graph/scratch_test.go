package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// Scratch whose size depends on a run-time size is planned at its bound,
// as tensors are, with a guard that the size the op finds fits.
func TestScratchAtRunTimeBounds(t *testing.T) {
	g, err := Parse("nz.json", []byte(`{
  "name": "nz",
  "symbols": {"n": {"hint": 4, "min": 1, "max": 64}, "k": {"bound": "3*n"}},
  "tensors": {
    "x": {"dtype": "f32", "shape": ["n", 3]},
    "y": {"dtype": "i64", "shape": [2, "k"]},
    "y.count": {"dtype": "i64", "shape": []},
    "z": {"dtype": "i64", "shape": [2, "k"]}
  },
  "inputs": ["x"],
  "outputs": ["z"],
  "ops": [
    {"kernel": "NonZero", "inputs": ["x"], "outputs": ["y", "y.count"], "sets": {"k": "y.count"}},
    {"kernel": "Neg", "inputs": ["y"], "outputs": ["z"]}
  ]
}`))
	require.NoError(t, err)
	guards := len(g.Guards)
	require.NoError(t, g.AddScratch(func(op *Op) (expr.Expr, bool) {
		if op.Kernel != "Neg" {
			return expr.Expr{}, false
		}
		return expr.Scale(op.Inputs[0].Shape[1], 8), true
	}))
	s := g.Ops[1].Scratch
	require.NotNil(t, s)
	assert.Equal(t, "8*k", s.Shape[0].String())
	assert.Equal(t, "24*n", s.StorageBytes().String())
	require.Len(t, g.Guards, guards+1)
	assert.Equal(t, "-8*k + 24*n", g.Guards[guards].Fact.String())
	assert.Contains(t, g.Guards[guards].What, "fits the storage planned at its run-time sizes' bounds")
}
