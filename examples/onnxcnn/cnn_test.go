package onnxcnn

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/examples/onnxcnn/wgrt"
)

// The generated wrapper, run with the weights wrapgen took from cnn.onnx
// and the Go kernels, gives PyTorch's recorded output.
func TestMatchesPyTorch(t *testing.T) {
	params, err := LoadParams("cnn.safetensors")
	require.NoError(t, err)
	var want struct {
		Shape []int     `json:"shape"`
		Probs []float64 `json:"probs"`
	}
	data, err := os.ReadFile("expected.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &want))

	image := make([]float32, 2*1*16*16)
	for i := range image {
		image[i] = float32(i)/512 - 0.5
	}
	in := &Inputs{Image: wgrt.FromFloat32s(image, 2, 1, 16, 16)}
	out, err := Run(OpKernels{}, params, in)
	require.NoError(t, err)
	require.Equal(t, want.Shape, out.Probs.Shape)
	got := out.Probs.Float32s()
	maxErr := 0.0
	for i, p := range want.Probs {
		maxErr = math.Max(maxErr, math.Abs(float64(got[i])-p))
	}
	t.Logf("max abs error against PyTorch: %.3g", maxErr)
	require.Less(t, maxErr, 1e-6)
}
