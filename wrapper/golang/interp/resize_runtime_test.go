package interp

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/onnx"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/golang/refscratch"
	"github.com/wrapgen/wrapgen/wrapper/golang/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/wgrt"
)

// torchvision's detection preprocessing (testdata/computed_sizes/make.py,
// detect_transform) resizes the image to floor(h * min(24 / min(h, w),
// 40 / max(h, w))), float32 arithmetic no integer expression folds: the
// Resize's output sizes are run-time sizes, bounded over height's and
// width's ranges (the max the import gives them for an exact float32
// cast, or a -max). Imported so, planned at the bounds, and run at four
// image sizes (one side longest, then the other, then both equal), each
// output matches PyTorch's, shape included.
func TestResizeToComputedSizes(t *testing.T) {
	for _, max := range []map[string]int64{nil, {"height": 64, "width": 64}} {
		t.Run(fmt.Sprint(max), func(t *testing.T) { runResizeToComputedSizes(t, max) })
	}
}

func runResizeToComputedSizes(t *testing.T, max map[string]int64) {
	dir := filepath.Join("testdata", "computed_sizes", "detect_transform")
	data, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	require.NoError(t, err)
	res, err := onnx.Import("detect_transform.onnx", data, onnx.Options{Max: max})
	require.NoError(t, err)
	g, err := graph.Parse("detect_transform.json", res.JSON)
	require.NoError(t, err)
	// Each resized side is at most 40 (the bound found is tight) and set
	// at run time by the Resize kernel.
	var resize *graph.Op
	graph.Walk(g.Ops, func(op *graph.Op, _ []*graph.Op) {
		if op.Kernel == "ResizeToSizes2" {
			resize = op
		}
	})
	require.NotNil(t, resize, "the Resize imports as ResizeToSizes2")
	for _, s := range g.Symbols {
		if s.RunTime() {
			assert.LessOrEqual(t, s.Max, int64(40), "symbol %s", s.Name)
		}
	}
	require.NoError(t, g.AddScratch(refscratch.Rule))
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	m := New(p)
	defer m.Close()
	sets, err := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
	require.NoError(t, err)
	require.Len(t, sets, 4)
	read := func(path string) wgrt.Tensor {
		pb, err := os.ReadFile(path)
		require.NoError(t, err)
		w, err := onnx.DecodeTensor(pb)
		require.NoError(t, err, path)
		return tensorOf(w)
	}
	for _, set := range sets {
		x := read(filepath.Join(set, "input_0.pb"))
		outs, err := m.Run(wgref.Call, nil, []wgrt.Tensor{x})
		require.NoError(t, err, set)
		require.Len(t, outs, 1)
		want := read(filepath.Join(set, "output_0.pb"))
		require.Equal(t, want.Shape, outs[0].Shape, "%s: input %v", set, x.Shape)
		require.Empty(t, Compare(outs[0], want, Tolerance{Rtol: 1e-4, Atol: 1e-5}), "%s: input %v", set, x.Shape)
	}
}

// A Loop whose carried value grows by one row per iteration (Keypoint
// R-CNN's keypoints, torch.cat([out, row[None]])) imports as a scan output
// of the row beside a carried value of fixed shape, and gives numpy's
// numbers (testdata/accumulate/make.py).
func TestAccumulatingLoop(t *testing.T) {
	runModels(t, "testdata/accumulate", 1)
}
