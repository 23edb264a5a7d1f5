package main

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph/onnx"
	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/wrapper/cpp"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// convActGraph is a small graph of kernels the C++ reference kernels
// have: a Conv (int-list and int attributes, params, planned scratch),
// unary kernels with a float and a string attribute, two outputs.
const convActGraph = "testdata/cppref/convact.json"

// gen -lang cpp -kernels ref -main writes the reference kernels, the
// CMake build, the runner and its .npy header beside the wrapper, and a
// header with RefKernels and Options::threads; without -kernels ref none
// of that (those wrappers are the goldens').
func TestGenCppRefKernelsFiles(t *testing.T) {
	dir := t.TempDir()
	_, _, err := runCLI("gen", "-q", "-lang", "cpp", "-kernels", "ref", "-main", "-o", dir, convActGraph)
	require.NoError(t, err)
	for _, f := range cpp.RefKernelFiles() {
		want, err := os.ReadFile(filepath.Join(dir, f.Path))
		require.NoError(t, err)
		assert.Equal(t, string(f.Content), string(want), f.Path)
	}
	assert.FileExists(t, filepath.Join(dir, "wgref", "wgref.h"))
	for _, name := range []string{"conv_act.h", "conv_act.cc", "conv_act_main.cc", cpp.NpyHeader, cpp.CMakeFile, cpp.RuntimeHeader, cpp.RuntimeSource} {
		assert.FileExists(t, filepath.Join(dir, name))
	}
	h, err := os.ReadFile(filepath.Join(dir, "conv_act.h"))
	require.NoError(t, err)
	assert.Contains(t, string(h), "class RefKernels final : public Kernels {")
	assert.Contains(t, string(h), "  int threads = 0;")
	assert.Contains(t, string(h), "virtual void BeginRun(int threads)")
	cc, err := os.ReadFile(filepath.Join(dir, "conv_act.cc"))
	require.NoError(t, err)
	assert.Contains(t, string(cc), `#include "wgref/wgref.h"`)
	assert.Contains(t, string(cc), `IntsAttr("kernel_shape", kernelShape)`, "attributes go by their graph names")
	assert.Contains(t, string(cc), "ref_call.scratch = scratch.data;")
	assert.NotContains(t, string(cc), "std::vector<wgref", "no allocation per call")
	cm, err := os.ReadFile(filepath.Join(dir, cpp.CMakeFile))
	require.NoError(t, err)
	assert.Contains(t, string(cm), "add_library(wgref STATIC")
	assert.Contains(t, string(cm), "add_library(conv_act STATIC conv_act.cc)")
	assert.Contains(t, string(cm), "add_executable(conv_act_main conv_act_main.cc)")

	// Without -main: no runner; without -kernels ref: none of it.
	dir2 := t.TempDir()
	_, _, err = runCLI("gen", "-q", "-lang", "cpp", "-kernels", "ref", "-o", dir2, convActGraph)
	require.NoError(t, err)
	assert.NoFileExists(t, filepath.Join(dir2, "conv_act_main.cc"))
	assert.NoFileExists(t, filepath.Join(dir2, cpp.NpyHeader))
	cm, err = os.ReadFile(filepath.Join(dir2, cpp.CMakeFile))
	require.NoError(t, err)
	assert.NotContains(t, string(cm), "add_executable")
	dir3 := t.TempDir()
	_, _, err = runCLI("gen", "-q", "-lang", "cpp", "-o", dir3, convActGraph)
	require.NoError(t, err)
	entries, err := os.ReadDir(dir3)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"conv_act.h", "conv_act.cc", cpp.RuntimeHeader, cpp.RuntimeSource}, names)
	h, err = os.ReadFile(filepath.Join(dir3, "conv_act.h"))
	require.NoError(t, err)
	assert.NotContains(t, string(h), "RefKernels")
	assert.NotContains(t, string(h), "threads")
}

func TestGenCppRefKernelsRefusals(t *testing.T) {
	dir := t.TempDir()
	_, _, err := runCLI("gen", "-q", "-lang", "cpp", "-main", "-o", dir, convActGraph)
	require.Error(t, err)
	assert.Equal(t, 2, exitCode(err), "%v", err)
	assert.Contains(t, err.Error(), "-main")
	_, _, err = runCLI("gen", "-q", "-lang", "go", "-kernels", "ref", "-main", "-o", filepath.Join(dir, "w.go"), convActGraph)
	require.Error(t, err)
	assert.Equal(t, 2, exitCode(err), "%v", err)
	// The kernels of examples/mlp are its own: the reference kernels have none.
	_, _, err = runCLI("gen", "-q", "-lang", "cpp", "-kernels", "ref", "-o", dir, "../../examples/mlp/mlp.json")
	require.Error(t, err)
	assert.Equal(t, 3, exitCode(err), "%v", err)
	assert.Contains(t, err.Error(), `-kernels ref: the reference kernels have no kernel "matmul"`)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "a refused gen writes nothing")
}

