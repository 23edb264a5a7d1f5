package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
)

const testModel = "../../graph/onnx/testdata/resnet18.onnx"

func TestImportWritesGraph(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "resnet18.json")
	var stdout, stderr bytes.Buffer
	require.NoError(t, run([]string{"import", "-hint", "batch=4", "-o", out, testModel}, &stdout, &stderr))
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	g, err := graph.Parse(out, data)
	require.NoError(t, err)
	assert.Equal(t, "resnet18", g.Name)
	assert.Equal(t, int64(4), g.Symbol("batch").Hint)
	assert.NotNil(t, g.Tensor("onnx::Conv_193"), "weights keep their ONNX names")

	// plan takes the model directly and gives the same plan as the file.
	var fromModel, fromJSON bytes.Buffer
	require.NoError(t, run([]string{"plan", "-hint", "batch=4", testModel}, &fromModel, &stderr))
	require.NoError(t, run([]string{"plan", out}, &fromJSON, &stderr))
	assert.Equal(t, fromJSON.String(), fromModel.String())
}

func TestImportWeights(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "cnn.safetensors")
	var stdout, stderr bytes.Buffer
	require.NoError(t, run([]string{"import", "-weights", w, "../../examples/onnxcnn/cnn.onnx"}, &stdout, &stderr))
	data, err := os.ReadFile(w)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"conv1.weight":{"dtype":"F32","shape":[4,1,3,3]`)
	assert.Contains(t, stdout.String(), `"conv1.weight": {"dtype": "f32"`)
}

// A bad model leaves existing outputs as they were.
func TestImportBadModelWritesNothing(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.onnx")
	good, err := os.ReadFile(testModel)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bad, good[:100], 0o644))
	out := filepath.Join(dir, "out.json")
	require.NoError(t, os.WriteFile(out, []byte("old"), 0o644))
	var stdout, stderr bytes.Buffer
	err = run([]string{"import", "-o", out, "-weights", filepath.Join(dir, "w.safetensors"), bad}, &stdout, &stderr)
	require.Error(t, err)
	assert.Regexp(t, `bad.onnx: byte \d+: malformed protobuf`, err.Error())
	data, _ := os.ReadFile(out)
	assert.Equal(t, "old", string(data))
	assert.NoFileExists(t, filepath.Join(dir, "w.safetensors"))
}

// -value fixes a graph input that the import needs (a reshape target),
// checked against the input's declared type; without it the refusal says
// how to give it.
func TestImportValue(t *testing.T) {
	model := "testdata/reshape_input.onnx"
	var stdout, stderr bytes.Buffer
	err := run([]string{"import", model}, &stdout, &stderr)
	assert.ErrorContains(t, err, `input 1 (shape) "shape" is computed from tensor data at run time; wrapgen needs it at import time (it is a graph input: fix it with import -value shape=FILE)`)

	stdout.Reset()
	require.NoError(t, run([]string{"import", "-value", "shape=testdata/shape.npy", model}, &stdout, &stderr))
	g, err := graph.Parse("reshape_input.json", stdout.Bytes())
	require.NoError(t, err)
	require.Len(t, g.Inputs, 1)
	assert.Equal(t, "data", g.Inputs[0].Name)
	assert.Equal(t, "[batch 2 3]", fmt.Sprint(g.Tensor("reshaped").Shape))

	err = run([]string{"import", "-value", "shap=testdata/shape.npy", model}, &stdout, &stderr)
	assert.EqualError(t, err, `testdata/reshape_input.onnx: value of input "shap": the model has no input "shap" (its inputs: data, shape)`)
	err = run([]string{"import", "-value", "data=testdata/shape.npy", model}, &stdout, &stderr)
	assert.EqualError(t, err, `testdata/reshape_input.onnx: value of input "data": the model declares f32, the value is i64`)
	err = run([]string{"import", "-value", "shape", model}, &stdout, &stderr)
	assert.ErrorContains(t, err, `want NAME=FILE, got "shape"`)
}
