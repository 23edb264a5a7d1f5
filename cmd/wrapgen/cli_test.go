package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
)

func TestHelpCommand(t *testing.T) {
	out, _, err := runCLI("help", "plan")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "usage: wrapgen plan"), "help plan prints plan's usage, not the command list:\n%s", out)
	assert.Contains(t, out, "-at name=value")
	assert.NotContains(t, out, "commands:")

	out, _, err = runCLI("help", "selftest")
	require.NoError(t, err)
	assert.Contains(t, out, "-fault")

	out, _, err = runCLI("help")
	require.NoError(t, err)
	assert.Contains(t, out, "commands:")
	assert.Contains(t, out, "version")

	out, _, err = runCLI("help", "exit")
	require.NoError(t, err)
	assert.Contains(t, out, "5  nothing to inject")

	_, _, err = runCLI("help", "frobnicate")
	assert.ErrorContains(t, err, `unknown command "frobnicate"`)
	assert.Equal(t, exitUsage, exitCode(err))
}

func TestVersionLine(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.24.0", Main: debug.Module{Path: "github.com/wrapgen/wrapgen", Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.time", Value: "2026-11-20T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	assert.Equal(t, "wrapgen v0.3.0 revision 0123abc 2026-11-20T10:00:00Z (modified) go1.24.0", versionLine(info))
	info = &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
	assert.Contains(t, versionLine(info), "wrapgen (devel) (no VCS revision recorded")

	out, _, err := runCLI("version")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "wrapgen "), out)
	assert.Regexp(t, `\nreference kernels: (avx512|avx2|go) GEMM micro-kernel on this CPU\n$`, out)
	_, _, err = runCLI("version", "extra")
	assert.Equal(t, exitUsage, exitCode(err))
}

// TestVersionOfBuiltBinary builds wrapgen from this checkout with VCS
// stamping and checks that it reports the checkout's revision.
func TestVersionOfBuiltBinary(t *testing.T) {
	testenv.SkipUnlessLong(t, "builds wrapgen")
	t.Parallel() // builds and runs other programs: overlaps with the other long tests
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("not in a git checkout (or no git): no revision to compare with")
	}
	if st, err := os.Stat("../../.git"); err != nil || !st.IsDir() {
		t.Skip("a git worktree (.git is a file): the go command records VCS information only where .git is a directory")
	}
	bin := filepath.Join(t.TempDir(), "wrapgen")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local")
	b, err := build.CombinedOutput()
	require.NoError(t, err, "%s", b)
	out, err := exec.Command(bin, "version").Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), "revision "+strings.TrimSpace(string(head)))
}

func TestFlagsAfterGraphFile(t *testing.T) {
	g := filepath.Join(sharedGraphs, "resnet18.json")
	before, _, err := runCLI("plan", "-json", "-strategy", "inductor", g)
	require.NoError(t, err)
	after, _, err := runCLI("plan", g, "-json", "-strategy", "inductor")
	require.NoError(t, err)
	assert.Equal(t, before, after)

	// "--" ends the flags: what follows is a file, even if it looks like a flag.
	_, _, err = runCLI("plan", g, "--", "-json")
	assert.ErrorContains(t, err, "takes one graph file, got 2: "+g+" -json")
	assert.Equal(t, exitUsage, exitCode(err))
}

// -at, like -hint, is refused outside the symbol's declared range instead
// of reporting negative pool sizes.
func TestSymbolValuesOutsideRange(t *testing.T) {
	g := filepath.Join(sharedGraphs, "resnet18.json")
	for _, args := range [][]string{
		{"plan", "-at", "batch=-5", g},
		{"plan", "-at", "batch=0", g},
		{"plan", "-hint", "batch=0", g},
		{"selftest", "-at", "batch=0", g},
	} {
		out, _, err := runCLI(args...)
		assert.ErrorContains(t, err, "is outside the symbol's range [1, ∞) declared in "+g, "%v", args)
		assert.Equal(t, exitUsage, exitCode(err), "%v", args)
		assert.Empty(t, out, "%v: nothing is reported for a refused value", args)
	}
	bounded := filepath.Join(t.TempDir(), "bounded.json")
	require.NoError(t, os.WriteFile(bounded, []byte(`{"name": "b", "symbols": {"n": {"hint": 2, "min": 1, "max": 8}},
	  "tensors": {"x": {"dtype": "f32", "shape": ["n"]}, "y": {"dtype": "f32", "shape": ["n"]}},
	  "inputs": ["x"], "outputs": ["y"], "ops": [{"kernel": "relu", "inputs": ["x"], "outputs": ["y"]}]}`), 0o644))
	_, _, err := runCLI("plan", "-at", "n=9", bounded)
	assert.ErrorContains(t, err, "-at n=9 is outside the symbol's range [1, 8]")
	_, _, err = runCLI("plan", "-at", "n=8", bounded)
	assert.NoError(t, err)
}

// Each kind of failure has its own exit status (see 'wrapgen help exit').
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"name": "g", "tensors": {}, "inputs": ["x"], "outputs": [], "ops": []}`), 0o644))
	_, _, err := runCLI("gen", "-o", filepath.Join(dir, "out"), "-lang", "cpp", bad)
	assert.ErrorContains(t, err, bad)
	assert.Equal(t, exitBadInput, exitCode(err), "a rejected graph is bad input: %v", err)

	for _, flags := range [][]string{{"-strategy-typo", "x"}, {"-strategy", "gredy"}, {"-memory-pool", "all"}, {"-align", "48"}} {
		_, _, err = runCLI(append(append([]string{"plan"}, flags...), filepath.Join(sharedGraphs, "resnet18.json"))...)
		assert.Equal(t, exitUsage, exitCode(err), "plan %v: %v", flags, err)
	}

	// One intermediate between input and output: no two storages of a pool
	// are ever live together, so there is nothing to overlap.
	single := filepath.Join(dir, "single.json")
	require.NoError(t, os.WriteFile(single, []byte(`{"name": "single",
	  "tensors": {"x": {"dtype": "f32", "shape": [4]}, "t": {"dtype": "f32", "shape": [4]}, "y": {"dtype": "f32", "shape": [4]}},
	  "inputs": ["x"], "outputs": ["y"],
	  "ops": [{"kernel": "relu", "inputs": ["x"], "outputs": ["t"]}, {"kernel": "relu", "inputs": ["t"], "outputs": ["y"]}]}`), 0o644))
	_, _, err = runCLI("selftest", "-fault", "overlap", single)
	assert.ErrorContains(t, err, "nothing to inject")
	assert.Equal(t, exitNothingInject, exitCode(err))

	// Check failures (4) are proven where they happen: a caught fault in
	// TestSelftestGoSharedGraphs, a stale file in TestGenCheckCatchesHandEdits.
	assert.Equal(t, exitFailure, exitCode(os.ErrNotExist))
}

func TestBenchWithoutGraphs(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	_, _, err = runCLI("bench", "-synth", "100")
	assert.ErrorContains(t, err, "no graph files given and none found in ../shared/graphs or graph/testdata")
	assert.Equal(t, exitUsage, exitCode(err))

	// From the repository root it benchmarks the real graphs (../shared's
	// when beside it, else the repository's copies) and says which.
	t.Chdir(root)
	out, stderr, err := runCLI("bench", "-strategies", "greedy-size", "-synth", "", "-batches", "1")
	require.NoError(t, err)
	assert.Regexp(t, `using [1-9][0-9]* graphs from (\.\./shared/graphs|graph/testdata)`, stderr)
	assert.Contains(t, out, "resnet18.json")
}
