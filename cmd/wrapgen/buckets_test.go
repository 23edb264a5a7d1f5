package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/plan/report"
)

// bucketsGraph has two chains of ops, one over n rows and one over m:
// no single layout of its storages stays near the bound for every n and
// m in [1, 256] (1.2 at worst planned at the hints, and no plan made at
// other hints does better), and two size buckets split at m = 7, placing
// the storages differently, are at the bound everywhere.
var bucketsGraph = filepath.Join("testdata", "buckets", "two_chains.json")

// bucketsMain runs the wrapper with the reference kernels through a Runner
// at (n, m) = (2, 3), (9, 3), (9, 200), (40, 9), (2, 3) (buckets 0, 0, 1,
// 1, 0) and through Run at each, checks the memory Run holds at once,
// checks both outputs against the chains computed here, and counts the
// heap allocations of steady calls within a bucket.
const bucketsMain = `package main

import (
	"fmt"
	"testing"

	"example.com/user/model"
	"example.com/user/model/wgrt"
)

func rows(n, seed int) []float32 {
	data := make([]float32, 64*n)
	for i := range data {
		data[i] = float32((i*7+seed)%13)/8 - 0.75
	}
	return data
}

// twice is each row of a followed by itself: Concat along axis 1.
func twice(a []float32) []float32 {
	var out []float32
	for r := 0; r < len(a)/64; r++ {
		out = append(append(out, a[64*r:64*r+64]...), a[64*r:64*r+64]...)
	}
	return out
}

// want: t9 = twice(x), t8 = (y + y) + (y + y).
func want(x, y []float32) (t9, t8 []float32) {
	t8 = make([]float32, len(y))
	for i, v := range y {
		t8[i] = (v + v) + (v + v)
	}
	return twice(x), t8
}

func check(n, m int, in *model.Inputs, out *model.Outputs) {
	t9, t8 := want(in.X.Float32s(), in.Y.Float32s())
	if fmt.Sprint(out.T9.Float32s()) != fmt.Sprint(t9) || fmt.Sprint(out.T8.Float32s()) != fmt.Sprint(t8) {
		panic(fmt.Sprintf("n=%d, m=%d: outputs differ from the chains computed directly", n, m))
	}
}

// peak allocates from the Go heap and follows the bytes held at once.
type peak struct{ live, max int }

func (c *peak) Alloc(size, align int) ([]byte, error) {
	c.live += size
	c.max = max(c.max, c.live)
	return wgrt.AlignedBytes(size, align)[:size:size], nil
}
func (c *peak) Free(b []byte) { c.live -= cap(b) }

func input(n, m int) *model.Inputs {
	return &model.Inputs{X: wgrt.FromFloat32s(rows(n, 1), n, 64), Y: wgrt.FromFloat32s(rows(m, 5), m, 64)}
}

func main() {
	r, err := model.NewRunner(nil, model.Options{})
	if err != nil {
		panic(err)
	}
	defer r.Close()
	k := model.RefKernels()
	for _, nm := range [][2]int{{2, 3}, {9, 3}, {9, 200}, {40, 9}, {2, 3}} {
		n, m := nm[0], nm[1]
		in := input(n, m)
		out := &model.Outputs{}
		if err := r.Run(k, in, out); err != nil {
			panic(err)
		}
		fmt.Printf("n=%d, m=%d: bucket %d\n", n, m, r.SizeBucket())
		check(n, m, in, out)
		fresh, err := model.Run(k, nil, in)
		if err != nil {
			panic(err)
		}
		check(n, m, in, fresh)
	}
	// The memory Run takes at once, from pools created at first use and
	// freed after their last, is the peak of the plan it picked.
	for _, nm := range [][2]int{{9, 3}, {40, 9}} {
		c := &peak{}
		if _, err := model.RunWith(k, nil, input(nm[0], nm[1]), nil, model.Options{Allocators: wgrt.Allocators{"cpu": c}}); err != nil {
			panic(err)
		}
		fmt.Printf("n=%d, m=%d: peak bytes %d\n", nm[0], nm[1], c.max)
	}
	for _, m := range []int{3, 40} {
		in, out := input(9, m), &model.Outputs{}
		allocs := testing.AllocsPerRun(5, func() {
			if err := r.Run(k, in, out); err != nil {
				panic(err)
			}
		})
		fmt.Printf("m=%d: allocations per steady call: %v\n", m, allocs)
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
	assert.Equal(t, "n in [1, 256], m in [1, 7]", p.Buckets.Buckets[0].Ranges)
	assert.Equal(t, "n in [1, 256], m in [8, 256]", p.Buckets.Buckets[1].Ranges)
	assert.Equal(t, 1, p.Buckets.At)
	assert.Equal(t, p.Buckets.Buckets[1].Hints, p.Hints, "the report is of the plan the wrapper picks")
	assert.Equal(t, expr.Env{"n": 9, "m": 16}, p.Symbols, "at the -at values, the graph's hints for the others")
	assert.Equal(t, p.PeakBytes, p.LoadBytes, "at the bound there")

	single, _, err := runCLI("plan", "-json", "-buckets", "1", bucketsGraph)
	require.NoError(t, err)
	var one report.Plan
	require.NoError(t, json.Unmarshal([]byte(single), &one))
	assert.Greater(t, one.RangeWorst, 1.10)
	assert.Less(t, p.Buckets.Worst, one.RangeWorst)
	assert.NotContains(t, single, `"buckets"`)

	text, _, err := runCLI("plan", "-lines=false", "-at", "m=1", bucketsGraph)
	require.NoError(t, err)
	assert.Contains(t, text, "bucket 0      n in [1, 256], m in [1, 7] (the wrapper's plan at the values above)")

	svg := filepath.Join(t.TempDir(), "plan.svg")
	_, _, err = runCLI("plan", "-svg", svg, "-at", "n=40", bucketsGraph)
	require.NoError(t, err)
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.Contains(t, string(data), "at m=16, n=40 · size bucket 1 of 2 (n in [1, 256], m in [8, 256])")
	_, _, err = runCLI("plan", "-buckets", "0", bucketsGraph)
	assert.EqualError(t, err, "-buckets 0: want at least 1")

	testenv.SkipUnlessLong(t, "builds and runs generated code")
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
	assert.Contains(t, string(got), "m=3: allocations per steady call: 0\n")
	assert.Contains(t, string(got), "m=40: allocations per steady call: 0\n")
	assert.Contains(t, string(got), "ok\n")
	assert.Contains(t, string(got), "n=2, m=3: bucket 0\nn=9, m=3: bucket 0\nn=9, m=200: bucket 1\nn=40, m=9: bucket 1\nn=2, m=3: bucket 0\n")
	for _, nm := range [][2]int{{9, 3}, {40, 9}} {
		at, _, err := runCLI("plan", "-json", "-at", fmt.Sprintf("n=%d", nm[0]), "-at", fmt.Sprintf("m=%d", nm[1]), bucketsGraph)
		require.NoError(t, err)
		var pl report.Plan
		require.NoError(t, json.Unmarshal([]byte(at), &pl))
		assert.Contains(t, string(got), fmt.Sprintf("n=%d, m=%d: peak bytes %d\n", nm[0], nm[1], pl.PeakBytes), "the wrapper runs the plan of the bucket plan reports")
	}

	for _, lang := range []string{"go", "cpp"} {
		runs := 1 // per bucket: one per C++ compiler
		if lang == "cpp" {
			if runs = len(cxxCompilers()); runs == 0 {
				continue
			}
		}
		stdout, _, err := runCLI("selftest", "-lang", lang, bucketsGraph)
		require.NoError(t, err, lang)
		assert.Contains(t, stdout, "selftest: size bucket 0 of 2 (n in [1, 256], m in [1, 7])", lang)
		assert.Contains(t, stdout, "selftest: size bucket 1 of 2 (n in [1, 256], m in [8, 256])", lang)
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
