package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph/onnx"
	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/wrapper/cpp"
)

// convMatMulGraph has a product kernel of every kind the C++ reference
// kernels prepare (a Conv of depth past one Sgemm block, a 1x1 Conv, a
// grouped FusedConv with a sum, FusedMatMul, Gemm with transB), a stem
// FusedConv, which they do not, and params for all their weights.
const convMatMulGraph = "testdata/cppref/convmatmul.json"

// A -kernels ref wrapper prepares its weights (Options::prepare) only in
// a Runner, with an op table the wrapper provides; a wrapper without
// -kernels ref has none of it.
func TestGenCppRefPrepareFiles(t *testing.T) {
	dir := t.TempDir()
	_, _, err := runCLI("gen", "-q", "-lang", "cpp", "-kernels", "ref", "-main", "-o", dir, convMatMulGraph)
	require.NoError(t, err)
	h, err := os.ReadFile(filepath.Join(dir, "conv_matmul.h"))
	require.NoError(t, err)
	assert.Contains(t, string(h), "wrapgen::Status (*prepare)(const wgref::Call& c, wgref::Prepared* out) = nullptr;")
	assert.Contains(t, string(h), "int64_t PreparedBytes() const;")
	assert.Contains(t, string(h), "virtual void UsePrepared(const void* prepared)")
	cc, err := os.ReadFile(filepath.Join(dir, "conv_matmul.cc"))
	require.NoError(t, err)
	assert.Contains(t, string(cc), "const wrapgen::OpTable kOpTable = {")
	assert.Contains(t, string(cc), `{"FusedConv", 0, `)
	assert.Contains(t, string(cc), "ref_call.prepared = tRefPrepared;")
	assert.Contains(t, string(cc), "k_->UsePrepared(prepared_ != nullptr ? prepared_[i] : nullptr);")
	main, err := os.ReadFile(filepath.Join(dir, "conv_matmul_main.cc"))
	require.NoError(t, err)
	assert.Contains(t, string(main), "opts.prepare = wgref::Prepare;")

	plain := t.TempDir()
	_, _, err = runCLI("gen", "-q", "-lang", "cpp", "-o", plain, convMatMulGraph)
	require.NoError(t, err)
	for _, name := range []string{"conv_matmul.h", "conv_matmul.cc"} {
		src, err := os.ReadFile(filepath.Join(plain, name))
		require.NoError(t, err)
		for _, s := range []string{"prepare", "Prepare", "OpTable", "wgref"} {
			assert.NotContains(t, string(src), s, name)
		}
	}
}

