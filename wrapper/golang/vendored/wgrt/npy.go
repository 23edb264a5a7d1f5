package wgrt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// NumPy's .npy format (version 1.0 to 3.0): a magic string, a header
// dictionary (descr, fortran_order, shape), then the raw elements. This is
// the reader and writer `wrapgen run` uses for its -in and -out files.

var npyDescrs = map[string]DType{
	"|b1": Bool, "|i1": I8, "|u1": U8, "<i2": I16, "<u2": U16, "<i4": I32, "<u4": U32,
	"<i8": I64, "<u8": U64, "<f2": F16, "<f4": F32, "<f8": F64, "<c8": C64, "<c16": C128,
	"i1": I8, "u1": U8, "b1": Bool,
}

// LoadNpy reads a .npy file (numpy.save's format) into a contiguous cpu
// tensor, ready to be a field of a wrapper's Inputs: see ReadNpy.
func LoadNpy(path string) (Tensor, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Tensor{}, err
	}
	return ReadNpy(path, data)
}

// SaveNpy writes t (any strides) to a .npy file numpy.load reads: see
// WriteNpy.
func SaveNpy(path string, t Tensor) error {
	data, err := WriteNpy(t)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, data, 0o644)
}

// ReadNpy decodes a .npy file's bytes into a contiguous cpu tensor (its
// own memory, aligned as New's); name is the file, for errors, which all
// start with it. It follows numpy's reader: the header is a Python dict
// literal with exactly the keys descr, fortran_order (a bool) and shape (a
// tuple of integers); a Fortran-order array is read in its element order
// (transposed into row-major). A key given twice is refused (numpy takes
// the last: which one was meant is not clear). The dtypes are those numpy
// has: bool, the integers, f2, f4, f8, c8 and c16, little-endian; numpy
// has no bfloat16 or float8 (ml_dtypes saves them as raw void records,
// which are refused).
func ReadNpy(name string, data []byte) (Tensor, error) {
	fail := func(format string, args ...any) (Tensor, error) {
		return Tensor{}, fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...))
	}
	if len(data) < 10 || !bytes.HasPrefix(data, []byte("\x93NUMPY")) {
		return fail("not a .npy file (no \\x93NUMPY magic)")
	}
	major := data[6]
	var hlen, start int
	switch major {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(data[8:])), 10
	case 2, 3:
		if len(data) < 12 {
			return fail("truncated header")
		}
		hlen, start = int(binary.LittleEndian.Uint32(data[8:])), 12
	default:
		return fail("unsupported .npy version %d", major)
	}
	if start+hlen > len(data) {
		return fail("header runs past the end of the file")
	}
	body := data[start+hlen:]
	h, err := parseNpyHeader(string(data[start : start+hlen]))
	if err != nil {
		return fail("header: %v", err)
	}
	dt, ok := npyDescrs[h.descr]
	if !ok {
		if strings.HasPrefix(h.descr, ">") {
			return fail("big-endian data (%s) is not supported: save it little-endian", h.descr)
		}
		if len(h.descr) > 1 && h.descr[1] == 'V' {
			return fail("dtype %q is raw bytes (how numpy saves ml_dtypes' bfloat16 and float8): save it as float32", h.descr)
		}
		return fail("dtype %q is not one wrapgen reads (bool, integers, f2, f4, f8, c8, c16)", h.descr)
	}
	n := 1
	for _, d := range h.shape {
		if d < 0 || (d > 0 && n > (1<<40)/d) {
			return fail("bad shape %v", h.shape)
		}
		n *= d
	}
	if want := n * dt.Size(); len(body) < want {
		return fail("%d bytes of data for shape %v of %s, want %d", len(body), h.shape, dt, want)
	}
	t := New(dt, h.shape...)
	if !h.fortran {
		copy(t.Data, body[:n*dt.Size()])
		return t, nil
	}
	// Column-major: the first index varies fastest.
	src := Tensor{DType: dt, Shape: h.shape, Strides: make([]int, len(h.shape)), Data: body}
	stride := 1
	for d := range h.shape {
		src.Strides[d] = stride
		stride *= max(h.shape[d], 1)
	}
	size, i := dt.Size(), 0
	EachElement(src, func(off int) {
		copy(t.Data[i*size:(i+1)*size], body[off*size:])
		i++
	})
	return t, nil
}

// npyHeader is a .npy header's dict.
type npyHeader struct {
	descr   string
	fortran bool
	shape   []int
}

