package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
)

// A graph's own kernel named like a fused kernel of wrapgen's (FusedConv),
// with a signature of its own, is refused naming the kernel and saying the
// name is the fused kernel's, not as a bug of wrapgen's.
func TestUserKernelNamedLikeAFusedKernel(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fc.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"name": "fc",
	  "tensors": {"x": {"dtype": "f32", "shape": [1, 1, 4, 4]}, "w": {"dtype": "f32", "shape": [1, 1, 1, 1]},
	    "c": {"dtype": "f32", "shape": [1, 1, 4, 4]}, "y": {"dtype": "f32", "shape": [1, 1, 4, 4]}, "z": {"dtype": "f32", "shape": [1, 1, 4, 4]}},
	  "inputs": ["x", "w"], "outputs": ["y", "z"],
	  "ops": [{"kernel": "FusedConv", "inputs": ["x", "w"], "outputs": ["y"]},
	          {"kernel": "Conv", "inputs": ["x", "w"], "outputs": ["c"]}, {"kernel": "Relu", "inputs": ["c"], "outputs": ["z"]}]}`), 0o644))
	for _, args := range [][]string{{"plan", "-kernels", "ref", path}, {"run", path}} {
		_, _, err := runCLI(args...)
		require.Error(t, err, "%v", args)
		assert.Contains(t, err.Error(), `ops[0] (kernel "FusedConv"): kernel name "FusedConv" is the name of a fused kernel`)
		assert.Contains(t, err.Error(), "rename the graph's kernel")
		assert.NotContains(t, err.Error(), "wrapgen bug")
	}
	// Without the reference kernels nothing fuses, and the name is free.
	_, _, err := runCLI("plan", path)
	require.NoError(t, err)
}

// run -threads above what the kernels use is refused, rather than
// reported as the count that ran; the cap is wgref's own.
func TestRunThreadsCap(t *testing.T) {
	defer wgref.SetThreads(wgref.Threads())
	wgref.SetThreads(maxRunThreads + 1)
	require.Equal(t, maxRunThreads, wgref.Threads(), "maxRunThreads is wgref's cap")

	path := tinyGraph(t, t.TempDir(), "g.json", "g")
	_, _, err := runCLI("run", "-threads", "5000", path)
	assert.ErrorContains(t, err, "-threads 5000: want 1 to "+strconv.Itoa(maxRunThreads))
	stdout, _, err := runCLI("run", "-repeat", "2", "-threads", strconv.Itoa(maxRunThreads), path)
	require.NoError(t, err)
	assert.Contains(t, stdout, strconv.Itoa(maxRunThreads)+" threads")
}

// A tensor name holding a carriage return (or another control character)
// is printed quoted by run, so that it cannot overwrite its own line.
func TestRunQuotesControlCharactersInNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cr.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"name": "cr",
	  "tensors": {"x": {"dtype": "f32", "shape": [4]}, "y\rz": {"dtype": "f32", "shape": [4]}},
	  "inputs": ["x"], "outputs": ["y\rz"], "ops": [{"kernel": "Relu", "inputs": ["x"], "outputs": ["y\rz"]}]}`), 0o644))
	stdout, _, err := runCLI("run", path)
	require.NoError(t, err)
	assert.NotContains(t, stdout, "\r")
	assert.True(t, strings.HasPrefix(stdout, `"y\rz": f32 [4]`), "%q", stdout)
}

// TestPlanQuotesControlNames: a carriage return or an escape sequence in a
// graph, tensor, kernel or device name is printed quoted by plan (the
// program lines, the summary, the memory map), so it cannot rewrite or
// hide what is printed around it.
func TestPlanQuotesControlNames(t *testing.T) {
	src := `{"name": "g\rx", "tensors": {"a\rb": {"dtype": "f32", "shape": [4]}, "y\u001b[31m": {"dtype": "f32", "shape": [4], "device": "d\r"},
 "o": {"dtype": "f32", "shape": [4]}}, "inputs": ["a\rb"], "outputs": ["o"],
 "ops": [{"kernel": "k\r", "inputs": ["a\rb"], "outputs": ["y\u001b[31m"]}, {"kernel": "k", "inputs": ["y\u001b[31m"], "outputs": ["o"]}]}`
	file := filepath.Join(t.TempDir(), "g.json")
	require.NoError(t, os.WriteFile(file, []byte(src), 0o644))
	out, _, err := runCLI("plan", "-map", file)
	require.NoError(t, err)
	assert.NotContains(t, out, "\r")
	assert.NotContains(t, out, "\x1b")
	for _, want := range []string{`Kernel "k\r"("a\rb") -> ("y\x1b[31m")`, `graph                "g\rx"`, `"d\r"`, `AllocFromPool "y\x1b[31m" = `} {
		assert.Contains(t, out, want)
	}
}

// TestSymbolDocInWrappers: a symbol's doc (what the importer's height_div4
// stands for) is in the Go and C++ wrappers' input comments and ends the
// error either gives for an input of another size.
func TestSymbolDocInWrappers(t *testing.T) {
	src := `{"name": "g", "symbols": {"h_div4": {"hint": 1, "min": 1, "doc": "h/4: h must be a multiple of 4 (node \"/Concat\")"}},
 "tensors": {"x": {"dtype": "f32", "shape": ["4*h_div4"]}, "y": {"dtype": "f32", "shape": ["4*h_div4"]}},
 "inputs": ["x"], "outputs": ["y"], "ops": [{"kernel": "k", "inputs": ["x"], "outputs": ["y"]}]}`
	dir := t.TempDir()
	file := filepath.Join(dir, "g.json")
	require.NoError(t, os.WriteFile(file, []byte(src), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "go"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go", "go.mod"), []byte("module m\n"), 0o644))
	_, _, err := runCLI("gen", "-q", "-lang", "go", "-o", filepath.Join(dir, "go", "g.go"), file)
	require.NoError(t, err)
	goSrc, err := os.ReadFile(filepath.Join(dir, "go", "g.go"))
	require.NoError(t, err)
	assert.Contains(t, string(goSrc), `; "h_div4" is "h/4: h must be a multiple of 4 (node \"/Concat\")"`)
	assert.Contains(t, string(goSrc), `" (h_div4 is h/4: h must be a multiple of 4 (node \"/Concat\"))"`)
	_, _, err = runCLI("gen", "-q", "-lang", "cpp", "-o", filepath.Join(dir, "cpp"), file)
	require.NoError(t, err)
	ccSrc, err := os.ReadFile(filepath.Join(dir, "cpp", "g.cc"))
	require.NoError(t, err)
	assert.Contains(t, string(ccSrc), `s.message() + " (h_div4 is h/4: h must be a multiple of 4 (node \"/Concat\"))"`)
	out, _, err := runCLI("plan", file)
	require.NoError(t, err)
	assert.Regexp(t, `symbol h_div4 +h/4: h must be a multiple of 4 \(node "/Concat"\)`, out)
}

// TestPlanQuiet: plan takes -q, as gen, import and run do: the -svg file is
// written but not named.
func TestPlanQuiet(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "map.svg")
	_, stderr, err := runCLI("plan", "-q", "-svg", svg, "../../examples/mlp/mlp.json")
	require.NoError(t, err)
	assert.Empty(t, stderr)
	assert.FileExists(t, svg)
	_, stderr, err = runCLI("plan", "-svg", svg, "../../examples/mlp/mlp.json")
	require.NoError(t, err)
	assert.Contains(t, stderr, "map.svg")
}
