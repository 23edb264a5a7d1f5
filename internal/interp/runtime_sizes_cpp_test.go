package interp

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
)

// TestRunTimeSizeModelsCpp runs the models of TestRunTimeSizeModels
// (sizes the data decides: NonZero's kept scores, TopK of them, a Loop
// whose body sets a run-time size) through the C++ reference kernels: the
// kernels that set a run-time size write their outputs compact and the
// count as the Go ones do.
func TestRunTimeSizeModelsCpp(t *testing.T) {
	testenv.SkipUnlessLong(t, "it builds the C++ kernels")
	srv := startCppKernels(t)
	models, err := filepath.Glob(filepath.Join("testdata/runtime_sizes", "*", "model.onnx"))
	require.NoError(t, err)
	require.Len(t, models, 2)
	for _, m := range models {
		dir := filepath.Dir(m)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			r := runNodeTest(dir, srv.Call, false)
			require.True(t, r.imported, r.err)
			assert.Empty(t, r.err)
		})
	}
}
