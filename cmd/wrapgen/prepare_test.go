package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
)

// preparedGraph's products have weights that are params (a conv, a
// grouped conv of many outputs per group, a depthwise conv, a transposed
// Gemm B, a MatMul B of a width that is not whole panels) or computed (a
// MatMul whose B is another product's output), at a symbolic batch.
const preparedGraph = `{
  "name": "prepared",
  "symbols": {"n": {"hint": 2, "min": 1, "max": 8}},
  "tensors": {
    "x": {"dtype": "f32", "shape": ["n", 6, 9, 9]},
    "w1": {"dtype": "f32", "shape": [40, 6, 3, 3]}, "c1": {"dtype": "f32", "shape": ["n", 40, 9, 9]},
    "w2": {"dtype": "f32", "shape": [80, 20, 3, 3]}, "c2": {"dtype": "f32", "shape": ["n", 80, 7, 7]},
    "w3": {"dtype": "f32", "shape": [80, 1, 3, 3]}, "c3": {"dtype": "f32", "shape": ["n", 80, 7, 7]},
    "f": {"dtype": "f32", "shape": ["n", 3920]},
    "wg": {"dtype": "f32", "shape": [45, 3920]}, "g": {"dtype": "f32", "shape": ["n", 45]},
    "wm": {"dtype": "f32", "shape": [45, 37]}, "h": {"dtype": "f32", "shape": ["n", 37]},
    "hs": {"dtype": "f32", "shape": [37, "n"]}, "y": {"dtype": "f32", "shape": ["n", "n"]}
  },
  "inputs": ["x"],
  "params": ["w1", "w2", "w3", "wg", "wm"],
  "outputs": ["y", "g"],
  "ops": [
    {"kernel": "Conv", "inputs": ["x", "w1"], "outputs": ["c1"], "attrs": {"group": 1, "kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1]}},
    {"kernel": "Conv", "inputs": ["c1", "w2"], "outputs": ["c2"], "attrs": {"group": 2, "kernel_shape": [3, 3], "strides": [1, 1], "pads": [0, 0, 0, 0], "dilations": [1, 1]}},
    {"kernel": "Conv", "inputs": ["c2", "w3"], "outputs": ["c3"], "attrs": {"group": 80, "kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1]}},
    {"kernel": "Reshape", "inputs": ["c3"], "outputs": ["f"]},
    {"kernel": "Gemm", "inputs": ["f", "wg"], "outputs": ["g"], "attrs": {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 1}},
    {"kernel": "MatMul", "inputs": ["g", "wm"], "outputs": ["h"]},
    {"kernel": "Transpose", "inputs": ["h"], "outputs": ["hs"], "attrs": {"perm": [1, 0]}},
    {"kernel": "MatMul", "inputs": ["h", "hs"], "outputs": ["y"]}
  ]
}`

