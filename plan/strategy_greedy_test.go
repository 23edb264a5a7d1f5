package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// greedyChain has four intermediates whose sizes and live steps are easy to
// follow by hand (as TFLite Micro's greedy planner tests do):
//
//	a 4096 bytes, steps 1-3   b 1024 bytes, steps 2-3
//	c 2048 bytes, steps 3-5   d 1024 bytes, steps 4-5
//
// so a, b and c are live together at step 3 (7,168 bytes, the lower
// bound), and d is live only with c.
const greedyChain = `{"name": "chain", "symbols": {},
 "tensors": {
  "x": {"dtype": "f32", "shape": [1024]},
  "a": {"dtype": "f32", "shape": [1024]},
  "b": {"dtype": "f32", "shape": [256]},
  "c": {"dtype": "f32", "shape": [512]},
  "d": {"dtype": "f32", "shape": [256]},
  "y": {"dtype": "f32", "shape": [16]}},
 "inputs": ["x"], "outputs": ["y"],
 "ops": [
  {"kernel": "f", "inputs": ["x"], "outputs": ["a"]},
  {"kernel": "f", "inputs": ["a"], "outputs": ["b"]},
  {"kernel": "g", "inputs": ["a", "b"], "outputs": ["c"]},
  {"kernel": "f", "inputs": ["c"], "outputs": ["d"]},
  {"kernel": "g", "inputs": ["c", "d"], "outputs": ["y"]}]}`

// Largest first, each at the best-fitting gap among the storages live with
// it: a at 0; c above a; b above both; d, live only with c, in the 4,096
// bytes below c, at 0 (the smallest gap that fits, not the top).
func TestGreedyBySizeExactOffsets(t *testing.T) {
	p := mustPlan(t, greedyChain, Options{Strategy: "greedy-size"})
	want := map[string]struct {
		offset, begin, end int64
	}{
		"a": {0, 1, 4},
		"c": {4096, 3, 6},
		"b": {6144, 2, 4},
		"d": {0, 4, 6},
	}
	for name, w := range want {
		b := bufferOf(p, name)
		require.NotNil(t, b, name)
		off, ok := b.Offset.IsConst()
		require.True(t, ok, "%s: offset %s is not a constant", name, b.Offset)
		assert.Equal(t, w.offset, off, "%s's offset", name)
		assert.Equal(t, [2]int64{w.begin, w.end}, [2]int64{int64(b.Begin), int64(b.End)}, "%s's live steps [begin, end)", name)
	}
	for _, name := range []string{"b", "c", "d"} {
		assert.Same(t, bufferOf(p, "a").Pool, bufferOf(p, name).Pool, "%s shares a's pool", name)
	}
	size, ok := bufferOf(p, "a").Pool.Size.IsConst()
	require.True(t, ok)
	assert.Equal(t, int64(7168), size, "the pool is the lower bound: a, b and c live together")
}
