package onnx

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// TestSafetensorsRoundTrip writes names JSON escapes, or that HTML
// escaping would, and reads them back with the runtime's reader.
func TestSafetensorsRoundTrip(t *testing.T) {
	ws := []Weight{
		{Name: "a<b>&c", DType: "f32", Shape: []int64{2}, Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}},
		{Name: "line\u2028\r\n\t\"\\/", DType: "u8", Shape: []int64{1, 1}, Data: []byte{9}},
		{Name: "", DType: "i16", Shape: nil, Data: []byte{1, 2}},
		{Name: "ünï\U0001F600\x7f\x00", DType: "bool", Shape: []int64{0, 3}, Data: nil},
	}
	data, err := Safetensors(ws)
	require.NoError(t, err)
	n := binary.LittleEndian.Uint64(data)
	assert.Zero(t, n%8, "the header is padded to 8 bytes")
	header := data[8 : 8+n]
	assert.Contains(t, string(header), `"a<b>&c"`, "no HTML escaping")
	got, err := wgrt.ParseSafetensors("w.safetensors", data)
	require.NoError(t, err)
	require.Len(t, got, len(ws))
	for _, w := range ws {
		tn, ok := got[w.Name]
		require.True(t, ok, "%q read back", w.Name)
		assert.Equal(t, string(w.DType), tn.DType.String(), w.Name)
		assert.Len(t, tn.Shape, len(w.Shape), w.Name)
		for i, d := range w.Shape {
			assert.Equal(t, int(d), tn.Shape[i], w.Name)
		}
		assert.True(t, bytes.Equal(w.Data, tn.Data[:len(w.Data)]), w.Name)
	}
}

// TestSafetensorsRefusesWhatCannotRoundTrip: weights a reader would not
// give back as written are refused by name when the file is written.
func TestSafetensorsRefusesWhatCannotRoundTrip(t *testing.T) {
	f32 := func(name string, shape []int64, n int) Weight {
		return Weight{Name: name, DType: "f32", Shape: shape, Data: make([]byte, n)}
	}
	for _, c := range []struct {
		ws   []Weight
		want string
	}{
		{[]Weight{f32("__metadata__", []int64{1}, 4)}, `weight "__metadata__": safetensors keeps this name for the file's metadata`},
		{[]Weight{f32("a\xffb", []int64{1}, 4)}, `weight "a\xffb": the name is not UTF-8`},
		{[]Weight{f32("w", []int64{1}, 4), f32("w", []int64{1}, 4)}, `weight "w": two weights have this name`},
		{[]Weight{f32("w", []int64{1, 1, 1, 1, 1, 1, 1, 1, 1}, 4)}, `weight "w": rank 9 is above 8`},
		{[]Weight{f32("w", []int64{3}, 8)}, `weight "w": 8 bytes of data for shape [3] of F32, which needs 12`},
		{[]Weight{f32("w", []int64{1 << 62, 4}, 8)}, `weight "w": shape [4611686018427387904 4] of F32 has more bytes than an int64 holds`},
		{[]Weight{{Name: "w", DType: "c64", Shape: []int64{1}, Data: make([]byte, 8)}}, `weight "w": dtype c64 has no safetensors name`},
	} {
		_, err := Safetensors(c.ws)
		assert.ErrorContains(t, err, c.want)
	}
}
