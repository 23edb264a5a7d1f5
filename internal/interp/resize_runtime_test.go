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
	"github.com/wrapgen/wrapgen/internal/refscratch"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
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
	g := runEverySet(t, filepath.Join("testdata", "computed_sizes", "detect_transform"), onnx.Options{Max: max}, 4)
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
}

// ConstantOfShape and Expand to a shape whose rows are floor(float32(h) *
// 1.7), which no integer expression folds (testdata/computed_shapes/
// make.py): run-time sizes, at most floor(100 * 1.7) with -max h=100; at
// three sizes the outputs are numpy's, shapes included.
func TestShapesComputedAtRunTime(t *testing.T) {
	g := runEverySet(t, filepath.Join("testdata", "computed_shapes", "fill_and_expand"), onnx.Options{Max: map[string]int64{"h": 100, "w": 100}}, 3)
	kernels := map[string]bool{}
	graph.Walk(g.Ops, func(op *graph.Op, _ []*graph.Op) { kernels[op.Kernel] = true })
	assert.True(t, kernels["ConstantOfShapeToSizes1"] && kernels["ExpandToSizes1"], "%v", kernels)
	for _, s := range g.Symbols {
		if s.RunTime() {
			assert.Equal(t, int64(169), s.Max, "1 + %s is at most 170", s.Name)
		}
	}
}

// runEverySet imports dir's model.onnx with opts, plans it once, and runs
// it on each of its want data sets (test_data_set_<k>), comparing every
// output, shape included, with the expected one (rtol 1e-4, atol 1e-5).
func runEverySet(t *testing.T, dir string, opts onnx.Options, want int) *graph.Graph {
	data, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	require.NoError(t, err)
	res, err := onnx.Import(filepath.Base(dir)+".onnx", data, opts)
	require.NoError(t, err)
	g, err := graph.Parse(filepath.Base(dir)+".json", res.JSON)
	require.NoError(t, err)
	require.NoError(t, g.AddScratch(refscratch.Rule))
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	m := New(p)
	defer m.Close()
	sets, err := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
	require.NoError(t, err)
	require.Len(t, sets, want)
	read := func(path string) wgrt.Tensor {
		pb, err := os.ReadFile(path)
		require.NoError(t, err)
		w, err := onnx.DecodeTensor(pb)
		require.NoError(t, err, path)
		return tensorOf(w)
	}
	for _, set := range sets {
		var inputs []wgrt.Tensor
		for i := range g.Inputs {
			inputs = append(inputs, read(filepath.Join(set, fmt.Sprintf("input_%d.pb", i))))
		}
		outs, err := m.Run(wgref.Call, nil, inputs)
		require.NoError(t, err, set)
		require.Len(t, outs, len(g.Outputs))
		for i, out := range outs {
			want := read(filepath.Join(set, fmt.Sprintf("output_%d.pb", i)))
			require.Equal(t, want.Shape, out.Shape, "%s: output %d, inputs %v", set, i, shapesOf(inputs))
			require.Empty(t, Compare(out, want, Tolerance{Rtol: 1e-4, Atol: 1e-5}), "%s: output %d, inputs %v", set, i, shapesOf(inputs))
		}
	}
	return g
}

// A Loop whose carried value grows by one row per iteration (Keypoint
// R-CNN's keypoints, torch.cat([out, row[None]])) imports as a scan output
// of the row beside a carried value of fixed shape, and gives numpy's
// numbers (testdata/accumulate/make.py).
func TestAccumulatingLoop(t *testing.T) {
	runModels(t, "testdata/accumulate", 1)
}
