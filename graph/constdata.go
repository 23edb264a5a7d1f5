package graph

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// decodeData reads a constant's "data": its elements, row-major, as JSON
// numbers (integers for integer dtypes, 0/1 or true/false for bool, any
// number or "nan", "inf", "-inf" for floats, rounded to the dtype). The
// tensor must own contiguous storage of a constant shape.
func (d *decoder) decodeData(r *rawTensor, n *jsonNode) {
	t, place := r.t, r.place()+".data"
	if r.fields.get("view_of") != nil {
		d.err(n, place, "a view cannot hold data (give it to its base)")
		return
	}
	if r.fields.get("strides") != nil {
		d.err(n, place, "a constant is row-major: drop its strides")
		return
	}
	if n.kind != jsonArray {
		d.err(n, place, "expected an array of the elements, found %s", n.kind)
		return
	}
	count := int64(1)
	for _, s := range t.Shape {
		c, ok := s.IsConst()
		if !ok {
			d.err(n, place, "a constant's shape must not depend on symbols (dimension %s)", s)
			return
		}
		count *= c
	}
	if int64(len(n.kids)) != count {
		d.err(n, place, "has %d elements, the shape holds %d", len(n.kids), count)
		return
	}
	size := t.DType.Size()
	if size == 0 {
		return // the dtype was reported
	}
	switch t.DType {
	case "c64", "c128", "f8e4m3fn", "f8e5m2":
		d.err(n, place, "inline data of dtype %s is not supported (pass the tensor as a param)", t.DType)
		return
	}
	out := make([]byte, count*size)
	for i := range n.kids {
		el := n.elem(i)
		if err := putElement(out[int64(i)*size:], t.DType, el); err != nil {
			d.err(el, fmt.Sprintf("%s[%d]", place, i), "%v", err)
			return
		}
	}
	t.Data = out
}

// putElement writes one element of dtype dt, read from a JSON value, into b.
func putElement(b []byte, dt DType, el *jsonNode) error {
	switch dt {
	case "bool":
		switch {
		case el.kind == jsonBool:
			b[0] = 0
			if el.boolean {
				b[0] = 1
			}
		case el.kind == jsonNumber && (el.str == "0" || el.str == "1"):
			b[0] = el.str[0] - '0'
		default:
			return fmt.Errorf("expected true, false, 0 or 1")
		}
		return nil
	case "f16", "bf16", "f32", "f64":
		var v float64
		switch {
		case el.kind == jsonNumber:
			x, err := strconv.ParseFloat(el.str, 64)
			if err != nil {
				return fmt.Errorf("%s is not representable as a float64", el.str)
			}
			v = x
		case el.kind == jsonString && el.str == "nan":
			v = math.NaN()
		case el.kind == jsonString && el.str == "inf":
			v = math.Inf(1)
		case el.kind == jsonString && el.str == "-inf":
			v = math.Inf(-1)
		default:
			return fmt.Errorf("expected a number, \"nan\", \"inf\" or \"-inf\", found %s", el.kind)
		}
		switch dt {
		case "f64":
			binary.LittleEndian.PutUint64(b, math.Float64bits(v))
		case "f32":
			if f := float32(v); math.IsInf(float64(f), 0) && !math.IsInf(v, 0) {
				return fmt.Errorf("%s overflows f32", el.str)
			}
			binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
		case "f16":
			binary.LittleEndian.PutUint16(b, float16Bits(v))
		case "bf16":
			binary.LittleEndian.PutUint16(b, bfloat16Bits(float32(v)))
		}
		return nil
	}
	if el.kind != jsonNumber {
		return fmt.Errorf("expected an integer, found %s", el.kind)
	}
	signed := dt[0] == 'i'
	bits := int(dt.Size() * 8)
	var u uint64
	if signed {
		v, err := strconv.ParseInt(el.str, 10, bits)
		if err != nil {
			return fmt.Errorf("%s is not an integer of dtype %s", el.str, dt)
		}
		u = uint64(v)
	} else {
		v, err := strconv.ParseUint(el.str, 10, bits)
		if err != nil {
			return fmt.Errorf("%s is not an integer of dtype %s", el.str, dt)
		}
		u = v
	}
	for i := 0; i < int(dt.Size()); i++ {
		b[i] = byte(u >> (8 * i))
	}
	return nil
}

// bfloat16Bits rounds f to bfloat16, to nearest even.
func bfloat16Bits(f float32) uint16 {
	u := math.Float32bits(f)
	if f != f {
		return uint16(u>>16) | 0x40 // a quiet NaN
	}
	u += 0x7fff + (u>>16)&1
	return uint16(u >> 16)
}

// float16Bits rounds v to IEEE binary16, to nearest even.
func float16Bits(v float64) uint16 {
	sign := uint16(0)
	if math.Signbit(v) {
		sign, v = 0x8000, -v
	}
	switch {
	case math.IsNaN(v):
		return 0x7e00
	case math.IsInf(v, 0) || v >= 65520: // rounds to infinity
		return sign | 0x7c00
	case v < math.Ldexp(1, -14): // subnormal: units of 2^-24
		return sign | uint16(math.RoundToEven(v*(1<<24)))
	}
	frac, exp := math.Frexp(v) // v = frac * 2^exp, frac in [0.5, 1)
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

// ElementText spells element i of a constant's data as "data" holds it,
// exactly (floats in the shortest form that reads back to the same value).
func ElementText(dt DType, data []byte, i int) string {
	size := int(dt.Size())
	b := data[i*size : i*size+size]
	switch dt {
	case "bool":
		if b[0] != 0 {
			return "true"
		}
		return "false"
	case "f32":
		return floatText(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), 32)
	case "f64":
		return floatText(math.Float64frombits(binary.LittleEndian.Uint64(b)), 64)
	case "bf16":
		return floatText(float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b))<<16)), 32)
	case "f16":
		return floatText(float16Value(binary.LittleEndian.Uint16(b)), 32)
	}
	var u uint64
	for k := size - 1; k >= 0; k-- {
		u = u<<8 | uint64(b[k])
	}
	if dt[0] == 'i' {
		shift := 64 - 8*size
		return strconv.FormatInt(int64(u<<shift)>>shift, 10)
	}
	return strconv.FormatUint(u, 10)
}

func floatText(v float64, bits int) string {
	switch {
	case math.IsNaN(v):
		return `"nan"`
	case math.IsInf(v, 1):
		return `"inf"`
	case math.IsInf(v, -1):
		return `"-inf"`
	}
	return strconv.FormatFloat(v, 'g', -1, bits)
}

func float16Value(h uint16) float64 {
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
