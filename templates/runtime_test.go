package templates

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
)

// strictFlags are the warnings the runtime must build clean under (its
// header is included by every generated C++ wrapper and by users').
var strictFlags = []string{"-std=c++17", "-O1", "-g", "-Wall", "-Wextra", "-Wshadow", "-Wconversion", "-Werror",
	"-fsanitize=address,undefined", "-fno-sanitize-recover=all"}

// TestRuntimeViews compiles testdata/runtime_views.cc with the runtime
// (runtime/wrapgen_runtime.h and .cc) with g++ and clang++ (each that is
// installed) and runs it: View and FromVector make the views its checks
// expect.
func TestRuntimeViews(t *testing.T) {
	runRuntimeTest(t, "runtime_views.cc")
}

// TestRuntimePlans compiles and runs testdata/runtime_plans.cc as
// TestRuntimeViews does: a program with two plans (size buckets) runs the
// one whose ranges hold the symbols, and a KeptPools frees the pools it
// kept when the plan changes and allocates nothing while it stays.
func TestRuntimePlans(t *testing.T) {
	runRuntimeTest(t, "runtime_plans.cc")
}

// runRuntimeTest builds testdata/name and the runtime's source with
// strictFlags, with every compiler installed, and runs it: it must print
// exactly "ok".
func runRuntimeTest(t *testing.T, name string) {
	testenv.SkipUnlessLong(t, "compiles C++")
	var compilers []string
	for _, c := range []string{"g++", "clang++"} {
		if _, err := exec.LookPath(c); err == nil {
			compilers = append(compilers, c)
		}
	}
	if len(compilers) == 0 {
		t.Skip("no g++ or clang++ installed: the C++ runtime's helpers are not compiled")
	}
	src, err := filepath.Abs(filepath.Join("testdata", name))
	require.NoError(t, err)
	for _, cxx := range compilers {
		t.Run(cxx, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), strings.TrimSuffix(name, ".cc"))
			args := append(runtimeBuildArgs(t, cxx, bin), src)
			out, err := exec.Command(cxx, args...).CombinedOutput()
			require.NoError(t, err, "%s %s:\n%s", cxx, strings.Join(args, " "), out)
			assert.Empty(t, strings.TrimSpace(string(out)), "no warnings")
			cmd := exec.Command(bin)
			cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=0")
			out, err = cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			assert.Equal(t, "ok\n", string(out))
		})
	}
}

// runtimeBuildArgs are the arguments that build a test program into bin
// with cxx and the runtime, as a user builds a wrapper: strictFlags, the
// runtime's directory and this one (sentinel.h) to include from, and the
// runtime's object; the test's own sources follow.
func runtimeBuildArgs(t *testing.T, cxx, bin string) []string {
	here, err := filepath.Abs(".")
	require.NoError(t, err)
	return append(append([]string{}, strictFlags...), "-I", here, "-I", filepath.Join(here, "runtime"), "-o", bin, runtimeObject(t, cxx))
}

// runtimeObjects are the runtime's objects by compiler, each built once
// for all of the package's tests: under the sanitizers the runtime takes
// longer to compile than any test program.
var runtimeObjects struct {
	sync.Mutex
	dir string
	obj map[string]string
}

// runtimeObject is the runtime's source compiled by cxx with strictFlags.
func runtimeObject(t *testing.T, cxx string) string {
	runtimeObjects.Lock()
	defer runtimeObjects.Unlock()
	if obj, ok := runtimeObjects.obj[cxx]; ok {
		return obj
	}
	if runtimeObjects.dir == "" {
		dir, err := os.MkdirTemp("", "wrapgen-runtime-test")
		require.NoError(t, err)
		runtimeObjects.dir, runtimeObjects.obj = dir, map[string]string{}
	}
	src, err := filepath.Abs(filepath.Join("runtime", "wrapgen_runtime.cc"))
	require.NoError(t, err)
	obj := filepath.Join(runtimeObjects.dir, cxx+".o")
	args := append(append([]string{}, strictFlags...), "-c", src, "-o", obj)
	out, err := exec.Command(cxx, args...).CombinedOutput()
	require.NoError(t, err, "%s %s:\n%s", cxx, strings.Join(args, " "), out)
	assert.Empty(t, strings.TrimSpace(string(out)), "no warnings")
	runtimeObjects.obj[cxx] = obj
	return obj
}

func TestMain(m *testing.M) {
	code := m.Run()
	if runtimeObjects.dir != "" {
		os.RemoveAll(runtimeObjects.dir)
	}
	os.Exit(code)
}