// The generated Runner with prepared weights: the -main runner packs them
// by default and prints their bytes, -pack-weights=false packs per call;
// both write the same bytes, at 1 and 2 threads, and match wrapgen run.
// And from C++ (testdata/cppref/prepare_test.cc, compiled with the
// wrapper): every product kernel's paths give the same bits prepared and
// not, the Runner's outputs too, and steady Runner::Run calls with
// prepare at 2 threads allocate nothing (operator new counted).
func TestGenCppRefPrepare(t *testing.T) {
	testenv.SkipUnlessLong(t, "compiles the C++ reference kernels")
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++")
	}
	dir := t.TempDir()
	gen := filepath.Join(dir, "gen")
	_, _, err = runCLI("gen", "-q", "-lang", "cpp", "-kernels", "ref", "-main", "-o", gen, convMatMulGraph)
	require.NoError(t, err)
	stubRegisterFuncs(t, gen)
	for _, name := range []string{"prepare_test.cc", "prepare_allocs.cc"} {
		src, err := os.ReadFile(filepath.Join("testdata", "cppref", name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(gen, name), src, 0o644))
	}

	rng := rand.New(rand.NewSource(11))
	var ins []string
	for _, in := range []struct {
		name  string
		shape []int
	}{{"x", []int{5, 3, 12, 12}}, {"u", []int{5, 5, 40}}, {"v", []int{5, 300}}} {
		data, err := writeNpy(randomF32(rng, in.shape...))
		require.NoError(t, err)
		p := filepath.Join(dir, in.name+".npy")
		require.NoError(t, os.WriteFile(p, data, 0o644))
		ins = append(ins, p)
	}
	var weights []onnx.Weight
	for _, w := range []struct {
		name  string
		shape []int
	}{{"w1", []int{32, 3, 3, 3}}, {"b1", []int{32}}, {"w2", []int{16, 32, 3, 3}}, {"w3", []int{8, 16, 1, 1}}, {"w4", []int{8, 4, 3, 3}},
		{"wm", []int{40, 24}}, {"bm", []int{24}}, {"wg", []int{48, 300}}, {"bg", []int{48}}} {
		x := randomF32(rng, w.shape...)
		var shape []int64
		for _, d := range w.shape {
			shape = append(shape, int64(d))
		}
		weights = append(weights, onnx.Weight{Name: w.name, DType: "f32", Shape: shape, Data: x.Data})
	}
	st, err := onnx.Safetensors(weights)
	require.NoError(t, err)
	params := filepath.Join(dir, "p.safetensors")
	require.NoError(t, os.WriteFile(params, st, 0o644))

	// wrapgen run packs per call (-pack-weights=false: the same bits as
	// packed): with its weights packed, the Go FusedConv of the grouped
	// conv with a sum (ops[3]) wants more scratch than the planner's
	// packed-weights rule gives it.
	goOut := filepath.Join(dir, "go")
	args := []string{"run", "-q", "-pack-weights=false"}
	for _, p := range ins {
		args = append(args, "-in", p)
	}
	_, _, err = runCLI(append(args, "-params", params, "-out", goOut, convMatMulGraph)...)
	require.NoError(t, err)

	var sources []string
	for _, f := range cpp.RefKernelFiles() {
		if strings.HasSuffix(f.Path, ".cc") {
			sources = append(sources, f.Path)
		}
	}
	if _, err := os.Stat(filepath.Join(gen, "wgref", stubFile)); err == nil {
		sources = append(sources, filepath.Join("wgref", stubFile))
	}
	sources = append(sources, cpp.RuntimeSource, "conv_matmul.cc", "conv_matmul_main.cc", "prepare_test.cc", "prepare_allocs.cc")
	flags := []string{"-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread"}
	objects := compileEach(t, gxx, flags, gen, sources)
	n := len(objects)
	link := func(bin string, objs ...string) {
		out, err := exec.Command(gxx, append(append(append([]string{}, flags...), "-o", bin), objs...)...).CombinedOutput()
		require.NoError(t, err, "link %s: %s", bin, out)
	}
	lib := objects[:n-3]
	mainBin, testBin := filepath.Join(dir, "conv_matmul_main"), filepath.Join(dir, "prepare_test")
	link(mainBin, append(append([]string{}, lib...), objects[n-3])...)
	link(testBin, append(append([]string{}, lib...), objects[n-2:]...)...)

	packedRE := regexp.MustCompile(`(?m)^packed weights: (\d+) bytes`)
	runMain := func(outDir string, extra ...string) int {
		args := []string{"-params", params, "-out", outDir, "-repeat", "3"}
		for _, p := range ins {
			args = append(args, "-in", p)
		}
		out, err := exec.Command(mainBin, append(args, extra...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		m := packedRE.FindStringSubmatch(string(out))
		require.NotNil(t, m, "%s", out)
		got, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		return got
	}
	outputs := func(outDir string) [][]byte {
		var all [][]byte
		for i := 0; i < 3; i++ {
			data, err := os.ReadFile(filepath.Join(outDir, fmt.Sprintf("output_%d.npy", i)))
			require.NoError(t, err)
			all = append(all, data)
		}
		return all
	}
	packed := runMain(filepath.Join(dir, "packed"), "-threads", "2")
	assert.Greater(t, packed, 0, "the runner packs the weights by default")
	assert.Equal(t, 0, runMain(filepath.Join(dir, "plain"), "-threads", "2", "-pack-weights=false"))
	assert.Equal(t, packed, runMain(filepath.Join(dir, "packed1"), "-threads", "1", "-pack-weights"))
	want := outputs(filepath.Join(dir, "packed"))
	for _, other := range []string{"plain", "packed1"} {
		for i, got := range outputs(filepath.Join(dir, other)) {
			assert.True(t, bytes.Equal(want[i], got), "%s: output %d differs from the packed run's at 2 threads", other, i)
		}
	}
	for i := 0; i < 3; i++ {
		compareNpy(t, filepath.Join(goOut, fmt.Sprintf("output_%d.npy", i)), filepath.Join(dir, "packed", fmt.Sprintf("output_%d.npy", i)))
	}
	out, err := exec.Command(mainBin, "-pack-weights=maybe").CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "-pack-weights=maybe: want true or false")

	out, err = exec.Command(testBin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "runner prepared: 5 steady calls at 2 threads, 0 allocations")
	assert.Regexp(t, regexp.MustCompile(`(?m)^ok$`), string(out))
	t.Logf("%s", out)
}
