package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/onnx"
	"github.com/wrapgen/wrapgen/internal/fuzzdiff"
	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// fuzzGraphs is how many random graphs TestDifferentialFuzz runs (every
// 20th also through the C++ kernels in CI): a
// sample in `go test`, more in CI, any count through WRAPGEN_FUZZ_GRAPHS
// (10,000 were run before this landed; docs/reliability.md).
func fuzzGraphs(t *testing.T) int {
	if s := os.Getenv("WRAPGEN_FUZZ_GRAPHS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "WRAPGEN_FUZZ_GRAPHS")
		return n
	}
	if testenv.Long() {
		return 1500
	}
	return 150
}

// fuzzOutcome is what became of one random graph.
type fuzzOutcome int

const (
	fuzzMatched        fuzzOutcome = iota // run, every output as the float64 evaluator's
	fuzzRefusedGraph                      // the validator refused it (an op writing a view of its own input)
	fuzzRefusedOverlap                    // plan refused it: an op's output over its own input's bytes
	fuzzWrong                             // an output differs (the test has failed)
)

// TestDifferentialFuzz runs random graphs of MatMul, Gemm and Conv with
// biases, residual sums, activations, views written over live storages,
// transposed and sliced reads, products read twice and Assign (package
// fuzzdiff) through `wrapgen run` (fusion, planning, prepared weights, the
// reference kernels at one or two threads) and compares every output with
// fuzzdiff's float64 evaluation of the unfused graph. A graph is either
// computed right or refused with the validator's or planner's message.
func TestDifferentialFuzz(t *testing.T) {
	count := fuzzGraphs(t)
	dir := t.TempDir()
	var outcomes [4]int
	var failed []uint64
	selftests, cppRuns := 0, 0
	for seed := uint64(0); seed < uint64(count); seed++ {
		c := fuzzdiff.Generate(seed)
		o := runFuzzCase(t, dir, c, "go")
		outcomes[o]++
		// selftest's sentinel kernels agree: a sample of the graphs run, and
		// the first refused ones.
		if testenv.Long() && (seed%150 == 0 && o == fuzzMatched || o == fuzzRefusedOverlap && outcomes[o] <= 3) {
			checkFuzzSelftest(t, dir, c, o)
			selftests++
		}
		// The C++ kernels (run -lang cpp), on a sample.
		if testenv.Long() && seed%20 == 0 && o == fuzzMatched {
			o = runFuzzCase(t, dir, c, "cpp")
			cppRuns++
		}
		if o == fuzzWrong {
			if failed = append(failed, seed); len(failed) == 10 {
				break
			}
		}
	}
	require.Empty(t, failed, "seeds with wrong numbers")
	t.Logf("%d random graphs: %d matched the float64 evaluator, %d refused by the validator, %d by the planner's overlap check; selftest -kernels ref agreed on %d; %d ran through the C++ kernels too",
		count, outcomes[fuzzMatched], outcomes[fuzzRefusedGraph], outcomes[fuzzRefusedOverlap], selftests, cppRuns)
	require.Greater(t, outcomes[fuzzMatched], count*3/4, "most random graphs are valid and run")
}

// TestDifferentialFuzzRegressions are the seeds that found wrong numbers
// before fusion checked soundness (a fused op writing over an input it
// still read) and before Relu kept NaN.
func TestDifferentialFuzzRegressions(t *testing.T) {
	dir := t.TempDir()
	for _, seed := range fuzzRegressionSeeds {
		runFuzzCase(t, dir, fuzzdiff.Generate(seed), "go")
	}
}

// Seed 1: Relu(NaN) was 0. Seeds 82, 756, 1110, 1442 and 2803: a fused op
// wrote over an input it still read (before fusion checked soundness).
var fuzzRegressionSeeds = []uint64{1, 82, 756, 1110, 1442, 2803}

// checkFuzzSelftest runs `wrapgen selftest -kernels ref` on c: it passes
// where run computed the right numbers, and refuses with the same message
// where plan refused an overlap.
func checkFuzzSelftest(t *testing.T, dir string, c fuzzdiff.Case, o fuzzOutcome) {
	t.Helper()
	file := filepath.Join(dir, fmt.Sprintf("selftest%d.json", c.Seed))
	require.NoError(t, os.WriteFile(file, c.JSON, 0o644))
	_, stderr, err := runCLI("selftest", "-kernels", "ref", "-at", fmt.Sprintf("n=%d", c.N), file)
	if o == fuzzMatched {
		require.NoError(t, err, "%s\n%s", c, stderr)
		return
	}
	require.Error(t, err, "%s", c)
	require.Contains(t, err.Error(), "shares memory with its input", "%s", c)
}