// parseNpyHeader reads a header: a Python dict literal of the three keys.
func parseNpyHeader(text string) (npyHeader, error) {
	var h npyHeader
	p := &pyLiteral{s: strings.TrimSpace(text)}
	v, err := p.value()
	if err == nil {
		p.space()
		if p.i < len(p.s) {
			err = fmt.Errorf("unexpected %q after the dict", p.s[p.i:])
		}
	}
	if err != nil {
		return h, err
	}
	d, ok := v.(pyDict)
	if !ok {
		return h, fmt.Errorf("not a dict: %q", text)
	}
	for _, key := range []string{"descr", "fortran_order", "shape"} {
		if _, ok := d.values[key]; !ok {
			return h, fmt.Errorf("no %q key (numpy writes descr, fortran_order and shape): %q", key, text)
		}
	}
	for _, key := range d.keys {
		switch key {
		case "descr":
			switch v := d.values[key].(type) {
			case string:
				h.descr = v
			case pyList:
				return h, fmt.Errorf("descr is a structured dtype (a record of named fields), which wrapgen does not read: save each field as its own array")
			default:
				return h, fmt.Errorf("descr is not a dtype string: %v", v)
			}
		case "fortran_order":
			b, ok := d.values[key].(bool)
			if !ok {
				return h, fmt.Errorf("fortran_order is %v, not True or False", d.values[key])
			}
			h.fortran = b
		case "shape":
			tup, ok := d.values[key].(pyTuple)
			if !ok {
				return h, fmt.Errorf("shape is %v, not a tuple", d.values[key])
			}
			for _, e := range tup {
				n, ok := e.(int64)
				if !ok || n < 0 || n > 1<<40 {
					return h, fmt.Errorf("shape %v: each size is an integer from 0 to 2^40", tup)
				}
				h.shape = append(h.shape, int(n))
			}
		default:
			return h, fmt.Errorf("unknown key %q (numpy writes only descr, fortran_order and shape)", key)
		}
	}
	return h, nil
}

// The values a .npy header holds: a dict of string keys, strings, bools,
// integers, tuples and lists (a structured dtype's descr).
type (
	pyDict struct {
		keys   []string
		values map[string]any
	}
	pyTuple []any
	pyList  []any
)

// pyLiteral parses the subset of Python literals numpy writes in a header.
type pyLiteral struct {
	s string
	i int
}

func (p *pyLiteral) space() {
	for p.i < len(p.s) && strings.ContainsRune(" \t\n\r", rune(p.s[p.i])) {
		p.i++
	}
}

func (p *pyLiteral) value() (any, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, fmt.Errorf("ends early")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict()
	case c == '(' || c == '[':
		return p.sequence(c)
	case c == '\'' || c == '"':
		return p.str()
	case strings.HasPrefix(p.s[p.i:], "True"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "False"):
		p.i += 5
		return false, nil
	case c == '-' || c >= '0' && c <= '9':
		j := p.i + 1
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		n, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("integer %q: %v", p.s[p.i:j], err)
		}
		if j < len(p.s) && p.s[j] == 'L' { // Python 2's long
			j++
		}
		p.i = j
		return n, nil
	}
	return nil, fmt.Errorf("unexpected %q", p.s[p.i:])
}

func (p *pyLiteral) str() (string, error) {
	q := p.s[p.i]
	var b strings.Builder
	for j := p.i + 1; j < len(p.s); j++ {
		switch p.s[j] {
		case q:
			p.i = j + 1
			return b.String(), nil
		case '\\':
			if j++; j == len(p.s) {
				return "", fmt.Errorf("unterminated string")
			}
		}
		b.WriteByte(p.s[j])
	}
	return "", fmt.Errorf("unterminated string")
}

// sequence parses a tuple (open '(') or a list ('[').
func (p *pyLiteral) sequence(open byte) (any, error) {
	close := byte(')')
	if open == '[' {
		close = ']'
	}
	p.i++
	var items []any
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == close {
			p.i++
			if open == '[' {
				return pyList(items), nil
			}
			return pyTuple(items), nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		if err := p.separator(close); err != nil {
			return nil, err
		}
	}
}

// separator consumes a ',' or stops before close.
func (p *pyLiteral) separator(close byte) error {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ',' {
		p.i++
		return nil
	}
	if p.i < len(p.s) && p.s[p.i] == close {
		return nil
	}
	return fmt.Errorf("expected ',' or %q at %q", close, p.s[min(p.i, len(p.s)):])
}

func (p *pyLiteral) dict() (any, error) {
	p.i++
	d := pyDict{values: map[string]any{}}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return d, nil
		}
		k, err := p.value()
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("a key is %v, not a string", k)
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, fmt.Errorf("expected ':' after key %q", key)
		}
		p.i++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if _, dup := d.values[key]; dup {
			return nil, fmt.Errorf("key %q is given twice", key)
		}
		d.keys = append(d.keys, key)
		d.values[key] = v
		if err := p.separator('}'); err != nil {
			return nil, err
		}
	}
}

// npyDescrOf is dt's descr; bf16 and the float8 types have none (written
// as f4).
func npyDescrOf(dt DType) (string, bool) {
	for d, t := range npyDescrs {
		if t == dt && (d[0] == '<' || d[0] == '|') {
			return d, true
		}
	}
	return "", false
}

