package golang_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/emit"
	"github.com/wrapgen/wrapgen/wrapper/golang"
)

// The generated Runner.RunContext and RunContext, run under the race
// detector in a module of their own: cancelled from another goroutine
// while a kernel runs, by a deadline, or before the call, each stops
// before the next op with the context's error and the op's name, and the
// Runner's next call gives a fresh Runner's answer; a steady call with a
// context allocates nothing (testdata/runcontext).
func TestGeneratedRunContextCancels(t *testing.T) {
	testenv.SkipUnlessLong(t, "builds and runs a generated wrapper with -race")
	g, err := graph.Load("../../examples/mlp/mlp.json")
	require.NoError(t, err)
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	files, err := golang.Generate(p, golang.Options{Package: "m", RuntimeImport: "example.com/user/m/wgrt", File: "m/mlp.go"})
	require.NoError(t, err)
	files = append(files, golang.RuntimeFiles("m/wgrt")...)
	dir := t.TempDir()
	write := func(f emit.File) {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, f.Content, 0o644))
	}
	write(emit.File{Path: "go.mod", Content: []byte("module example.com/user\n\ngo 1.24\n")})
	for _, f := range files {
		write(f)
	}
	for _, name := range []string{"cancel_test.go", "allocs_test.go"} {
		src, err := os.ReadFile(filepath.Join("testdata", "runcontext", name))
		require.NoError(t, err)
		write(emit.File{Path: "m/" + name, Content: src})
	}
	for _, args := range [][]string{{"test", "-race", "-count=1", "./m"}, {"test", "-count=1", "./m"}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %v:\n%s", args, out)
	}
}
