package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A file that cannot be read is an I/O failure (exit 1), named once.
func TestMissingFileIsAnIOError(t *testing.T) {
	_, _, err := runCLI("plan", "no/such/graph.json")
	require.Error(t, err)
	assert.Equal(t, exitFailure, exitCode(err))
	assert.Equal(t, 1, strings.Count(err.Error(), "no/such/graph.json"), err.Error())
	_, _, err = runCLI("import", "no/such/model.onnx")
	assert.Equal(t, exitFailure, exitCode(err))
}

// "-" reads standard input: a graph or a model, told apart by content.
func TestDashReadsStandardInput(t *testing.T) {
	for _, file := range []string{"../../examples/mlp/mlp.json", "../../examples/onnxcnn/cnn.onnx"} {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		old := stdin
		stdin = strings.NewReader(string(data))
		out, _, err := runCLI("plan", "-lines=false", "-")
		stdin = old
		require.NoError(t, err, file)
		assert.Contains(t, out, "peak / lower bound", file)
	}
}

// -h and help CMD both print the usage to standard output and succeed.
func TestHelpFlagPrintsToStdout(t *testing.T) {
	for _, cmd := range []string{"plan", "gen", "selftest", "bench", "import"} {
		out, errOut, err := runCLI(cmd, "-h")
		require.NoError(t, err, cmd)
		assert.True(t, strings.HasPrefix(out, "usage: wrapgen "+cmd), "%s -h: %q", cmd, out)
		assert.Empty(t, errOut, cmd)
	}
	// A mistake still prints the usage to standard error.
	out, errOut, err := runCLI("plan", "-frobnicate")
	assert.Equal(t, exitUsage, exitCode(err))
	assert.Empty(t, out)
	assert.Contains(t, errOut, "usage: wrapgen plan")
}

// gen and import name each file they write (a folder of many by its
// count), unless -q.
func TestCommandsSayWhatTheyWrite(t *testing.T) {
	dir := tempModule(t)
	out := filepath.Join(dir, "m", "mlp.go")
	_, errOut, err := runCLI("gen", "-lang", "go", "-o", out, "../../examples/mlp/mlp.json")
	require.NoError(t, err)
	assert.Contains(t, errOut, "wrapgen: wrote "+out+"\n")
	// The vendored runtime's folder is one line, not a line per file.
	assert.Regexp(t, "wrapgen: wrote [0-9]+ files in "+regexp.QuoteMeta(filepath.Join(dir, "m", "wgrt"))+"\n", errOut)
	assert.NotContains(t, errOut, "tensor.go")
	_, errOut, err = runCLI("gen", "-q", "-lang", "go", "-o", out, "../../examples/mlp/mlp.json")
	require.NoError(t, err)
	assert.Empty(t, errOut)

	g := filepath.Join(dir, "cnn.json")
	_, errOut, err = runCLI("import", "-o", g, "../../examples/onnxcnn/cnn.onnx")
	require.NoError(t, err)
	assert.Equal(t, "wrapgen: wrote "+g+"\n", errOut)
}

// import refuses a format-v1 graph by what it is.
func TestImportRefusesJSON(t *testing.T) {
	_, _, err := runCLI("import", "../../examples/mlp/mlp.json")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mlp.json: this is JSON (a format-v1 graph?), not an ONNX model")
	assert.Equal(t, exitBadInput, exitCode(err))
}