// preparedMain runs the generated wrapper three ways at several batches
// (the Gemm and MatMuls above and below the rows that run unpacked):
// Run, which packs per call; a Runner with Options{Prepare: wgref.Prepare};
// and a Runner without. It prints what differs bit for bit, the prepared
// bytes, how many kernel calls got a Prepared, and a steady prepared
// Runner's allocations.
const preparedMain = `package main

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"example.com/user/model"
	"example.com/user/model/wgref"
	"example.com/user/model/wgrt"
)

func main() {
	r := rand.New(rand.NewSource(5))
	fill := func(t wgrt.Tensor) wgrt.Tensor {
		for i := range t.Float32s() {
			t.Float32s()[i] = r.Float32()*2 - 1
		}
		return t
	}
	tensors := map[string]wgrt.Tensor{}
	for _, s := range model.Signature().Params {
		shape := make([]int, len(s.Shape))
		for i, d := range s.Shape {
			fmt.Sscan(d, &shape[i])
		}
		tensors[s.Name] = fill(wgrt.New(s.DType, shape...))
	}
	p, err := model.ParamsFrom(tensors)
	if err != nil {
		panic(err)
	}
	prepared, err := model.NewRunner(p, model.Options{Prepare: wgref.Prepare})
	if err != nil {
		panic(err)
	}
	defer prepared.Close()
	plain, err := model.NewRunner(p, model.Options{})
	if err != nil {
		panic(err)
	}
	defer plain.Close()
	pp, err := model.PrepareParams(p, wgref.Prepare)
	if err != nil {
		panic(err)
	}
	shared, err := model.NewSharedRunner(pp, model.Options{})
	if err != nil {
		panic(err)
	}
	defer shared.Close()
	fmt.Println("prepared bytes:", prepared.PreparedBytes(), "unprepared:", plain.PreparedBytes())
	fmt.Println("shared bytes:", pp.Bytes(), shared.PreparedBytes())
	withPrepared, sharedPrepared := map[string]int{}, map[string]int{}
	counter := func(m map[string]int) model.Kernels {
		return model.KernelsFunc(func(c *wgrt.Call) error {
			if c.Prepared != nil {
				m[c.Op.Place+" "+c.Kernel]++
			}
			return wgref.Call(c)
		})
	}
	counting, countingShared := counter(withPrepared), counter(sharedPrepared)
	for _, n := range []int{1, 2, 5, 8} {
		in, err := model.InputsFrom(map[string]wgrt.Tensor{"x": fill(wgrt.New(wgrt.F32, n, 6, 9, 9))}, nil)
		if err != nil {
			panic(err)
		}
		want, err := model.Run(model.RefKernels(), p, in)
		if err != nil {
			panic(err)
		}
		for _, r := range []*model.Runner{plain, prepared, shared} {
			var got model.Outputs
			k := counting
			if r == shared {
				k = countingShared
			}
			if err := r.Run(k, in, &got); err != nil {
				panic(err)
			}
			for name, w := range want.Map() {
				g := got.Map()[name].Float32s()
				for i, v := range w.Float32s() {
					if math.Float32bits(v) != math.Float32bits(g[i]) {
						fmt.Printf("differs: n=%d %s[%d] prepared=%v shared=%v\n", n, name, i, r == prepared, r == shared)
						break
					}
				}
			}
		}
	}
	fmt.Println("calls with Prepared:", withPrepared)
	fmt.Println("shared calls with Prepared:", sharedPrepared)
	in, _ := model.InputsFrom(map[string]wgrt.Tensor{"x": fill(wgrt.New(wgrt.F32, 8, 6, 9, 9))}, nil)
	out := model.Outputs{Y: wgrt.New(wgrt.F32, 8, 8), G: wgrt.New(wgrt.F32, 8, 45)}
	// The Gemm at 8 rows reads its transposed B only from the panels: with
	// the param zeroed behind the Runners' backs, the prepared one still
	// computes g from what it packed, the other from the zeros.
	before, _ := model.Run(model.RefKernels(), p, in)
	clear(tensors["wg"].Float32s())
	for _, r := range []*model.Runner{plain, prepared, shared} {
		if err := r.Run(model.RefKernels(), in, &out); err != nil {
			panic(err)
		}
		same := true
		for i, v := range before.G.Float32s() {
			same = same && math.Float32bits(v) == math.Float32bits(out.G.Float32s()[i])
		}
		fmt.Printf("g from the packed copy: prepared=%v shared=%v %v\n", r == prepared, r == shared, same)
	}
	ref := model.RefKernels()
	allocs := testing.AllocsPerRun(20, func() {
		if err := prepared.Run(ref, in, &out); err != nil {
			panic(err)
		}
	})
	fmt.Println("allocations per steady prepared call:", allocs)
	allocs = testing.AllocsPerRun(20, func() {
		if err := shared.Run(ref, in, &out); err != nil {
			panic(err)
		}
	})
	fmt.Println("allocations per steady shared call:", allocs)
}
`

// A wrapper from gen -kernels ref whose Runner prepares its weights once
// (Options{Prepare: wgref.Prepare}) gives the outputs of Run, which packs
// them per call, bit for bit; the packed bytes are counted (the figure
// wrapgen run's PrepareWeights reports for this graph, package interp's
// test); the kernels get a Prepared for the four ops whose weights pack,
// on every call, and never without Prepare; a Runner of PrepareParams
// (NewSharedRunner) reads the same prepared ops; a steady call allocates
// nothing.
func TestGeneratedRunnerPreparesWeights(t *testing.T) {
	testenv.SkipUnlessLong(t, "builds and runs generated code")
	dir := tempModule(t)
	graphFile := filepath.Join(dir, "prepared.json")
	require.NoError(t, os.WriteFile(graphFile, []byte(preparedGraph), 0o644))
	_, _, err := runCLI("gen", "-q", "-lang", "go", "-kernels", "ref", "-o", filepath.Join(dir, "model", "model.go"), graphFile)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "cmd"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cmd", "main.go"), []byte(preparedMain), 0o644))
	cmd := exec.Command("go", "run", "./cmd")
	cmd.Dir = dir
	got, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", got)
	out := string(got)
	assert.NotContains(t, out, "differs")
	// Conv 1 (40·54 floats, rounded up to 48 rows), conv 2 (2 groups of 40
	// rows rounded up to 48, 180 deep), the Gemm's transposed B (45 columns
	// rounded up to 64, 3920 deep) and the MatMul's last panel (32·45).
	assert.Contains(t, out, "prepared bytes: 1088768 unprepared: 0\n")
	assert.Contains(t, out, "shared bytes: 1088768 1088768\n")
	assert.Contains(t, out, "calls with Prepared: map[ops[0] Conv:4 ops[1] Conv:4 ops[4] Gemm:4 ops[5] MatMul:4]\n",
		"the 4 ops whose weights pack, at 4 batches, on the prepared Runner only")
	assert.Contains(t, out, "shared calls with Prepared: map[ops[0] Conv:4 ops[1] Conv:4 ops[4] Gemm:4 ops[5] MatMul:4]\n",
		"a Runner of PrepareParams reads the same prepared ops")
	assert.Contains(t, out, "g from the packed copy: prepared=false shared=false false\n")
	assert.Contains(t, out, "g from the packed copy: prepared=true shared=false true\n")
	assert.Contains(t, out, "g from the packed copy: prepared=false shared=true true\n")
	assert.Contains(t, out, "allocations per steady prepared call: 0\n")
	assert.Contains(t, out, "allocations per steady shared call: 0\n")
}
