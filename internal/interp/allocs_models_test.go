package interp

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/fuse"
	"github.com/wrapgen/wrapgen/graph/onnx"
	"github.com/wrapgen/wrapgen/internal/fold"
	"github.com/wrapgen/wrapgen/internal/onnxtest"
	"github.com/wrapgen/wrapgen/internal/refscratch"
	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/emit"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// allocModel is a real model the repository (or CI) holds, as `wrapgen run`
// loads it: an ONNX export (weights given as inputs become params, with
// random values), or an ONNX model with its weights (dir: a folder of
// model.onnx and test_data_set_0, as onnxtest.Import reads it).
type allocModel struct {
	name, path string
	dir        bool
}

// allocModels lists every real model CI runs the reference kernels on: the
// recorded exports (../shared/onnx, copied into graph/onnx/testdata), the
// examples' models, the PyTorch exports under testdata, and the
// bench/export.py models when WRAPGEN_MODELS names them. (The recorded
// format-v1 graphs call aten's kernels, which wgref does not implement.)
func allocModels(t *testing.T) []allocModel {
	var out []allocModel
	glob := func(pattern string, dir bool) {
		files, err := filepath.Glob(pattern)
		require.NoError(t, err)
		require.NotEmpty(t, files, pattern)
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
			if dir || strings.Contains(pattern, "examples") {
				name = filepath.Base(filepath.Dir(filepath.Dir(f))) + "/" + filepath.Base(filepath.Dir(f))
			}
			if dir {
				f = filepath.Dir(f)
			}
			out = append(out, allocModel{name: name, path: f, dir: dir})
		}
	}
	glob("../../graph/onnx/testdata/*.onnx", false)
	glob("../../examples/*/*.onnx", false)
	glob("testdata/*/*/model.onnx", true)
	if dir := os.Getenv("WRAPGEN_MODELS"); dir != "" {
		glob(filepath.Join(dir, "*.onnx"), false)
	}
	return out
}

// loadForAllocs loads m planned for the reference kernels as `wrapgen run`
// plans it (fused, with their scratch; packed weights when prepared), its
// params bound (and prepared), and inputs at batch 1 (the other symbols at
// their hints), random where the model has no data. It reports a model
// wrapgen refuses to import as ok false.
func loadForAllocs(t *testing.T, m allocModel, prepared bool) (model *Model, inputs []wgrt.Tensor, ok bool) {
	r := rand.New(rand.NewSource(55))
	var g *graph.Graph
	params := map[string]wgrt.Tensor{}
	given := map[string]wgrt.Tensor{}
	switch {
	case m.dir:
		res, data, _, err := onnxtest.Import(m.path)
		require.NoError(t, err)
		if g, err = graph.Parse(m.name+".json", res.JSON); err != nil {
			return nil, nil, false
		}
		for _, w := range res.Weights {
			params[w.Name] = tensorOf(w)
		}
		names, err := onnx.InputNames(data)
		require.NoError(t, err)
		for i, name := range names {
			pb, err := os.ReadFile(filepath.Join(m.path, "test_data_set_0", fmt.Sprintf("input_%d.pb", i)))
			if err != nil {
				continue
			}
			w, err := onnx.DecodeTensor(pb)
			require.NoError(t, err)
			given[name] = tensorOf(w)
		}
	default:
		opts := onnx.Options{Fold: fold.Call, FoldWeights: true}
		g0, _, err := onnx.Load(m.path, opts)
		if err != nil {
			return nil, nil, false // a model the importer refuses (a growing loop)
		}
		// Exported without weights: the inputs of constant shape are
		// the weights, given as params as `wrapgen run -params` does.
		symbolic := false
		for _, x := range g0.Inputs {
			symbolic = symbolic || !constShape(x)
		}
		ws := map[string]onnx.Weight{}
		for _, x := range g0.Inputs {
			if symbolic && constShape(x) {
				tw := randomWeight(r, x)
				shape := make([]int64, len(tw.Shape))
				for i, d := range tw.Shape {
					shape[i] = int64(d)
				}
				ws[x.Name] = onnx.Weight{Name: x.Name, DType: x.DType, Shape: shape, Data: tw.Data}
			}
		}
		if len(ws) > 0 {
			opts.Params = ws
		}
		g1, res, err := onnx.Load(m.path, opts)
		require.NoError(t, err)
		for _, w := range res.Weights {
			params[w.Name] = tensorOf(w)
		}
		g = g1
	}
	return finishAllocModel(t, g, params, prepared), batchOneInputs(t, r, g, given), true
}

