package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// tinyGraph is a one-op graph named name, written to dir/file.
func tinyGraph(t *testing.T, dir, file, name string) string {
	t.Helper()
	path := filepath.Join(dir, file)
	src := `{"name": "` + name + `", "tensors": {"x": {"dtype": "f32", "shape": [4]}, "y": {"dtype": "f32", "shape": [4]}},
	  "inputs": ["x"], "outputs": ["y"], "ops": [{"kernel": "Relu", "inputs": ["x"], "outputs": ["y"]}]}`
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

// userFile writes a file of the user's (no wrapgen banner) and returns a
// check that it still holds what was written.
func userFile(t *testing.T, path, content string) func() {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return func() {
		t.Helper()
		have, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, content, string(have), "%s, the user's file, was replaced", path)
	}
}

// -cpuprofile is checked like every other output: an input of the command
// (the graph, a .npy input, the params file) or a FIFO is refused before
// any work, and left as it was.
func TestCPUProfileIsCheckedLikeOutputs(t *testing.T) {
	dir := t.TempDir()
	graphPath := tinyGraph(t, dir, "g.json", "g")
	graphBytes, err := os.ReadFile(graphPath)
	require.NoError(t, err)
	npy := filepath.Join(dir, "x.npy")
	data, err := writeNpy(wgrt.FromFloat32s([]float32{1, -2, 3, -4}, 4))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(npy, data, 0o644))
	params := filepath.Join(dir, "w.safetensors")
	paramsStill := userFile(t, params, "not read before the check")
	pipe := fifo(t)

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"plan GRAPH", []string{"plan", "-cpuprofile", graphPath, graphPath}, "-cpuprofile " + graphPath + ": is the input " + graphPath},
		{"run GRAPH", []string{"run", "-cpuprofile", graphPath, graphPath}, "-cpuprofile " + graphPath + ": is the input " + graphPath},
		{"run -in NPY", []string{"run", "-in", npy, "-cpuprofile", npy, graphPath}, "-cpuprofile " + npy + ": is the input " + npy},
		{"run -params", []string{"run", "-params", params, "-cpuprofile", params, graphPath}, "-cpuprofile " + params + ": is the input " + params},
		{"plan FIFO", []string{"plan", "-cpuprofile", pipe, graphPath}, "-cpuprofile " + pipe + ": is a FIFO"},
		{"run folder", []string{"run", "-cpuprofile", dir, graphPath}, "-cpuprofile " + dir + ": is a directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := runCLI(c.args...)
			assert.ErrorContains(t, err, c.want)
		})
	}
	have, err := os.ReadFile(graphPath)
	require.NoError(t, err)
	assert.Equal(t, string(graphBytes), string(have))
	have, err = os.ReadFile(npy)
	require.NoError(t, err)
	assert.Equal(t, data, have)
	paramsStill()

	// A profile that may be written is, complete, with no temporary file
	// left beside it.
	prof := filepath.Join(dir, "cpu.prof")
	_, _, err = runCLI("run", "-q", "-cpuprofile", prof, graphPath)
	require.NoError(t, err)
	st, err := os.Stat(prof)
	require.NoError(t, err)
	assert.NotZero(t, st.Size())
	left, _ := filepath.Glob(filepath.Join(dir, ".*wrapgen-*"))
	assert.Empty(t, left)
}

