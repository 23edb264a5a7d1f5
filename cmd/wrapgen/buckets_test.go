package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/plan/report"
)

// bucketsGraph has one symbol, n in [1, 64], whose plan made at n=4 is
// 2x the bound at n=1 and 2: the default splits it into two size buckets.
var bucketsGraph = filepath.Join("testdata", "runtime_sizes", "nonzero.json")

// bucketsMain runs the wrapper with the reference kernels through a Runner
// at n = 2, 9, 9, 40, 2 (buckets 0, 1, 1, 1, 0) and through Run at each,
// checks every output against NonZero and Neg computed here, and counts
// the heap allocations of steady calls within a bucket.
const bucketsMain = `package main

import (
	"fmt"
	"testing"

	"example.com/user/model"
	"example.com/user/model/wgrt"
)

// input is n rows of 3 with every third element zero.
func input(n int) *model.Inputs {
	data := make([]float32, 3*n)
	for i := range data {
		if i%3 != 1 {
			data[i] = float32(i + 1)
		}
	}
	return &model.Inputs{X: wgrt.FromFloat32s(data, n, 3)}
}

// want is -transpose(nonzero(x)): each nonzero element's (row, column),
// negated.
func want(n int) []int64 {
	var out []int64
	for i := 0; i < 3*n; i++ {
		if i%3 != 1 {
			out = append(out, -int64(i/3), -int64(i%3))
		}
	}
	return out
}

func check(n int, out *model.Outputs) {
	got := out.Z.Int64s()[:out.Z.NumElements()] // memory is at the bound of k
	w := want(n)
	if fmt.Sprint(got) != fmt.Sprint(w) {
		panic(fmt.Sprintf("n=%d: got %v, want %v", n, got, w))
	}
}

func main() {
	r, err := model.NewRunner(nil, model.Options{})
	if err != nil {
		panic(err)
	}
	defer r.Close()
	k := model.RefKernels()
	for _, n := range []int{2, 9, 9, 40, 2} {
		in := input(n)
		out := &model.Outputs{}
		if err := r.Run(k, in, out); err != nil {
			panic(err)
		}
		check(n, out)
		fresh, err := model.Run(k, nil, in)
		if err != nil {
			panic(err)
		}
		check(n, fresh)
	}
	for _, n := range []int{2, 9} {
		in, out := input(n), &model.Outputs{}
		allocs := testing.AllocsPerRun(5, func() {
			if err := r.Run(k, in, out); err != nil {
				panic(err)
			}
		})
		fmt.Printf("n=%d: allocations per steady call: %v\n", n, allocs)
	}
	fmt.Println("ok")
}
`

// The default plan of a graph no single layout serves well has size
// buckets: plan reports them and the one the wrapper picks; the generated
// Go wrapper holds one plan per bucket, runs each at sizes of its bucket
// with outputs equal to a reference computed independently, and allocates
// nothing on steady calls within a bucket; selftest runs every bucket.
func TestBucketsEndToEnd(t *testing.T) {
	out, _, err := runCLI("plan", "-json", "-at", "n=9", bucketsGraph)
	require.NoError(t, err)
	var p struct {
		report.Plan
		Buckets report.Buckets `json:"buckets"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &p))
	require.Len(t, p.Buckets.Buckets, 2)
	assert.Equal(t, "n in [1, 2]", p.Buckets.Buckets[0].Ranges)
	assert.Equal(t, "n in [3, 64]", p.Buckets.Buckets[1].Ranges)
	assert.Equal(t, 1, p.Buckets.At)
	assert.Equal(t, p.Buckets.Buckets[1].Hints, p.Hints, "the report is of the plan the wrapper picks")

	single, _, err := runCLI("plan", "-json", "-buckets", "1", bucketsGraph)
	require.NoError(t, err)
	var one report.Plan
	require.NoError(t, json.Unmarshal([]byte(single), &one))
	assert.Greater(t, one.RangeWorst, 1.10)
	assert.Less(t, p.Buckets.Worst, one.RangeWorst)
	assert.NotContains(t, single, `"buckets"`)

	text, _, err := runCLI("plan", "-lines=false", "-at", "n=1", bucketsGraph)
	require.NoError(t, err)
	assert.Contains(t, text, "bucket 0      n in [1, 2] (the wrapper's plan at the values above)")

	svg := filepath.Join(t.TempDir(), "plan.svg")
	_, _, err = runCLI("plan", "-svg", svg, "-at", "n=40", bucketsGraph)
	require.NoError(t, err)
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.Contains(t, string(data), "at k=120, n=40 · size bucket 1 of 2 (n in [3, 64])")

	if testing.Short() {
		t.Skip("builds and runs generated code")
	}
	dir := tempModule(t)
	src := filepath.Join(dir, "model", "model.go")
	_, _, err = runCLI("gen", "-lang", "go", "-kernels", "ref", "-o", src, bucketsGraph)
	require.NoError(t, err)
	code, err := os.ReadFile(src)
	require.NoError(t, err)
	assert.Contains(t, string(code), "2 size buckets")
	assert.Equal(t, 2, strings.Count(string(code), "Ranges: []int{"))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "cmd"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cmd", "main.go"), []byte(bucketsMain), 0o644))
	cmd := exec.Command("go", "run", "./cmd")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local")
	got, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", got)
	assert.Contains(t, string(got), "n=2: allocations per steady call: 0\n")
	assert.Contains(t, string(got), "n=9: allocations per steady call: 0\n")
	assert.Contains(t, string(got), "ok\n")

	for _, lang := range []string{"go", "cpp"} {
		runs := 1 // per bucket: one per C++ compiler
		if lang == "cpp" {
			if runs = len(cxxCompilers()); runs == 0 {
				continue
			}
		}
		stdout, _, err := runCLI("selftest", "-lang", lang, bucketsGraph)
		require.NoError(t, err, lang)
		assert.Contains(t, stdout, "selftest: size bucket 0 of 2 (n in [1, 2])", lang)
		assert.Contains(t, stdout, "selftest: size bucket 1 of 2 (n in [3, 64])", lang)
		assert.Equal(t, 2*runs, strings.Count(stdout, "selftest: ok"), "%s: %s", lang, stdout)
	}
}

// -range-horizon sets how far a symbol without a max is sampled: the
// figures across the range are then taken up to it.
func TestRangeHorizon(t *testing.T) {
	model := filepath.Join("..", "..", "examples", "tinybert", "tinybert.onnx") // batch, seq: no max
	figures := func(args ...string) report.Plan {
		out, _, err := runCLI(append(append([]string{"plan", "-json", "-buckets", "1"}, args...), model)...)
		require.NoError(t, err)
		var p report.Plan
		require.NoError(t, json.Unmarshal([]byte(out), &p))
		return p
	}
	far, near := figures(), figures("-range-horizon", "16")
	assert.Less(t, near.RangePoints, far.RangePoints)
	for name, v := range near.RangeWorstAt {
		assert.LessOrEqual(t, v, int64(16), name)
	}
	assert.Greater(t, far.RangeWorstAt["seq"], int64(16))
	_, _, err := runCLI("plan", "-range-horizon", "0", model)
	assert.EqualError(t, err, "-range-horizon 0: want a positive number")
}
