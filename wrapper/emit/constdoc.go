package emit

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
)

// maxConstValues is how many values a constant's comment shows in full;
// a longer constant shows its first constHead values.
const (
	maxConstValues = 16
	constHead      = 8
)

// ConstDoc describes a constant for the comment beside its data: name,
// dtype, shape and values decoded from its little-endian bytes (every one
// when few, else the first few and how many there are), the name through
// the backend's comment quoting.
func ConstDoc(t *graph.Tensor, comment func(string) string) string {
	dims := make([]string, len(t.Shape))
	for i, s := range t.Shape {
		dims[i] = s.String()
	}
	head := fmt.Sprintf("%s: %s [%s]", comment(t.Name), t.DType, strings.Join(dims, ", "))
	size := int(t.DType.Size())
	if size == 0 || len(t.Data)%size != 0 {
		return head
	}
	n := len(t.Data) / size
	shown := n
	if n > maxConstValues {
		shown = constHead
	}
	vals := make([]string, shown)
	for i := range vals {
		vals[i] = constValue(t.DType, t.Data[i*size:(i+1)*size])
	}
	text := head + " = " + strings.Join(vals, ", ")
	if shown < n {
		text += fmt.Sprintf(", … (%d values)", n)
	}
	return text
}

// constValue spells one element of dtype d from its bytes.
func constValue(d graph.DType, b []byte) string {
	le := binary.LittleEndian
	switch d {
	case "bool":
		return strconv.FormatBool(b[0] != 0)
	case "i8":
		return strconv.Itoa(int(int8(b[0])))
	case "u8":
		return strconv.Itoa(int(b[0]))
	case "i16":
		return strconv.Itoa(int(int16(le.Uint16(b))))
	case "u16":
		return strconv.Itoa(int(le.Uint16(b)))
	case "i32":
		return strconv.Itoa(int(int32(le.Uint32(b))))
	case "u32":
		return strconv.FormatUint(uint64(le.Uint32(b)), 10)
	case "i64":
		return strconv.FormatInt(int64(le.Uint64(b)), 10)
	case "u64":
		return strconv.FormatUint(le.Uint64(b), 10)
	case "f16":
		return float32Text(halfToFloat(le.Uint16(b), 5, 10))
	case "bf16":
		return float32Text(math.Float32frombits(uint32(le.Uint16(b)) << 16))
	case "f32":
		return float32Text(math.Float32frombits(le.Uint32(b)))
	case "f64":
		return strconv.FormatFloat(math.Float64frombits(le.Uint64(b)), 'g', -1, 64)
	case "c64":
		return "(" + float32Text(math.Float32frombits(le.Uint32(b))) + ", " + float32Text(math.Float32frombits(le.Uint32(b[4:]))) + ")"
	case "c128":
		return "(" + strconv.FormatFloat(math.Float64frombits(le.Uint64(b)), 'g', -1, 64) + ", " +
			strconv.FormatFloat(math.Float64frombits(le.Uint64(b[8:])), 'g', -1, 64) + ")"
	case "f8e5m2":
		return float32Text(halfToFloat(uint16(b[0])<<8, 5, 10)) // the top byte of an f16
	case "f8e4m3fn":
		if b[0]&0x7f == 0x7f {
			return "NaN" // e4m3fn has no infinities
		}
		return float32Text(minifloat(uint32(b[0]), 4, 3, 7))
	}
	return fmt.Sprintf("0x%x", b)
}

func float32Text(f float32) string { return strconv.FormatFloat(float64(f), 'g', -1, 32) }

// halfToFloat decodes an IEEE binary16 (exponent 5 bits, mantissa 10).
func halfToFloat(h uint16, expBits, manBits uint) float32 {
	e := uint32(h>>manBits) & (1<<expBits - 1)
	if e == 1<<expBits-1 {
		m := h & (1<<manBits - 1)
		switch {
		case m != 0:
			return float32(math.NaN())
		case h>>15 != 0:
			return float32(math.Inf(-1))
		}
		return float32(math.Inf(1))
	}
	return minifloat(uint32(h), expBits, manBits, 1<<(expBits-1)-1)
}

// minifloat decodes a finite float of 1+expBits+manBits bits with the
// given exponent bias (subnormals included).
func minifloat(x uint32, expBits, manBits uint, bias int) float32 {
	sign := x >> (expBits + manBits) & 1
	e := int(x>>manBits) & (1<<expBits - 1)
	m := float64(x & (1<<manBits - 1))
	var v float64
	if e == 0 {
		v = math.Ldexp(m, 1-bias-int(manBits))
	} else {
		v = math.Ldexp(m+float64(uint32(1)<<manBits), e-bias-int(manBits))
	}
	if sign != 0 {
		v = -v
	}
	return float32(v)
}