// gen -runtime into the wrapper's own package folder is refused (the
// runtime's doc.go would replace the user's), and so is a runtime folder
// whose wgref sibling (-kernels ref) is the wrapper's or the runtime's.
func TestGenRuntimeNotTheWrapperFolder(t *testing.T) {
	dir := tempModule(t)
	graphPath := tinyGraph(t, dir, "g.json", "g")
	pkg := filepath.Join(dir, "w")
	docStill := userFile(t, filepath.Join(pkg, "doc.go"), "// Package w is mine.\npackage w\n")
	_, _, err := runCLI("gen", "-q", "-o", filepath.Join(pkg, "w.go"), "-runtime", pkg, graphPath)
	assert.ErrorContains(t, err, "-runtime "+pkg+": is the folder of the wrapper -o "+filepath.Join(pkg, "w.go"))
	docStill()
	assert.NoFileExists(t, filepath.Join(pkg, "w.go"))

	_, _, err = runCLI("gen", "-q", "-kernels", "ref", "-o", filepath.Join(dir, "wgref", "w.go"), "-runtime", filepath.Join(dir, "rt"), graphPath)
	assert.ErrorContains(t, err, "which is the folder of the wrapper")
	_, _, err = runCLI("gen", "-q", "-kernels", "ref", "-o", filepath.Join(pkg, "w.go"), "-runtime", filepath.Join(dir, "wgref"), graphPath)
	assert.ErrorContains(t, err, "which is this folder")
}

// gen replaces only files that carry wrapgen's banner: a graph named
// "main" generated into a folder holding the user's main.cc leaves it, and
// so does a Go wrapper -o over a user's file.
func TestGenReplacesOnlyGeneratedFiles(t *testing.T) {
	dir := t.TempDir()
	graphPath := tinyGraph(t, dir, "m.json", "main")
	mainStill := userFile(t, filepath.Join(dir, "main.cc"), "int main() { return 0; }\n")
	_, _, err := runCLI("gen", "-q", "-lang", "cpp", "-o", dir, graphPath)
	assert.ErrorContains(t, err, filepath.Join(dir, "main.cc")+": exists and was not written by wrapgen")
	mainStill()
	assert.NoFileExists(t, filepath.Join(dir, "main.h"), "nothing is written")

	mod := tempModule(t)
	wrapperStill := userFile(t, filepath.Join(mod, "w", "w.go"), "package w\n\nfunc Mine() {}\n")
	_, _, err = runCLI("gen", "-q", "-o", filepath.Join(mod, "w", "w.go"), graphPath)
	assert.ErrorContains(t, err, "was not written by wrapgen")
	wrapperStill()

	// What gen wrote, gen replaces.
	out := filepath.Join(t.TempDir(), "gen")
	_, _, err = runCLI("gen", "-q", "-lang", "cpp", "-o", out, graphPath)
	require.NoError(t, err)
	_, _, err = runCLI("gen", "-q", "-lang", "cpp", "-o", out, graphPath)
	require.NoError(t, err)
}

// Every file gen and selftest write starts with wrapgen's banner, so that
// gen can tell its files from the user's (Go wrapper and runtime, the
// kernels, C++ with CMake and the runner, the selftest module).
func TestEveryGeneratedFileCarriesTheBanner(t *testing.T) {
	mod := tempModule(t)
	graphPath := tinyGraph(t, mod, "g.json", "g")
	_, _, err := runCLI("gen", "-q", "-kernels", "ref", "-o", filepath.Join(mod, "w", "w.go"), graphPath)
	require.NoError(t, err)
	cppDir := filepath.Join(t.TempDir(), "cpp")
	_, _, err = runCLI("gen", "-q", "-lang", "cpp", "-kernels", "ref", "-main", "-o", cppDir, graphPath)
	require.NoError(t, err)
	keep := filepath.Join(t.TempDir(), "keep")
	_, _, err = runCLI("selftest", "-run=false", "-keep", keep, graphPath)
	require.NoError(t, err)
	count := 0
	for _, root := range []string{filepath.Join(mod, "w"), cppDir, keep} {
		require.NoError(t, filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || isSelftestBuild(keep, path) {
				return err
			}
			head, ok := fileHead(path)
			require.True(t, ok, path)
			assert.True(t, isGenerated(head), "%s does not start with wrapgen's banner: %q", path, firstLine(head))
			count++
			return nil
		}))
	}
	assert.Greater(t, count, 100)
}

