package wgrt

import (
	"encoding/binary"
	"math"
)

// Float64At is element off (in elements, as Index gives) of t as a
// float64, whatever t's numeric dtype: what a generic tool needs to print
// or compare any output. Complex and float8 dtypes give NaN.
func (t Tensor) Float64At(off int) float64 {
	b := t.Data
	switch t.DType {
	case F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*off:])))
	case F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b[8*off:]))
	case F16:
		return HalfToFloat64(binary.LittleEndian.Uint16(b[2*off:]))
	case BF16:
		return BFloat16ToFloat64(binary.LittleEndian.Uint16(b[2*off:]))
	case Bool, U8:
		return float64(b[off])
	case I8:
		return float64(int8(b[off]))
	case I16:
		return float64(int16(binary.LittleEndian.Uint16(b[2*off:])))
	case U16:
		return float64(binary.LittleEndian.Uint16(b[2*off:]))
	case I32:
		return float64(int32(binary.LittleEndian.Uint32(b[4*off:])))
	case U32:
		return float64(binary.LittleEndian.Uint32(b[4*off:]))
	case I64:
		return float64(int64(binary.LittleEndian.Uint64(b[8*off:])))
	case U64:
		return float64(binary.LittleEndian.Uint64(b[8*off:]))
	}
	return math.NaN()
}

// HalfToFloat64 decodes an IEEE 754 binary16 (f16) value.
func HalfToFloat64(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10)&0x1f, float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac == 0 {
			return math.Inf(int(sign))
		}
		return math.NaN()
	}
	return sign * math.Ldexp(1+frac/1024, exp-15)
}

// BFloat16ToFloat64 decodes a bfloat16 value.
func BFloat16ToFloat64(h uint16) float64 {
	return float64(math.Float32frombits(uint32(h) << 16))
}
