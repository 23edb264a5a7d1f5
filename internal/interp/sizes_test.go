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
	"github.com/wrapgen/wrapgen/internal/onnxtest"
	"github.com/wrapgen/wrapgen/internal/refscratch"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// PyTorch models whose sizes ONNX computes in ways the importer reasons
// about (testdata/computed_sizes/make.py, PyTorch's numbers), imported once
// without pinned sizes and run at each data set's size:
//   - convtasnet: torchaudio's Conv-TasNet slices y[..., :-(8 - n % 8)],
//     an end proven negative, counted from the end; three lengths.
//   - conformer: torchaudio's Conformer with its padding mask from
//     torch.arange(torch.max(lengths)), a Range whose limit is data, its
//     length the frames the attention reshapes the mask to; two lengths,
//     the longest sequence first and last.
//   - interpolate, interpolate_recompute: interpolate(scale_factor=1.5)
//     over a dynamic height and width, its output size with
//     recompute_scale_factor floor(float(h) * 1.5) in float32 arithmetic,
//     folded to (3*h)//2; three sizes.
func TestComputedSizeModels(t *testing.T) {
	for name, sets := range map[string]int{"convtasnet": 3, "conformer": 2, "interpolate": 3, "interpolate_recompute": 3} {
		t.Run(name, func(t *testing.T) {
			runAtEverySize(t, filepath.Join("testdata", "computed_sizes", name), sets)
		})
	}
}

// The conformer's mask must have the frames' width: lengths whose maximum
// is not the frames (which ONNX Runtime would fail at the mask's reshape)
// are refused by the Range kernel, naming both.
func TestConformerLengthsDisagree(t *testing.T) {
	m, g, _ := loadModel(t, filepath.Join("testdata", "computed_sizes", "conformer"))
	defer m.Close()
	x := wgrt.New(wgrt.F32, 2, 9, 8)
	lengths := wgrt.View([]int64{6, 4}, 2)
	require.Len(t, g.Inputs, 2)
	_, err := m.Run(wgref.Call, nil, []wgrt.Tensor{x, lengths})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the limit 6 gives 6 elements, but the model's shapes need 9")
}

// loadModel imports dir's model.onnx, plans it and binds its params.
func loadModel(t *testing.T, dir string) (*Model, *graph.Graph, []byte) {
	res, data, _, err := onnxtest.Import(dir)
	require.NoError(t, err)
	g, err := graph.Parse(filepath.Base(dir)+".json", res.JSON)
	require.NoError(t, err)
	require.NoError(t, g.AddScratch(refscratch.Rule))
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	m := New(p)
	params := map[string]wgrt.Tensor{}
	for _, w := range res.Weights {
		params[w.Name] = tensorOf(w)
	}
	require.NoError(t, m.BindParams(params))
	return m, g, data
}

// runAtEverySize imports dir's model.onnx, plans it once, and runs it on
// each of its want data sets (test_data_set_<k>), comparing every output
// with the expected one within rtol 1e-3, atol 1e-5 (PyTorch's float32
// sums in another order).
func runAtEverySize(t *testing.T, dir string, want int) {
	m, g, data := loadModel(t, dir)
	defer m.Close()
	names, err := onnx.InputNames(data)
	require.NoError(t, err)
	sets, err := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
	require.NoError(t, err)
	require.Len(t, sets, want)
	read := func(set, file string) wgrt.Tensor {
		pb, err := os.ReadFile(filepath.Join(set, file))
		require.NoError(t, err)
		w, err := onnx.DecodeTensor(pb)
		require.NoError(t, err, file)
		return tensorOf(w)
	}
	for _, set := range sets {
		given := map[string]wgrt.Tensor{}
		for i, name := range names {
			if _, err := os.Stat(filepath.Join(set, fmt.Sprintf("input_%d.pb", i))); err == nil {
				given[name] = read(set, fmt.Sprintf("input_%d.pb", i))
			}
		}
		var inputs []wgrt.Tensor
		for _, in := range g.Inputs {
			x, ok := given[in.Name]
			require.True(t, ok, "no data for input %q", in.Name)
			inputs = append(inputs, x)
		}
		outs, err := m.Run(wgref.Call, nil, inputs)
		require.NoError(t, err, set)
		require.Len(t, outs, len(g.Outputs))
		for i, out := range outs {
			wantOut := read(set, fmt.Sprintf("output_%d.pb", i))
			require.Empty(t, Compare(out, wantOut, Tolerance{Rtol: 1e-3, Atol: 1e-5}), "%s: output %d (%q), input shapes %v", set, i, g.Outputs[i].Name, shapesOf(inputs))
		}
	}
}

func shapesOf(ts []wgrt.Tensor) [][]int {
	var out [][]int
	for _, x := range ts {
		out = append(out, x.Shape)
	}
	return out
}