func firstLine(b []byte) string {
	line, _, _ := strings.Cut(string(b), "\n")
	return line
}

// Graphs tiny_bert and tinyBert give the same C++ file names: the second
// is refused, naming both graphs, and the first one's files are kept.
func TestGenRefusesAnotherGraphsFiles(t *testing.T) {
	dir := t.TempDir()
	first := tinyGraph(t, dir, "a.json", "tiny_bert")
	second := tinyGraph(t, dir, "b.json", "tinyBert")
	out := filepath.Join(dir, "gen")
	_, _, err := runCLI("gen", "-q", "-lang", "cpp", "-o", out, first)
	require.NoError(t, err)
	before, err := os.ReadFile(filepath.Join(out, "tiny_bert.h"))
	require.NoError(t, err)
	_, _, err = runCLI("gen", "-q", "-lang", "cpp", "-o", out, second)
	assert.ErrorContains(t, err, filepath.Join(out, "tiny_bert.h")+`: was generated for graph "tiny_bert", and graph "tinyBert" gives the same file name`)
	after, err := os.ReadFile(filepath.Join(out, "tiny_bert.h"))
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
}

// selftest -keep refuses a folder holding files it did not write (an
// existing project's go.mod and main.go), and takes a folder a selftest
// used before.
func TestSelftestKeepRefusesAProject(t *testing.T) {
	dir := t.TempDir()
	graphPath := tinyGraph(t, t.TempDir(), "g.json", "g")
	modStill := userFile(t, filepath.Join(dir, "go.mod"), "module example.com/mine\n\ngo 1.26\n")
	mainStill := userFile(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() {}\n")
	_, _, err := runCLI("selftest", "-run=false", "-keep", dir, graphPath)
	require.Error(t, err)
	assert.Regexp(t, `-keep .*: holds (go\.mod|main\.go), which selftest did not write`, err.Error())
	modStill()
	mainStill()

	again := filepath.Join(t.TempDir(), "again")
	for i := 0; i < 2; i++ {
		_, _, err = runCLI("selftest", "-run=false", "-keep", again, graphPath)
		require.NoError(t, err, "run %d", i)
	}
}

// In the folders gen owns (the vendored wgrt, wgref), a generated file gen
// no longer writes fails gen -check and is removed by gen; a file of the
// user's there is refused by both, and kept.
func TestGenStaleFilesInOwnedFolders(t *testing.T) {
	mod := tempModule(t)
	graphPath := tinyGraph(t, mod, "g.json", "g")
	out := filepath.Join(mod, "w", "w.go")
	args := []string{"gen", "-q", "-o", out, graphPath}
	_, _, err := runCLI(args...)
	require.NoError(t, err)
	rt := filepath.Join(mod, "w", "wgrt")
	doc, err := os.ReadFile(filepath.Join(rt, "doc.go"))
	require.NoError(t, err)
	stale := filepath.Join(rt, "removed_since.go")
	require.NoError(t, os.WriteFile(stale, doc, 0o644)) // an older runtime's file

	_, _, err = runCLI(append([]string{"gen", "-check"}, args[2:]...)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "out of date")
	assert.Contains(t, err.Error(), stale)
	assert.Equal(t, 4, exitCode(err))

	_, stderr, err := runCLI("gen", "-o", out, graphPath)
	require.NoError(t, err)
	assert.Contains(t, stderr, "removed "+stale)
	assert.NoFileExists(t, stale)
	_, _, err = runCLI(append([]string{"gen", "-check"}, args[2:]...)...)
	require.NoError(t, err)

	mine := filepath.Join(rt, "mine.go")
	mineStill := userFile(t, mine, "package wgrt\n")
	for _, a := range [][]string{append([]string{"gen", "-check"}, args[2:]...), args} {
		_, _, err = runCLI(a...)
		assert.ErrorContains(t, err, mine+": in a folder wrapgen owns")
	}
	mineStill()
}
