package graph

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wrapgen/wrapgen/graph/expr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJSONRoundTrip writes real and hand-made graphs and reads them back:
// the graph read is the graph written (the same document again, the same
// tensors and ops).
func TestJSONRoundTrip(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	require.NoError(t, err)
	files = append(files, "../examples/mlp/mlp.json", "../examples/rnn/rnn.json", "../examples/onnxcnn/cnn.json")
	require.NotEmpty(t, files)
	docs := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		docs[f] = data
	}
	docs["every field"] = []byte(`{"name": "all \"of\" it",
 "symbols": {"n": {"hint": 4, "min": 2, "max": 64}, "k": {"bound": "3*n"}},
 "tensors": {
  "x": {"dtype": "f32", "shape": ["n", 3], "device": "cuda:0"},
  "c": {"dtype": "f32", "shape": [3], "data": [1.5, "nan", -0.25]},
  "w": {"dtype": "f16", "shape": [3, 3]},
  "h": {"dtype": "f32", "shape": ["n", 3], "strides": [1, "n"], "device": "cuda:0"},
  "hv": {"view_of": "h", "shape": [3], "offset": "n"},
  "y": {"dtype": "i64", "shape": [2, "k"]},
  "y.count": {"dtype": "i64", "shape": []},
  "z": {"dtype": "f32", "shape": ["n", 3], "device": "cuda:0"}
 },
 "inputs": ["x"], "params": ["w"], "outputs": ["z", "y"],
 "ops": [
  {"kernel": "k1", "inputs": ["x", "c", "w"], "outputs": ["h"], "attrs": {"f": 2.0, "g": 1e-300, "i": 3, "b": true, "s": "s", "l": [1, {"expr": "n+1"}], "e": {"expr": "n//2"}}},
  {"kernel": "NonZero", "inputs": ["hv"], "outputs": ["y", "y.count"], "sets": {"k": "y.count"}},
  {"loop": {"count": "n", "body": [{"kernel": "step", "inputs": ["h"], "outputs": [], "mutates": ["hv"]}]}},
  {"kernel": "relu", "inputs": ["h"], "outputs": ["z"], "inplace": {"z": "h"}}
 ],
 "kernels": {"relu": {"may_alias": [[0, 0]]}, "FusedConv": {"fuse": true, "may_alias": [[0, 3]]}}}`)
	for name, data := range docs {
		t.Run(name, func(t *testing.T) {
			g, err := Parse(name, data)
			require.NoError(t, err)
			out, err := g.JSON()
			require.NoError(t, err)
			back, err := Parse(name, out)
			require.NoError(t, err, "%s", out)
			again, err := back.JSON()
			require.NoError(t, err)
			assert.Equal(t, string(out), string(again))
			require.Len(t, back.Tensors, len(g.Tensors))
			for i, x := range g.Tensors {
				y := back.Tensors[i]
				assert.Equal(t, x.Name, y.Name)
				assert.Equal(t, x.DType, y.DType)
				assert.Equal(t, x.Device, y.Device)
				assert.Equal(t, x.Data, y.Data)
				assert.Equal(t, x.Offset.String(), y.Offset.String())
				assert.Equal(t, exprTexts(x.Strides), exprTexts(y.Strides))
				assert.Equal(t, exprTexts(x.Shape), exprTexts(y.Shape))
			}
			assert.Equal(t, len(g.Ops), len(back.Ops))
			assert.Equal(t, g.Traits, back.Traits)
			assert.Equal(t, len(g.Guards), len(back.Guards))
		})
	}
}

func exprTexts(es []expr.Expr) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.String())
	}
	return out
}