func finishAllocModel(t *testing.T, g *graph.Graph, params map[string]wgrt.Tensor, prepared bool) *Model {
	g, err := fuse.Apply(g, fuse.Ref)
	require.NoError(t, err)
	rule := refscratch.Rule
	if prepared {
		rule = refscratch.RuleWithPackedWeights
	}
	require.NoError(t, g.AddScratch(rule))
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	m := New(p)
	t.Cleanup(m.Close)
	require.NoError(t, m.BindParams(params))
	if prepared {
		require.NoError(t, m.PrepareWeights(wgref.Prepare))
	}
	return m
}

func constShape(x *graph.Tensor) bool {
	for _, d := range x.Shape {
		if _, ok := d.IsConst(); !ok {
			return false
		}
	}
	return true
}

// randomWeight is a param of x's shape: floats in [-0.5, 0.5), positive
// for a variance (a folded BatchNormalization divides by its root).
func randomWeight(r *rand.Rand, x *graph.Tensor) wgrt.Tensor {
	shape := make([]int, len(x.Shape))
	for i, d := range x.Shape {
		v, _ := d.IsConst()
		shape[i] = int(v)
	}
	w := wgrt.New(wgrt.DType(emit.DTypeCode(x.DType)), shape...)
	positive := strings.Contains(x.Name, "var")
	fillAllocRandom(r, w, positive)
	return w
}

// batchOneInputs are g's data inputs at batch 1, the other symbols at
// their hints: given's where it has them, else random.
func batchOneInputs(t *testing.T, r *rand.Rand, g *graph.Graph, given map[string]wgrt.Tensor) []wgrt.Tensor {
	env := g.Hints()
	if _, ok := env["batch"]; ok {
		env["batch"] = 1
	}
	var out []wgrt.Tensor
	for _, x := range g.Inputs {
		if v, ok := given[x.Name]; ok {
			out = append(out, v)
			continue
		}
		shape := make([]int, len(x.Shape))
		for i, s := range x.Shape {
			v, err := s.Eval(env)
			require.NoError(t, err, "input %q", x.Name)
			shape[i] = int(v)
		}
		in := wgrt.New(wgrt.DType(emit.DTypeCode(x.DType)), shape...)
		fillAllocRandom(r, in, false)
		in.Device = x.Device
		out = append(out, in)
	}
	return out
}

func fillAllocRandom(r *rand.Rand, x wgrt.Tensor, positive bool) {
	size := x.DType.Size()
	for i := 0; i < x.NumElements(); i++ {
		b := x.Data[i*size : i*size+size]
		switch x.DType {
		case wgrt.F32:
			v := r.Float32() - 0.5
			if positive {
				v += 1
			}
			binary.LittleEndian.PutUint32(b, math.Float32bits(v))
		case wgrt.F64:
			binary.LittleEndian.PutUint64(b, math.Float64bits(r.Float64()-0.5))
		case wgrt.F16, wgrt.BF16:
			binary.LittleEndian.PutUint16(b, 0x3800|uint16(r.Intn(0x100)))
		case wgrt.Bool:
			b[0] = byte(r.Intn(2))
		default:
			v := uint64(r.Intn(10))
			for k := range b {
				b[k] = byte(v >> (8 * k))
			}
		}
	}
}