// The generated wrapper, its RefKernels and its runner compile with g++
// -Wall -Wextra -Werror (and the wrapper and runner with clang++), and
// through the CMakeLists.txt; the runner's outputs on .npy inputs match
// wrapgen run's (the Go reference kernels) on the same files.
func TestGenCppRefKernelsMainMatchesRun(t *testing.T) {
	testenv.SkipUnlessLong(t, "compiles the C++ reference kernels")
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++")
	}
	dir := t.TempDir()
	gen := filepath.Join(dir, "gen")
	_, _, err = runCLI("gen", "-q", "-lang", "cpp", "-kernels", "ref", "-main", "-o", gen, convActGraph)
	require.NoError(t, err)
	stubRegisterFuncs(t, gen)

	// Inputs and params, written once, read by both.
	rng := rand.New(rand.NewSource(7))
	x := randomF32(rng, 2, 3, 6, 6)
	xPath := filepath.Join(dir, "x.npy")
	data, err := writeNpy(x)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(xPath, data, 0o644))
	w, b := randomF32(rng, 4, 3, 3, 3), randomF32(rng, 4)
	st, err := onnx.Safetensors([]onnx.Weight{{Name: "w", DType: "f32", Shape: []int64{4, 3, 3, 3}, Data: w.Data}, {Name: "b", DType: "f32", Shape: []int64{4}, Data: b.Data}})
	require.NoError(t, err)
	params := filepath.Join(dir, "p.safetensors")
	require.NoError(t, os.WriteFile(params, st, 0o644))

	goOut := filepath.Join(dir, "go")
	_, _, err = runCLI("run", "-q", "-in", xPath, "-params", params, "-out", goOut, convActGraph)
	require.NoError(t, err)

	// g++, strict, every source.
	var sources []string
	for _, f := range cpp.RefKernelFiles() {
		if strings.HasSuffix(f.Path, ".cc") {
			sources = append(sources, f.Path)
		}
	}
	if _, err := os.Stat(filepath.Join(gen, "wgref", stubFile)); err == nil {
		sources = append(sources, filepath.Join("wgref", stubFile))
	}
	sources = append(sources, cpp.RuntimeSource, "conv_act.cc", "conv_act_main.cc")
	flags := []string{"-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread"}
	objects := compileEach(t, gxx, flags, gen, sources)
	bin := filepath.Join(dir, "conv_act_main")
	out, err := exec.Command(gxx, append(append(append([]string{}, flags...), "-o", bin), objects...)...).CombinedOutput()
	require.NoError(t, err, "link: %s", out)
	if clang, err := exec.LookPath("clang++"); err == nil {
		compileEach(t, clang, []string{"-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror"}, gen, []string{"conv_act.cc", "conv_act_main.cc"})
	}

	runMain := func(bin, outDir string) {
		out, err := exec.Command(bin, "-params", params, "-in", "x="+xPath, "-out", outDir, "-repeat", "3", "-threads", "2").CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Contains(t, string(out), "output 0 y: f32 [2, 4, 6, 6] -> "+outDir+"/output_0.npy")
		assert.Contains(t, string(out), "output 1 r: f32 [2, 3, 6, 6] -> "+outDir+"/output_1.npy")
		assert.Regexp(t, regexp.MustCompile(`3 calls: wall min [0-9.]+ ms, median [0-9.]+ ms; cpu min [0-9.]+ ms, median [0-9.]+ ms`), string(out))
		for i := 0; i < 2; i++ {
			compareNpy(t, filepath.Join(goOut, fmt.Sprintf("output_%d.npy", i)), filepath.Join(outDir, fmt.Sprintf("output_%d.npy", i)))
		}
	}
	runMain(bin, filepath.Join(dir, "cpp"))

	// The runner's refusals name the file or the flag.
	f16, err := writeNpy(wgrt.New(wgrt.F16, 2, 3, 6, 6))
	require.NoError(t, err)
	bad := filepath.Join(dir, "half.npy")
	require.NoError(t, os.WriteFile(bad, f16, 0o644))
	out, err = exec.Command(bin, "-params", params, "-in", bad).CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), bad+": dtype '<f2' is not supported")
	out, err = exec.Command(bin, "-in", "x="+xPath).CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "has params: give them with -params")
	out, err = exec.Command(bin, "-params", params).CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "input x is not given")

	// CMake: the same sources through the generated build.
	if _, err := exec.LookPath("cmake"); err != nil {
		t.Log("no cmake: the CMake build is not checked")
		return
	}
	build := filepath.Join(dir, "build")
	out, err = exec.Command("cmake", "-S", gen, "-B", build).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command("cmake", "--build", build, "-j", "2").CombinedOutput()
	require.NoError(t, err, "%s", out)
	runMain(filepath.Join(build, "conv_act_main"), filepath.Join(dir, "cmake"))
}

