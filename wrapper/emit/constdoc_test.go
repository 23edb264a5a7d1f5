package emit

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/internal/quote"
)

func constOf(d graph.DType, data []byte, shape ...int64) *graph.Tensor {
	t := &graph.Tensor{Name: "c", DType: d, Data: data}
	for _, s := range shape {
		t.Shape = append(t.Shape, expr.Const(s))
	}
	return t
}

// le is the little-endian bytes of each value, of size bytes each.
func le(size int, vals ...uint64) []byte {
	var out []byte
	for _, v := range vals {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint64(b, v)
		out = append(out, b[:size]...)
	}
	return out
}

// A constant's comment spells its values, decoded from bytes written here
// by hand (bit patterns from the formats' definitions).
func TestConstDocDecodesEveryDType(t *testing.T) {
	f32 := func(vs ...float32) []byte {
		var u []uint64
		for _, v := range vs {
			u = append(u, uint64(math.Float32bits(v)))
		}
		return le(4, u...)
	}
	for _, c := range []struct {
		t    *graph.Tensor
		want string
	}{
		{constOf("f32", f32(1, -10000, 2.828427), 3), `"c": f32 [3] = 1, -10000, 2.828427`},
		{constOf("f32", f32(float32(math.Inf(-1)))), `"c": f32 [] = -Inf`},
		{constOf("f64", le(8, math.Float64bits(0.1), math.Float64bits(-2.5)), 2), `"c": f64 [2] = 0.1, -2.5`},
		{constOf("i64", le(8, 7, uint64(1<<64-3)), 2), `"c": i64 [2] = 7, -3`},
		{constOf("i32", le(4, 1<<32-1), 1), `"c": i32 [1] = -1`},
		{constOf("u32", le(4, 1<<32-1), 1), `"c": u32 [1] = 4294967295`},
		{constOf("i16", le(2, 0x8000), 1), `"c": i16 [1] = -32768`},
		{constOf("u16", le(2, 0x8000), 1), `"c": u16 [1] = 32768`},
		{constOf("i8", []byte{0xff, 5}, 2), `"c": i8 [2] = -1, 5`},
		{constOf("u8", []byte{0xff, 5}, 2), `"c": u8 [2] = 255, 5`},
		{constOf("u64", le(8, 1<<64-1), 1), `"c": u64 [1] = 18446744073709551615`},
		{constOf("bool", []byte{1, 0}, 2), `"c": bool [2] = true, false`},
		// binary16: 1, -2, 0.5, the largest finite, the smallest subnormal, -Inf, NaN
		{constOf("f16", le(2, 0x3c00, 0xc000, 0x3800, 0x7bff, 0x0001, 0xfc00, 0x7e00), 7),
			`"c": f16 [7] = 1, -2, 0.5, 65504, 5.9604645e-08, -Inf, NaN`},
		{constOf("bf16", le(2, 0x3f80, 0xc0a0), 2), `"c": bf16 [2] = 1, -5`},
		// e4m3fn: 1, the largest (448), the smallest subnormal (2^-9), NaN; e5m2: 1, the largest (57344)
		{constOf("f8e4m3fn", []byte{0x38, 0x7e, 0x01, 0xff}, 4), `"c": f8e4m3fn [4] = 1, 448, 0.001953125, NaN`},
		{constOf("f8e5m2", []byte{0x3c, 0x7b}, 2), `"c": f8e5m2 [2] = 1, 57344`},
		{constOf("c64", f32(1, -2), 1), `"c": c64 [1] = (1, -2)`},
		{constOf("c128", le(8, math.Float64bits(0.5), math.Float64bits(3)), 1), `"c": c128 [1] = (0.5, 3)`},
	} {
		assert.Equal(t, c.want, ConstDoc(c.t, quote.GoComment), c.t.DType)
	}
}

// A long constant shows its first values and how many it has; a short one
// shows them all.
func TestConstDocCutsLongConstants(t *testing.T) {
	var vals []uint64
	for i := range 100 {
		vals = append(vals, uint64(i))
	}
	assert.Equal(t, `"c": i64 [10, 10] = 0, 1, 2, 3, 4, 5, 6, 7, … (100 values)`, ConstDoc(constOf("i64", le(8, vals...), 10, 10), quote.GoComment))
	assert.Equal(t, `"c": u8 [16] = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15`,
		ConstDoc(constOf("u8", []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, 16), quote.GoComment))
}
