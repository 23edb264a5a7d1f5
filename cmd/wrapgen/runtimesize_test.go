package main

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
)

// A graph with a run-time size (testdata/runtime_sizes): the generated C++
// lays the setting op's output out at its bound, and the later op and the
// output at the size the kernel reports, under ASan and UBSan.
func TestRunTimeSizeCpp(t *testing.T) {
	testenv.SkipUnlessLong(t, "compiles C++ with sanitizers")
	t.Parallel() // builds and runs other programs: overlaps with the other long tests
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++")
	}
	dir := t.TempDir()
	_, _, err := runCLI("gen", "-lang", "cpp", "-q", "-o", dir, "testdata/runtime_sizes/nonzero.json")
	require.NoError(t, err)
	main, err := filepath.Abs("testdata/runtime_sizes/main.cc")
	require.NoError(t, err)
	bin := filepath.Join(dir, "nonzero")
	out, err := exec.Command("g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
		"-I", dir, "-o", bin, main, filepath.Join(dir, "nonzero.cc"), filepath.Join(dir, "wrapgen_runtime.cc")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(bin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	// x[e] is nonzero unless e%3 == 1 or e%4 == 0: the coordinates, negated.
	assert.Equal(t, "n=1 z[1, 2]: (0 -2)\n"+
		"n=4 z[6, 2]: (0 -2) (-1 0) (-1 -2) (-2 0) (-3 0) (-3 -2)\n"+
		"n=5 z[7, 2]: (0 -2) (-1 0) (-1 -2) (-2 0) (-3 0) (-3 -2) (-4 -2)\n", string(out))
}
