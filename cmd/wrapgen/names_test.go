package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kernelsGraph is a graph named name with one op per kernel (a chain of
// unary ops), written to dir/g.json.
func kernelsGraph(t *testing.T, dir, name string, kernels ...string) string {
	t.Helper()
	tensors := []string{`"t0": {"dtype": "f32", "shape": [4]}`}
	var ops []string
	for i, k := range kernels {
		tensors = append(tensors, `"t`+strconv.Itoa(i+1)+`": {"dtype": "f32", "shape": [4]}`)
		ops = append(ops, `{"kernel": "`+k+`", "inputs": ["t`+strconv.Itoa(i)+`"], "outputs": ["t`+strconv.Itoa(i+1)+`"]}`)
	}
	src := `{"name": "` + name + `", "tensors": {` + strings.Join(tensors, ", ") + `},
	  "inputs": ["t0"], "outputs": ["t` + strconv.Itoa(len(kernels)) + `"], "ops": [` + strings.Join(ops, ", ") + `]}`
	path := filepath.Join(dir, "g.json")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

// Kernels named after the methods go vet holds to a standard signature
// (io.ByteReader's ReadByte, ...) become other method names: the generated
// Go builds and vets (selftest -run=false runs go build and go vet).
func TestGoKernelsNamedLikeVetMethods(t *testing.T) {
	dir := t.TempDir()
	path := kernelsGraph(t, dir, "vetnames", "read_byte", "read_rune", "unread_byte", "unread_rune", "write_byte",
		"gob_encode", "gob_decode", "string", "format", "scan", "seek", "write_to", "read_from", "marshal_json", "error", "unwrap")
	_, stderr, err := runCLI("selftest", "-run=false", path)
	require.NoError(t, err, "%s", stderr)
}

// A C++ graph whose namespace would be a name the standard headers declare
// or define (stdout, stdin, stderr, time, a macro such as assert or
// linux) is refused, naming it; kernels named after macros (EOF, NULL,
// INFINITY, BUFSIZ) get other method names, and the wrapper compiles
// after every C++17 standard header.
func TestCppNamesAvoidStandardHeaders(t *testing.T) {
	for _, name := range []string{"stdout", "stdin", "stderr", "time", "assert", "linux"} {
		dir := t.TempDir()
		path := kernelsGraph(t, dir, name, "Relu")
		_, _, err := runCLI("gen", "-q", "-lang", "cpp", "-o", filepath.Join(dir, "gen"), path)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), `graph name "`+name+`"`, name)
		assert.Contains(t, err.Error(), "a standard library name", name)
	}

	cxx := cxxCompilers()
	if len(cxx) == 0 {
		t.Skip("no C++ compiler")
	}
	dir := t.TempDir()
	path := kernelsGraph(t, dir, "macroKernels", "EOF", "NULL", "INFINITY", "BUFSIZ", "errno", "SEEK_SET")
	out := filepath.Join(dir, "gen")
	_, _, err := runCLI("gen", "-q", "-lang", "cpp", "-o", out, path)
	require.NoError(t, err)
	var tu strings.Builder
	for _, h := range strings.Fields(`algorithm array atomic cassert cctype cerrno cfenv cfloat cinttypes climits clocale cmath
		csetjmp csignal cstdarg cstddef cstdint cstdio cstdlib cstring ctime cwchar cwctype iostream map memory string thread vector`) {
		tu.WriteString("#include <" + h + ">\n")
	}
	require.NoError(t, os.WriteFile(filepath.Join(out, "all_headers.h"), []byte(tu.String()), 0o644))
	for _, std := range []string{"-std=c++17", "-std=gnu++17"} {
		// The wrapper's source, as a program's file would include it: after
		// the standard headers.
		cmd := exec.Command(cxx[0], std, "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-include", "all_headers.h", "macro_kernels.cc")
		cmd.Dir = out
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s %s: %s", cxx[0], std, b)
	}
}

// TestPackageNameNeverKeyword: a wrapper generated into a folder named go
// (or any Go keyword) is package go_, and -package given a keyword is
// refused naming it.
func TestPackageNameNeverKeyword(t *testing.T) {
	assert.Equal(t, "go_", sanitizePackage("go"))
	assert.Equal(t, "type_", sanitizePackage("Type"))
	assert.Equal(t, "mymodel", sanitizePackage("my-model"))
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n"), 0o644))
	_, _, err := runCLI("gen", "-q", "-package", "func", "-o", filepath.Join(dir, "w.go"), "../../examples/mlp/mlp.json")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `-package func: not a Go package name`)
}