// runFuzzCase runs c through `wrapgen run -lang lang` and compares it
// with the evaluator.
func runFuzzCase(t *testing.T, dir string, c fuzzdiff.Case, lang string) fuzzOutcome {
	t.Helper()
	g, err := graph.Parse("fuzz.json", c.JSON)
	if err != nil {
		require.Contains(t, err.Error(), "is a view of its own input", "%s", c)
		return fuzzRefusedGraph
	}
	want, err := fuzzdiff.Eval(g, c)
	require.NoError(t, err, "%s", c)

	work := filepath.Join(dir, fmt.Sprint(c.Seed))
	require.NoError(t, os.MkdirAll(work, 0o755))
	defer os.RemoveAll(work)
	graphFile := filepath.Join(work, "fuzz.json")
	require.NoError(t, os.WriteFile(graphFile, c.JSON, 0o644))
	args := []string{"run", "-q", "-lang", lang, "-at", fmt.Sprintf("n=%d", c.N), "-out", filepath.Join(work, "out"),
		"-threads", fmt.Sprint(1 + c.Seed%2), fmt.Sprintf("-pack-weights=%t", c.Seed%3 != 0)}
	for _, x := range g.Inputs {
		file := filepath.Join(work, x.Name+".npy")
		require.NoError(t, os.WriteFile(file, npyOf(t, c.Inputs[x.Name], c.Shapes[x.Name]), 0o644))
		args = append(args, "-in", file)
	}
	if len(g.Params) > 0 {
		var ws []onnx.Weight
		for _, p := range g.Params {
			shape := make([]int64, len(c.Shapes[p.Name]))
			for i, d := range c.Shapes[p.Name] {
				shape[i] = int64(d)
			}
			ws = append(ws, onnx.Weight{Name: p.Name, DType: "f32", Shape: shape, Data: f32Bytes(c.Params[p.Name])})
		}
		st, err := onnx.Safetensors(ws)
		require.NoError(t, err)
		file := filepath.Join(work, "params.safetensors")
		require.NoError(t, os.WriteFile(file, st, 0o644))
		args = append(args, "-params", file)
	}
	_, stderr, err := runCLI(append(args, graphFile)...)
	if err != nil {
		require.Contains(t, err.Error(), "shares memory with its input", "%s\n%s", c, stderr)
		return fuzzRefusedOverlap
	}
	for i, o := range g.Outputs {
		data, err := os.ReadFile(outputFile(filepath.Join(work, "out"), i))
		require.NoError(t, err)
		got, err := readNpy(o.Name, data)
		require.NoError(t, err)
		if msg := fuzzCompare(got, want[o.Name]); msg != "" {
			t.Errorf("output %s: %s\n%s", o.Name, msg, c)
			return fuzzWrong
		}
	}
	return fuzzMatched
}

// fuzzCompare is "" when got is want to float32 accuracy: NaN where want
// is NaN, else within 3e-5 of the magnitudes the value was computed from
// (about 500 roundings of float32).
func fuzzCompare(got wgrt.Tensor, want fuzzdiff.Array) string {
	if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
		return fmt.Sprintf("shape %v, want %v", got.Shape, want.Shape)
	}
	for i, w := range want.Data {
		g := float64(math.Float32frombits(binary.LittleEndian.Uint32(got.Data[4*i:])))
		switch {
		case math.IsNaN(w) != math.IsNaN(g):
			return fmt.Sprintf("element %d is %v, want %v", i, g, w)
		case math.IsNaN(w):
		case math.Abs(g-w) > 3e-5*want.Mag[i]+1e-30:
			return fmt.Sprintf("element %d is %v, want %v (computed from magnitudes %v)", i, g, w, want.Mag[i])
		}
	}
	return ""
}

func f32Bytes(xs []float32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func npyOf(t *testing.T, xs []float32, shape []int) []byte {
	x := wgrt.New(wgrt.F32, shape...)
	copy(x.Data, f32Bytes(xs))
	data, err := writeNpy(x)
	require.NoError(t, err)
	return data
}
