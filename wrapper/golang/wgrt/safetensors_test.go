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

func TestParseSafetensorsRefusesBadFiles(t *testing.T) {
	for _, c := range []struct{ name, header, want string }{
		{"dtype", `{"w": {"dtype": "Q4", "shape": [1], "data_offsets": [0, 4]}}`, `tensor "w": unknown dtype "Q4"`},
		{"range", `{"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 12]}}`, `tensor "w": byte range [0 12] is not inside the data (8 bytes)`},
		{"size", `{"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}`, `shape [3] of f32 needs 12 bytes, the file gives 8`},
		{"json", `{"w": `, `m.safetensors: header:`},
	} {
		_, err := ParseSafetensors("m.safetensors", safetensorsFile(c.header, make([]byte, 8)))
		require.Error(t, err, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
	}
	_, err := ParseSafetensors("m.safetensors", []byte{1, 2})
	assert.ErrorContains(t, err, "too short")
	_, err = ParseSafetensors("m.safetensors", binary.LittleEndian.AppendUint64(nil, 99))
	assert.ErrorContains(t, err, "runs past the end")
}
