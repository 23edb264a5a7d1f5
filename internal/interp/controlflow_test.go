package interp

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
)

// Loops and Scans import as format-v1 loops and give the numbers of an
// independent reference (testdata/controlflow/make.py): PyTorch for a
// scripted recurrence, numpy loops for a Loop whose carried values swap
// and whose scan output stacks, nested Loops (one over a symbolic size),
// a Scan with reversed directions and axes; and a scripted model whose Ifs
// test data (both branches run, one is chosen), with inputs that take
// each branch, including an empty one the other branch reduces.
func TestControlFlowModels(t *testing.T) {
	runModels(t, "testdata/controlflow", 6)
}

// runModels runs every model under dir (want of them), laid out as a node
// test, and compares its outputs with the expected ones.
func runModels(t *testing.T, dir string, want int) {
	models, err := filepath.Glob(filepath.Join(dir, "*", "model.onnx"))
	require.NoError(t, err)
	require.Len(t, models, want)
	for _, m := range models {
		dir := filepath.Dir(m)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			r := runNodeTest(dir, wgref.Call, true)
			require.True(t, r.imported, r.err)
			assert.Empty(t, r.err)
			assert.Empty(t, r.allocs)
		})
	}
}

// Sizes the data decides (testdata/runtime_sizes/make.py, numpy's
// numbers): scores above a threshold kept by NonZero, then TopK of
// min(3, kept), its K folded symbolically at import; and a Loop whose body
// sets a run-time size in every iteration.
func TestRunTimeSizeModels(t *testing.T) {
	runModels(t, "testdata/runtime_sizes", 2)
}
