package graph

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func constGraph(dtype, shape, data string) string {
	return `{"name": "c", "tensors": {"k": {"dtype": "` + dtype + `", "shape": ` + shape + `, "data": ` + data + `}, "y": {"dtype": "f32", "shape": [1]}},
	"inputs": [], "outputs": ["y"], "ops": [{"kernel": "f", "inputs": ["k"], "outputs": ["y"]}]}`
}

// Inline data is stored exactly, and ElementText spells it back so that
// reading it again gives the same bytes, for every dtype that has a form.
func TestConstantDataRoundTrips(t *testing.T) {
	cases := []struct{ dtype, data string }{
		{"bool", `[true, false, 1, 0]`},
		{"i8", `[-128, 127, 0, -1]`},
		{"u8", `[0, 255, 7, 8]`},
		{"i16", `[-32768, 32767, 1, 2]`},
		{"u16", `[65535, 0, 1, 2]`},
		{"i32", `[-2147483648, 2147483647, 3, 4]`},
		{"u32", `[4294967295, 0, 5, 6]`},
		{"i64", `[-9223372036854775808, 9223372036854775807, 0, -1]`},
		{"u64", `[18446744073709551615, 0, 1, 2]`},
		{"f16", `[0.333, 65504, "-inf", 5.96e-8]`},
		{"bf16", `[3.14159, "nan", -0.0, 1e38]`},
		{"f32", `[0.1, 3.4028234663852886e38, "inf", 1e-45]`},
		{"f64", `[0.1, 1.7976931348623157e308, "-inf", 5e-324]`},
	}
	for _, c := range cases {
		g, err := Parse("c.json", []byte(constGraph(c.dtype, "[4]", c.data)))
		require.NoError(t, err, c.dtype)
		k := g.Tensor("k")
		require.Len(t, g.Constants, 1)
		require.Len(t, k.Data, 4*int(k.DType.Size()))
		var texts []string
		for i := 0; i < 4; i++ {
			texts = append(texts, ElementText(k.DType, k.Data, i))
		}
		again, err := Parse("c.json", []byte(constGraph(c.dtype, "[4]", "["+strings.Join(texts, ", ")+"]")))
		require.NoError(t, err, "%s: %v", c.dtype, texts)
		assert.Equal(t, k.Data, again.Tensor("k").Data, "%s: %v", c.dtype, texts)
	}
}

// Floats round to the dtype to nearest even, as a cast would.
func TestConstantFloatsRound(t *testing.T) {
	g, err := Parse("c.json", []byte(constGraph("f16", "[3]", `[0.333, 1.0009765625, 65520]`)))
	require.NoError(t, err)
	d := g.Tensor("k").Data
	assert.Equal(t, uint16(0x3554), binary.LittleEndian.Uint16(d[0:]), "0.333 is 0x3554 in binary16")
	assert.Equal(t, uint16(0x3c01), binary.LittleEndian.Uint16(d[2:]), "exactly representable")
	assert.Equal(t, uint16(0x7c00), binary.LittleEndian.Uint16(d[4:]), "65520 rounds to infinity")
	g, err = Parse("c.json", []byte(constGraph("f32", "[1]", `[0.1]`)))
	require.NoError(t, err)
	assert.Equal(t, math.Float32bits(0.1), binary.LittleEndian.Uint32(g.Tensor("k").Data))
}

func TestConstantDataErrors(t *testing.T) {
	for _, c := range []struct{ dtype, shape, data, want string }{
		{"f32", "[2]", `[1]`, `has 1 elements, the shape holds 2`},
		{"i8", "[1]", `[1.5]`, `1.5 is not an integer of dtype i8`},
		{"f32", "[1]", `[1e39]`, `1e39 overflows f32`},
		{"f32", "[1]", `["big"]`, `expected a number, "nan", "inf" or "-inf"`},
		{"c64", "[1]", `[1]`, `inline data of dtype c64 is not supported`},
		{"bool", "[1]", `[2]`, `expected true, false, 0 or 1`},
		{"f32", "[1]", `{"x": 1}`, `expected an array of the elements`},
	} {
		_, err := Parse("c.json", []byte(constGraph(c.dtype, c.shape, c.data)))
		require.Error(t, err, c.want)
		assert.Contains(t, err.Error(), `tensors["k"].data`)
		assert.Contains(t, err.Error(), c.want)
	}
}
