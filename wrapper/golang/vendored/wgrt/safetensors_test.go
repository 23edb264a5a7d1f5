package wgrt

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func safetensorsFile(header string, body []byte) []byte {
	data := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(append(data, header...), body...)
}

// TestParseSafetensors reads a file into tensors; the shared corpus
// (safetensors_corpus_test.go) has the files refused.
func TestParseSafetensors(t *testing.T) {
	body := binary.LittleEndian.AppendUint32(nil, math.Float32bits(1.5))
	body = binary.LittleEndian.AppendUint32(body, math.Float32bits(-2))
	body = binary.LittleEndian.AppendUint64(body, 7)
	header := `{"__metadata__": {"format": "pt"}, "w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "n": {"dtype": "I64", "shape": [1, 1], "data_offsets": [8, 16]}}`
	got, err := ParseSafetensors("m.safetensors", safetensorsFile(header, body))
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, []float32{1.5, -2}, got["w"].Float32s()[:2])
	assert.Equal(t, []int{1, 1}, got["n"].Shape)
	assert.Equal(t, I64, got["n"].DType)
	assert.Equal(t, uint64(7), binary.LittleEndian.Uint64(got["n"].Data))
}

// TestParamsFromONNXFile: an ONNX model given where a safetensors file is
// wanted is refused as not a safetensors file, with how to make one.
func TestParamsFromONNXFile(t *testing.T) {
	onnxStart := append([]byte{0x08, 0x08, 0x12, 0x07}, "pytorch\x1a\x052.1.0"...)
	_, err := ParseSafetensors("model.onnx", onnxStart)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "model.onnx")
	assert.Contains(t, err.Error(), "not a safetensors file (wrapgen import writes the weights of an ONNX model as one)")
}
