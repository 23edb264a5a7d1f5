package wgref

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Element access by dtype, for the kernels that work on every dtype the
// same way: each element is read as a float64 (float dtypes), an int64
// (signed and bool) or a uint64 (unsigned), and written back in the
// output's dtype. Hot kernels have typed fast paths besides.

// family is how a dtype's values are computed on.
type family uint8

const (
	famFloat family = iota
	famInt
	famUint
	famBool
	famOther
)

func familyOf(d wgrt.DType) family {
	switch d {
	case wgrt.F16, wgrt.BF16, wgrt.F32, wgrt.F64:
		return famFloat
	case wgrt.I8, wgrt.I16, wgrt.I32, wgrt.I64:
		return famInt
	case wgrt.U8, wgrt.U16, wgrt.U32, wgrt.U64:
		return famUint
	case wgrt.Bool:
		return famBool
	}
	return famOther
}

// loadF reads element off (in elements) of t as a float64.
func loadF(t wgrt.Tensor, off int) float64 {
	b := t.Data
	switch t.DType {
	case wgrt.F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*off:])))
	case wgrt.F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b[8*off:]))
	case wgrt.F16:
		return wgrt.HalfToFloat64(binary.LittleEndian.Uint16(b[2*off:]))
	case wgrt.BF16:
		return wgrt.BFloat16ToFloat64(binary.LittleEndian.Uint16(b[2*off:]))
	case wgrt.U8, wgrt.U16, wgrt.U32, wgrt.U64:
		return float64(loadU(t, off))
	}
	return float64(loadI(t, off))
}

// storeF writes v as element off of t, rounded to t's dtype (floats to
// nearest even; integers truncated toward zero, saturating, as a C cast
// that is defined would).
func storeF(t wgrt.Tensor, off int, v float64) {
	b := t.Data
	switch t.DType {
	case wgrt.F32:
		binary.LittleEndian.PutUint32(b[4*off:], math.Float32bits(float32(v)))
	case wgrt.F64:
		binary.LittleEndian.PutUint64(b[8*off:], math.Float64bits(v))
	case wgrt.F16:
		binary.LittleEndian.PutUint16(b[2*off:], floatToHalf(v))
	case wgrt.BF16:
		binary.LittleEndian.PutUint16(b[2*off:], floatToBF16(float32(v)))
	case wgrt.Bool:
		if v != 0 {
			b[off] = 1
		} else {
			b[off] = 0
		}
	case wgrt.U8, wgrt.U16, wgrt.U32, wgrt.U64:
		storeU(t, off, floatToUint(v))
	default:
		storeI(t, off, floatToInt(v))
	}
}

func floatToInt(v float64) int64 {
	switch {
	case math.IsNaN(v):
		return 0
	case v >= math.MaxInt64:
		return math.MaxInt64
	case v <= math.MinInt64:
		return math.MinInt64
	}
	return int64(v)
}

func floatToUint(v float64) uint64 {
	switch {
	case math.IsNaN(v) || v <= -1:
		return uint64(floatToInt(v)) // negative values wrap as numpy's casts do on x86
	case v >= math.MaxUint64:
		return math.MaxUint64
	case v < 0:
		return 0
	}
	return uint64(v)
}

// loadI reads a signed integer or bool element.
func loadI(t wgrt.Tensor, off int) int64 {
	b := t.Data
	switch t.DType {
	case wgrt.I8:
		return int64(int8(b[off]))
	case wgrt.I16:
		return int64(int16(binary.LittleEndian.Uint16(b[2*off:])))
	case wgrt.I32:
		return int64(int32(binary.LittleEndian.Uint32(b[4*off:])))
	case wgrt.I64:
		return int64(binary.LittleEndian.Uint64(b[8*off:]))
	case wgrt.Bool:
		if b[off] != 0 {
			return 1
		}
		return 0
	case wgrt.U8, wgrt.U16, wgrt.U32, wgrt.U64:
		return int64(loadU(t, off))
	}
	return floatToInt(loadF(t, off))
}

// loadU reads an unsigned integer element.
func loadU(t wgrt.Tensor, off int) uint64 {
	b := t.Data
	switch t.DType {
	case wgrt.U8, wgrt.Bool:
		return uint64(b[off])
	case wgrt.U16:
		return uint64(binary.LittleEndian.Uint16(b[2*off:]))
	case wgrt.U32:
		return uint64(binary.LittleEndian.Uint32(b[4*off:]))
	case wgrt.U64:
		return binary.LittleEndian.Uint64(b[8*off:])
	}
	return uint64(loadI(t, off))
}

// storeI writes an integer element, wrapping to the dtype's width.
func storeI(t wgrt.Tensor, off int, v int64) { storeU(t, off, uint64(v)) }

func storeU(t wgrt.Tensor, off int, v uint64) {
	b := t.Data
	switch t.DType {
	case wgrt.I8, wgrt.U8:
		b[off] = byte(v)
	case wgrt.Bool:
		if v != 0 {
			b[off] = 1
		} else {
			b[off] = 0
		}
	case wgrt.I16, wgrt.U16:
		binary.LittleEndian.PutUint16(b[2*off:], uint16(v))
	case wgrt.I32, wgrt.U32:
		binary.LittleEndian.PutUint32(b[4*off:], uint32(v))
	case wgrt.I64, wgrt.U64:
		binary.LittleEndian.PutUint64(b[8*off:], v)
	default:
		storeF(t, off, float64(int64(v)))
	}
}

// copyElem copies element so of src to element do of dst (same dtype).
func copyElem(dst wgrt.Tensor, do int, src wgrt.Tensor, so int) {
	n := src.DType.Size()
	copy(dst.Data[do*n:do*n+n], src.Data[so*n:so*n+n])
}

// floatToHalf rounds v to binary16, to nearest even.
func floatToHalf(v float64) uint16 {
	sign := uint16(0)
	if math.Signbit(v) {
		sign, v = 0x8000, -v
	}
	switch {
	case math.IsNaN(v):
		return 0x7e00
	case math.IsInf(v, 0) || v >= 65520:
		return sign | 0x7c00
	case v < math.Ldexp(1, -14):
		return sign | uint16(math.RoundToEven(v*(1<<24)))
	}
	frac, exp := math.Frexp(v)
	m := math.RoundToEven((frac*2 - 1) * 1024)
	e := exp - 1 + 15
	if m == 1024 {
		m, e = 0, e+1
	}
	if e >= 31 {
		return sign | 0x7c00
	}
	return sign | uint16(e)<<10 | uint16(m)
}

// floatToBF16 rounds f to bfloat16, to nearest even.
func floatToBF16(f float32) uint16 {
	u := math.Float32bits(f)
	if f != f {
		return uint16(u>>16) | 0x40
	}
	u += 0x7fff + (u>>16)&1
	return uint16(u >> 16)
}

// need checks a call's tensor counts.
func need(c *wgrt.Call, outs, minIns, maxIns int) error {
	if len(c.Outputs) != outs {
		return fmt.Errorf("%s: %d outputs, want %d", c.Kernel, len(c.Outputs), outs)
	}
	if len(c.Inputs) < minIns || (maxIns >= 0 && len(c.Inputs) > maxIns) {
		return fmt.Errorf("%s: %d inputs, want %d to %d", c.Kernel, len(c.Inputs), minIns, maxIns)
	}
	return nil
}

func unsupported(c *wgrt.Call, d wgrt.DType) error {
	return fmt.Errorf("%s: dtype %s is not supported by the reference kernel", c.Kernel, d)
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
