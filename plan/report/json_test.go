package report

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/plan"
)

// The -json field names are documented in the README and read by scripts:
// renaming a Go field must not rename them.
func TestJSONFieldNames(t *testing.T) {
	p, f := planOf(t, "../../examples/rnn/rnn.json", plan.Options{})
	data, err := json.Marshal(JSON(p, f))
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	assert.ElementsMatch(t, []string{"graph", "strategy", "winner", "memory_pool", "align", "symbols", "hints", "load_bytes",
		"declared_load_bytes", "aliased_ops", "mode_bound_bytes", "peak_bytes", "naive_bytes", "peak_over_load", "param_bytes", "constant_bytes",
		"guards", "range_worst", "range_worst_at", "range_geomean", "range_points", "steps", "pools", "buffers"}, keys(doc))
	pools := doc["pools"].([]any)
	require.Len(t, pools, len(p.Pools))
	assert.ElementsMatch(t, []string{"name", "device", "bytes", "size_expr", "begin", "end"}, keys(pools[0].(map[string]any)))
	buffers := doc["buffers"].([]any)
	require.Len(t, buffers, len(p.Buffers))
	for i, b := range buffers {
		m := b.(map[string]any)
		assert.ElementsMatch(t, []string{"tensor", "names", "pool", "offset", "bytes", "offset_expr", "size_expr", "begin", "end", "output"}, keys(m))
		var names []string
		for _, n := range m["names"].([]any) {
			names = append(names, n.(string))
		}
		assert.Equal(t, p.Buffers[i].TensorNames(), names, "every tensor sharing the storage, the owner first")
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
