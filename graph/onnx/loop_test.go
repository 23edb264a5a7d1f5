package onnx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Loop that format v1 cannot run is refused with its reason
// (testdata/loops.py); the Loops that import are run against references
// in internal/interp.
func TestLoopRefusals(t *testing.T) {
	for model, want := range map[string]string{
		"loop_runtime_count": `unsupported: the trip count M "M" is computed from tensor data at run time; wrapgen imports loops whose count is known before they start`,
		"loop_runtime_cond":  `unsupported: the body's condition output "c_out" is computed at run time, so the loop may stop early`,
		"loop_growing":       `unsupported: loop-carried value 0 changes from f32 [2] to f32 [4] in an iteration; wrapgen imports loops whose values keep their shapes`,
	} {
		_, _, err := Load("testdata/"+model+".onnx", Options{})
		assert.ErrorContains(t, err, `nodes[0] (op "Loop", name "loop"): `+want, model)
	}
}

// The tensors the importer adds for a loop avoid every name of the model,
// a later node's output included.
func TestLoopNamesAvoidTheModels(t *testing.T) {
	g, _, err := Load("testdata/loop_name_clash.onnx", Options{})
	require.NoError(t, err)
	assert.NotNil(t, g.Tensor("loop.iteration_2"), "the counter")
	assert.Equal(t, "Neg", g.Ops[len(g.Ops)-1].Kernel)
}
