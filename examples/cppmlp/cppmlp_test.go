package cppmlp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
)

// TestBuildAndRun compiles the generated wrapper and runtime with the
// example's kernels as strictly as wrapgen promises (-Wshadow and
// -Wconversion too, warnings are errors, sanitizers on) and runs the checks
// in main.cc.
func TestBuildAndRun(t *testing.T) {
	testenv.SkipUnlessLong(t, "compiles C++ with sanitizers")
	cxx := os.Getenv("CXX")
	if cxx == "" {
		var err error
		if cxx, err = exec.LookPath("g++"); err != nil {
			if cxx, err = exec.LookPath("clang++"); err != nil {
				t.Skip("no C++ compiler (g++ or clang++) installed; install one to build the C++ example")
			}
		}
	}
	bin := filepath.Join(t.TempDir(), "cppmlp")
	cmd := exec.Command(cxx, "-std=c++17", "-O1", "-g", "-Wall", "-Wextra", "-Wshadow", "-Wconversion", "-Werror",
		"-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-o", bin, "cpp/main.cc", "gen/mlp.cc", "gen/wrapgen_runtime.cc")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "build: %s", out)
	out, err = exec.Command(bin).CombinedOutput()
	require.NoError(t, err, "run: %s", out)
	require.True(t, strings.Contains(string(out), "cppmlp: ok"), "%s", out)
	t.Logf("%s", out)
}
