package cppcnn

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
)

// TestBuildAndRun builds the example as a user would, with plain g++ and
// every warning an error (every .cc in gen/ and gen/wgref/ and cpp/main.cc),
// and with CMake on top of gen/CMakeLists.txt when cmake is installed, and
// runs each build from the example's directory: cpp/main.cc exits non-zero
// when the logits are not PyTorch's.
func TestBuildAndRun(t *testing.T) {
	testenv.SkipUnlessLong(t, "compiles the C++ reference kernels (about a minute)")
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ is not installed; install it to build the C++ example")
	}
	srcs := []string{"cpp/main.cc"}
	for _, pattern := range []string{"gen/*.cc", "gen/wgref/*.cc"} {
		files, err := filepath.Glob(pattern)
		require.NoError(t, err)
		require.NotEmpty(t, files, pattern)
		srcs = append(srcs, files...)
	}
	bin := filepath.Join(t.TempDir(), "cppcnn")
	args := append([]string{"-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread", "-I", "gen", "-o", bin}, srcs...)
	out, err := exec.Command(gxx, args...).CombinedOutput()
	require.NoError(t, err, "g++: %s", out)
	run(t, bin)

	cmake, err := exec.LookPath("cmake")
	if err != nil {
		t.Log("cmake is not installed: the CMake build is not tried")
		return
	}
	build := t.TempDir()
	out, err = exec.Command(cmake, "-S", ".", "-B", build).CombinedOutput()
	require.NoError(t, err, "cmake: %s", out)
	out, err = exec.Command(cmake, "--build", build, "-j", "2").CombinedOutput()
	require.NoError(t, err, "cmake --build: %s", out)
	run(t, filepath.Join(build, "cppcnn"))
}

// run runs the example's program from its directory and requires it to
// pass.
func run(t *testing.T, bin string) {
	t.Helper()
	out, err := exec.Command(bin).CombinedOutput()
	require.NoError(t, err, "%s: %s", bin, out)
	require.True(t, strings.Contains(string(out), "cppcnn: ok"), "%s", out)
	t.Logf("%s:\n%s", bin, out)
}
