package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/wrapgen/wrapgen/wrapper/golang/wgrt"
)

// NumPy's .npy format (version 1.0 to 3.0): a magic string, a header
// dictionary (descr, fortran_order, shape), then the raw elements.

var npyDescrs = map[string]wgrt.DType{
	"|b1": wgrt.Bool, "|i1": wgrt.I8, "|u1": wgrt.U8, "<i2": wgrt.I16, "<u2": wgrt.U16, "<i4": wgrt.I32, "<u4": wgrt.U32,
	"<i8": wgrt.I64, "<u8": wgrt.U64, "<f2": wgrt.F16, "<f4": wgrt.F32, "<f8": wgrt.F64, "<c8": wgrt.C64, "<c16": wgrt.C128,
	"i1": wgrt.I8, "u1": wgrt.U8, "b1": wgrt.Bool,
}

var (
	npyDescr   = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	npyFortran = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	npyShape   = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// readNpy decodes a .npy file's bytes into a contiguous tensor; name is
// the file, for errors.
func readNpy(name string, data []byte) (wgrt.Tensor, error) {
	fail := func(format string, args ...any) (wgrt.Tensor, error) {
		return wgrt.Tensor{}, fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...))
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
	header := string(data[start : start+hlen])
	body := data[start+hlen:]
	m := npyDescr.FindStringSubmatch(header)
	if m == nil {
		return fail("header has no descr: %q", header)
	}
	dt, ok := npyDescrs[m[1]]
	if !ok {
		if strings.HasPrefix(m[1], ">") {
			return fail("big-endian data (%s) is not supported: save it little-endian", m[1])
		}
		return fail("dtype %q is not one wrapgen reads (bool, integers, f2, f4, f8, c8, c16)", m[1])
	}
	if f := npyFortran.FindStringSubmatch(header); f != nil && f[1] == "True" {
		return fail("Fortran-order arrays are not supported: save it with numpy.ascontiguousarray")
	}
	sm := npyShape.FindStringSubmatch(header)
	if sm == nil {
		return fail("header has no shape: %q", header)
	}
	var shape []int
	n := 1
	for _, part := range strings.Split(sm[1], ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		d, err := strconv.Atoi(strings.TrimSuffix(part, "L"))
		if err != nil || d < 0 || (d > 0 && n > (1<<40)/d) {
			return fail("bad shape (%s)", sm[1])
		}
		shape = append(shape, d)
		n *= d
	}
	if want := n * dt.Size(); len(body) < want {
		return fail("%d bytes of data for shape %v of %s, want %d", len(body), shape, dt, want)
	}
	t := wgrt.New(dt, shape...)
	copy(t.Data, body[:n*dt.Size()])
	return t, nil
}

// npyDescrOf is dt's descr; bf16 has none (written as f4).
func npyDescrOf(dt wgrt.DType) (string, bool) {
	for d, t := range npyDescrs {
		if t == dt && (d[0] == '<' || d[0] == '|') {
			return d, true
		}
	}
	return "", false
}

// writeNpy encodes a tensor (any strides) as a version 1.0 .npy file; bf16
// is written as its exact float32 values (NumPy has no bfloat16).
func writeNpy(t wgrt.Tensor) ([]byte, error) {
	src := t
	if t.DType == wgrt.BF16 {
		f := wgrt.New(wgrt.F32, t.Shape...)
		i := 0
		each(t, func(off int) {
			binary.LittleEndian.PutUint32(f.Data[4*i:], uint32(binary.LittleEndian.Uint16(t.Data[2*off:]))<<16)
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
	// Pad with spaces so the data starts at a multiple of 64, ending in \n.
	pad := 64 - (10+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(header)))
	b.WriteString(header)
	size := src.DType.Size()
	each(src, func(off int) { b.Write(src.Data[off*size : off*size+size]) })
	return b.Bytes(), nil
}

// each calls f with the element offset of every element of t in row-major
// order.
func each(t wgrt.Tensor, f func(off int)) {
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