// steadyAllocs runs m warm twice, then three times more counting the heap
// allocations (runtime.MemStats.Mallocs, exact: the world stops to read
// it) of each op's kernel calls, the worker goroutines' included. An op's
// count is its least over the three: the runtime itself allocates now and
// then when a goroutine blocks on a channel (a worker parking: its
// records, sudogs, are cached per processor and move between them), which
// the kernels do not, while a kernel's own allocation shows every time. It
// also returns the allocations of one whole Run, the interpreter's own
// (its input and output slices, its maps) included.
func steadyAllocs(t *testing.T, m *Model, inputs []wgrt.Tensor) (byKernel map[string]uint64, kernels, run uint64) {
	for i := 0; i < 2; i++ {
		if i == 1 {
			// A collection empties the runtime's caches of sudogs: collect
			// before the last warm run, not between it and the counted ones.
			runtime.GC()
		}
		_, err := m.Run(wgref.Call, nil, inputs)
		require.NoError(t, err)
	}
	least := make([]uint64, len(m.calls))
	names := make([]string, len(m.calls))
	var before, after runtime.MemStats
	for pass := 0; pass < 3; pass++ {
		counts := make([]uint64, len(m.calls))
		counted := func(c *wgrt.Call) error {
			runtime.ReadMemStats(&before)
			err := wgref.Call(c)
			runtime.ReadMemStats(&after)
			counts[c.Op.Index] += after.Mallocs - before.Mallocs
			names[c.Op.Index] = c.Kernel
			return err
		}
		_, err := m.Run(counted, nil, inputs)
		require.NoError(t, err)
		for i, n := range counts {
			if pass == 0 || n < least[i] {
				least[i] = n
			}
		}
	}
	byKernel = map[string]uint64{}
	for i, n := range least {
		if n > 0 {
			byKernel[names[i]] += n
			kernels += n
		}
	}
	run = uint64(testing.AllocsPerRun(1, func() { _, _ = m.Run(wgref.Call, nil, inputs) }))
	return byKernel, kernels, run
}

// allocLong are the models only WRAPGEN_LONG_TESTS=1 runs: the two
// torchvision CNNs, near half the whole set's 5 s. The default run keeps
// every other model (3 s), tiny_bert among them.
var allocLong = map[string]bool{"resnet18": true, "mobilenet_v2": true}

// Every real model CI has, at batch 1, one and two threads, with weights
// prepared once and packed per call: once warm, the reference kernels
// allocate nothing in a Run (kernel by kernel, the thread pool's
// goroutines included).
func TestRealModelsSteadyRunAllocatesNothing(t *testing.T) {
	models := allocModels(t)
	defer wgref.SetThreads(wgref.Threads())
	var table []string
	for _, am := range models {
		if !testenv.Long() && allocLong[am.name] {
			continue
		}
		t.Run(am.name, func(t *testing.T) {
			start := time.Now()
			for _, prepared := range []bool{false, true} {
				m, inputs, ok := loadForAllocs(t, am, prepared)
				if !ok {
					t.Skipf("%s does not import", am.path)
				}
				for _, threads := range []int{1, 2} {
					wgref.SetThreads(threads)
					byKernel, kernels, run := steadyAllocs(t, m, inputs)
					table = append(table, fmt.Sprintf("%-32s prepared=%-5v threads=%d kernels %3d run %3d %s", am.name, prepared, threads, kernels, run, kernelsByAllocs(byKernel)))
					assert.Zero(t, kernels, "%s, prepared %v, %d threads: the kernels of a steady Run allocate: %s", am.name, prepared, threads, kernelsByAllocs(byKernel))
				}
			}
			t.Logf("%s: %.1f s", am.name, time.Since(start).Seconds())
		})
	}
	t.Log("steady allocations per Run:\n" + strings.Join(table, "\n"))
}

func kernelsByAllocs(byKernel map[string]uint64) string {
	var ks []string
	for k, n := range byKernel {
		ks = append(ks, fmt.Sprintf("%s:%d", k, n))
	}
	sort.Strings(ks)
	return strings.Join(ks, " ")
}
