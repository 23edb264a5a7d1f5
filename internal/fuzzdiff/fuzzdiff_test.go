package fuzzdiff

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
)

// TestGenerateIsDeterministic: a seed names one case; most cases are
// valid graphs (the rest write a view of their own input, which the
// validator must refuse).
func TestGenerateIsDeterministic(t *testing.T) {
	valid := 0
	for seed := uint64(0); seed < 300; seed++ {
		c := Generate(seed)
		assert.Equal(t, c.JSON, Generate(seed).JSON, "seed %d", seed)
		if _, err := graph.Parse("fuzz.json", c.JSON); err == nil {
			valid++
		} else {
			assert.Contains(t, err.Error(), "is a view of its own input", "seed %d", seed)
		}
	}
	assert.Greater(t, valid, 280)
}

// TestEvalFollowsMemory: the evaluator reads and writes through views as
// the storages hold them: a Relu written over the first row of t (a view)
// changes what a later reader of t sees; Assign replaces a tensor's value;
// Gemm's alpha, beta and transB and a broadcast bias; NaN through Relu.
func TestEvalFollowsMemory(t *testing.T) {
	src := `{"name": "g", "symbols": {"n": {"hint": 1, "min": 1, "max": 2}},
 "tensors": {"x": {"dtype": "f32", "shape": ["n", 2]}, "w": {"dtype": "f32", "shape": [2, 2]}, "c": {"dtype": "f32", "shape": [2]},
  "t": {"dtype": "f32", "shape": ["n", 2]}, "r": {"view_of": "t", "shape": [1, 2]}, "z": {"dtype": "f32", "shape": [1, 2]},
  "y": {"dtype": "f32", "shape": ["n", 2]}, "a": {"dtype": "f32", "shape": [1, 2]}},
 "inputs": ["x", "z", "a"], "params": ["w", "c"], "outputs": ["y", "t"],
 "ops": [{"kernel": "Gemm", "inputs": ["x", "w", "c"], "outputs": ["t"], "attrs": {"alpha": 2.0, "beta": 0.5, "transA": 0, "transB": 1}},
  {"kernel": "Relu", "inputs": ["z"], "outputs": ["r"]},
  {"kernel": "Tanh", "inputs": ["t"], "outputs": ["y"]},
  {"kernel": "Assign", "inputs": ["a"], "outputs": [], "mutates": ["r"]}]}`
	g, err := graph.Parse("g.json", []byte(src))
	require.NoError(t, err)
	nan := float32(math.NaN())
	c := Case{N: 2,
		Inputs: map[string][]float32{"x": {1, 2, 3, 4}, "z": {-1, nan}, "a": {7, 8}},
		Params: map[string][]float32{"w": {1, 0, 1, 1}, "c": {10, 20}}}
	out, err := Eval(g, c)
	require.NoError(t, err)
	// t = 2·x·wᵀ + 0.5·c: rows [2+5, 6+10] and [6+5, 14+10]; row 0 then
	// Relu(z) = [0, NaN], read by Tanh, and last replaced by a.
	y := out["y"].Data
	assert.Equal(t, 0.0, y[0])
	assert.True(t, math.IsNaN(y[1]))
	assert.InDelta(t, math.Tanh(11), y[2], 1e-12)
	assert.InDelta(t, math.Tanh(24), y[3], 1e-12)
	assert.Equal(t, []float64{7, 8, 11, 24}, out["t"].Data)
	// Magnitudes: |2·x·wᵀ| + |0.5·c| for row 1 of t.
	assert.Equal(t, []float64{7, 8, 11, 24}, out["t"].Mag)
}