// stubFile holds stubs of the register functions no kernel file of this
// checkout defines yet (the C++ kernels are being written): the test's
// own, added to the build it runs.
const stubFile = "zz_test_stubs.cc"

func stubRegisterFuncs(t *testing.T, gen string) {
	header, err := os.ReadFile(filepath.Join(gen, "wgref", "kernel.h"))
	require.NoError(t, err)
	defined := map[string]bool{}
	ccs, err := filepath.Glob(filepath.Join(gen, "wgref", "*.cc"))
	require.NoError(t, err)
	for _, cc := range ccs {
		src, err := os.ReadFile(cc)
		require.NoError(t, err)
		for _, fn := range registerFuncNames(string(src)) {
			defined[fn] = true
		}
	}
	var stubs []string
	for _, fn := range registerFuncNames(string(header)) {
		if !defined[fn] {
			stubs = append(stubs, "void "+fn+"(Registry*) {}")
		}
	}
	if len(stubs) == 0 {
		return
	}
	t.Logf("no kernel file defines %d register functions yet: stubbed", len(stubs))
	src := "#include \"kernel.h\"\nnamespace wgref {\nnamespace detail {\n" + strings.Join(stubs, "\n") + "\n}  // namespace detail\n}  // namespace wgref\n"
	require.NoError(t, os.WriteFile(filepath.Join(gen, "wgref", stubFile), []byte(src), 0o644))
	f, err := os.OpenFile(filepath.Join(gen, cpp.CMakeFile), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fmt.Fprintf(f, "target_sources(wgref PRIVATE wgref/%s)\n", stubFile)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

var registerFuncRE = regexp.MustCompile(`(?m)^void (Register[A-Za-z]+)\(Registry\*`)

func registerFuncNames(src string) []string {
	var names []string
	for _, m := range registerFuncRE.FindAllStringSubmatch(src, -1) {
		names = append(names, m[1])
	}
	return names
}

// compileEach compiles each source (relative to dir) to an object in
// dir, two at a time, and returns the objects.
func compileEach(t *testing.T, cxx string, flags []string, dir string, sources []string) []string {
	objects := make([]string, len(sources))
	errs := make([]error, len(sources))
	sem := make(chan struct{}, min(2, runtime.NumCPU()))
	var wg sync.WaitGroup
	for i, src := range sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			obj := filepath.Join(dir, strings.NewReplacer("/", "_", ".cc", "."+filepath.Base(cxx)+".o").Replace(src))
			out, err := exec.Command(cxx, append(append([]string{}, flags...), "-I", dir, "-c", "-o", obj, filepath.Join(dir, src))...).CombinedOutput()
			if err != nil {
				errs[i] = fmt.Errorf("%s %s: %v\n%s", filepath.Base(cxx), src, err, out)
			}
			objects[i] = obj
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	return objects
}

// compareNpy checks that two f32 .npy files hold the same shape and
// values within float32 rounding (the C++ kernels' vector paths round
// differently from the Go ones in the last bits).
func compareNpy(t *testing.T, wantPath, gotPath string) {
	read := func(p string) wgrt.Tensor {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		x, err := readNpy(p, data)
		require.NoError(t, err)
		return x
	}
	want, got := read(wantPath), read(gotPath)
	require.Equal(t, want.DType, got.DType, gotPath)
	require.Equal(t, want.Shape, got.Shape, gotPath)
	w, g := want.Float32s(), got.Float32s()
	bad := 0
	for i := range w {
		if d := math.Abs(float64(w[i]) - float64(g[i])); d > 1e-5+1e-5*math.Abs(float64(w[i])) {
			if bad++; bad <= 5 {
				t.Errorf("%s: element %d is %g, wrapgen run gives %g", gotPath, i, g[i], w[i])
			}
		}
	}
	assert.Zero(t, bad, "%s: elements that differ from wrapgen run's", gotPath)
}