// WriteNpy encodes a tensor (any strides: a view is written as the
// values it shows, row-major; nil strides are row-major) as a .npy file,
// version 1.0 unless the header needs 2.0. bf16, f8e4m3fn and f8e5m2 are
// written as their exact float32 values (numpy has none of them).
func WriteNpy(t Tensor) ([]byte, error) {
	if t.Strides == nil && len(t.Shape) > 0 {
		t.Strides = RowMajor(make([]int, len(t.Shape)), t.Shape)
	}
	if len(t.Strides) != len(t.Shape) {
		return nil, fmt.Errorf("a tensor of shape %v has %d strides", t.Shape, len(t.Strides))
	}
	for _, d := range t.Shape {
		if d < 0 {
			return nil, fmt.Errorf("bad shape %v", t.Shape)
		}
	}
	if t.DType.Size() == 0 {
		return nil, fmt.Errorf("dtype %s has no .npy form", t.DType)
	}
	if n := t.ExtentElements() * t.DType.Size(); len(t.Data) < n {
		return nil, fmt.Errorf("a %s tensor of shape %v and strides %v spans %d bytes but has %d", t.DType, t.Shape, t.Strides, n, len(t.Data))
	}
	src := t
	if widen := narrowFloatToFloat32(t.DType); widen != nil {
		f := New(F32, t.Shape...)
		out := f.Float32s()
		i := 0
		EachElement(t, func(off int) {
			out[i] = widen(t.Data, off)
			i++
		})
		src = f
	}
	descr, ok := npyDescrOf(src.DType)
	if !ok {
		return nil, fmt.Errorf("dtype %s has no .npy form", t.DType)
	}
	dims := make([]string, len(src.Shape))
	for i, d := range src.Shape {
		dims[i] = strconv.Itoa(d)
	}
	shape := strings.Join(dims, ", ")
	if len(dims) == 1 {
		shape += ","
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape)
	// Pad with spaces so the data starts at a multiple of 64, ending in \n;
	// a header too long for version 1.0's 16-bit length takes 2.0's 32.
	prefix := 10
	if 10+len(header)+64 > math.MaxUint16 {
		prefix = 12
	}
	pad := 64 - (prefix+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"
	var b bytes.Buffer
	b.Grow(prefix + len(header) + src.NumElements()*src.DType.Size())
	if prefix == 10 {
		b.WriteString("\x93NUMPY\x01\x00")
		b.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(header))))
	} else {
		b.WriteString("\x93NUMPY\x02\x00")
		b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(header))))
	}
	b.WriteString(header)
	size := src.DType.Size()
	EachElement(src, func(off int) { b.Write(src.Data[off*size : off*size+size]) })
	return b.Bytes(), nil
}

// narrowFloatToFloat32 is the exact float32 value of element off of a
// dtype numpy has no type for (bf16, the float8 types), or nil for another.
func narrowFloatToFloat32(dt DType) func(b []byte, off int) float32 {
	switch dt {
	case BF16:
		return func(b []byte, off int) float32 {
			return math.Float32frombits(uint32(binary.LittleEndian.Uint16(b[2*off:])) << 16)
		}
	case F8E5M2:
		// The top byte of an f16: the same sign, exponent and bias.
		return func(b []byte, off int) float32 { return float32(HalfToFloat64(uint16(b[off]) << 8)) }
	case F8E4M3FN:
		return func(b []byte, off int) float32 { return float32(Float8E4M3FNToFloat64(b[off])) }
	}
	return nil
}

// Float8E4M3FNToFloat64 decodes a float8 e4m3fn value: 4 exponent bits
// (bias 7), 3 fraction bits, no infinities, NaN only at all ones.
func Float8E4M3FNToFloat64(v uint8) float64 {
	sign := 1.0
	if v&0x80 != 0 {
		sign = -1
	}
	exp, frac := int(v>>3)&0xf, float64(v&7)
	switch {
	case exp == 0xf && v&7 == 7:
		return math.NaN()
	case exp == 0:
		return sign * math.Ldexp(frac, -9)
	}
	return sign * math.Ldexp(1+frac/8, exp-7)
}

// EachElement calls f with the element offset of every element of t in
// row-major order, whatever its strides (what ReadNpy and WriteNpy walk;
// Float64At reads the element at an offset).
func EachElement(t Tensor, f func(off int)) {
	n := t.NumElements()
	if n == 0 {
		return
	}
	idx := make([]int, len(t.Shape))
	for e := 0; e < n; e++ {
		off := 0
		for d, i := range idx {
			off += i * t.Strides[d]
		}
		f(off)
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < t.Shape[d] {
				break
			}
			idx[d] = 0
		}
	}
}
