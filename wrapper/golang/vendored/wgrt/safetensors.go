package wgrt

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"sort"
)

// safetensorsDTypes maps the dtype names of a safetensors header (what
// `wrapgen import -weights` writes) to element types.
var safetensorsDTypes = map[string]DType{
	"BOOL": Bool, "I8": I8, "U8": U8, "I16": I16, "U16": U16, "I32": I32, "U32": U32,
	"I64": I64, "U64": U64, "F16": F16, "BF16": BF16, "F32": F32, "F64": F64,
	"F8_E4M3": F8E4M3FN, "F8_E5M2": F8E5M2,
}

// safetensorsMaxHeader is the largest header length accepted, the
// reference implementation's limit (100 MB).
const safetensorsMaxHeader = 100_000_000

// LoadSafetensors reads a safetensors file (such as the weights `wrapgen
// import -weights` takes out of an ONNX model) into contiguous cpu tensors
// by name, ready to be fields of a wrapper's Inputs.
func LoadSafetensors(path string) (map[string]Tensor, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseSafetensors(path, data)
}

// ParseSafetensors is LoadSafetensors on bytes already read; name is used
// in errors. It accepts exactly the files docs/safetensors.md describes,
// checking them in the order that document gives (which the C++ runtime's
// wrapgen::LoadSafetensors follows too), and allocates only once every
// check has passed.
func ParseSafetensors(name string, data []byte) (map[string]Tensor, error) {
	entries, body, err := checkSafetensors(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := make(map[string]Tensor, len(entries))
	for _, e := range entries {
		shape := make([]int, len(e.shape))
		for i, d := range e.shape {
			shape[i] = int(d)
		}
		t := New(safetensorsDTypes[e.dtype], shape...)
		copy(t.Data, body[e.offsets[0]:e.offsets[1]])
		out[e.name] = t
	}
	return out, nil
}

// notSafetensors ends the errors of a header length no safetensors file
// has: most often the file is something else, an ONNX model given as params.
const notSafetensors = ": not a safetensors file (wrapgen import writes the weights of an ONNX model as one)"

// checkSafetensors checks a whole file and returns its tensors and its
// data section.
func checkSafetensors(data []byte) ([]safetensorsEntry, []byte, error) {
	if len(data) < 8 {
		return nil, nil, fmt.Errorf("%d bytes is too short for a safetensors file", len(data))
	}
	n := binary.LittleEndian.Uint64(data)
	if n > safetensorsMaxHeader {
		return nil, nil, fmt.Errorf("header length %d is above the limit of %d bytes%s", n, safetensorsMaxHeader, notSafetensors)
	}
	if n > uint64(len(data)-8) {
		return nil, nil, fmt.Errorf("header length %d runs past the end of the file (%d bytes)%s", n, len(data), notSafetensors)
	}
	p := &safetensorsHeader{b: data, pos: 8, end: 8 + int(n)}
	entries, err := p.parse()
	if err != nil {
		return nil, nil, err
	}
	body := data[8+n:]
	for _, e := range entries {
		if err := checkSafetensorsEntry(e, int64(len(body))); err != nil {
			return nil, nil, err
		}
	}
	if err := checkSafetensorsCoverage(entries, int64(len(body))); err != nil {
		return nil, nil, err
	}
	return entries, body, nil
}

// checkSafetensorsEntry checks one tensor's dtype, shape and byte range
// against a data section of size bytes, with checked arithmetic.
func checkSafetensorsEntry(e safetensorsEntry, size int64) error {
	q := quoteName(e.name)
	dtype, ok := safetensorsDTypes[e.dtype]
	if !ok {
		return fmt.Errorf("tensor %s: unknown dtype %s", q, quoteName(e.dtype))
	}
	if e.rank > safetensorsMaxRank {
		return fmt.Errorf("tensor %s: rank %d is above %d", q, e.rank, safetensorsMaxRank)
	}
	// Bytes must fit an int64 and, on 32-bit machines, an int, multiplied
	// from the last dimension to the first so that every row-major stride
	// fits too.
	limit := int64(math.MaxInt)
	bytes := int64(dtype.Size())
	for i := len(e.shape) - 1; i >= 0; i-- {
		d := e.shape[i]
		if d != 0 && bytes > limit/d {
			return fmt.Errorf("tensor %s: shape %s of %s has more bytes than an int64 holds", q, dimsText(e.shape), e.dtype)
		}
		bytes *= d
	}
	if e.numOffsets != 2 {
		return fmt.Errorf("tensor %s: data_offsets has %d entries, want 2", q, e.numOffsets)
	}
	begin, end := e.offsets[0], e.offsets[1]
	if begin > end {
		return fmt.Errorf("tensor %s: data_offsets [%d, %d] run backwards", q, begin, end)
	}
	if end > size {
		return fmt.Errorf("tensor %s: data_offsets [%d, %d] run past the end of the data section (%d bytes)", q, begin, end, size)
	}
	if end-begin != bytes {
		return fmt.Errorf("tensor %s: shape %s of %s needs %d bytes, data_offsets [%d, %d] hold %d", q, dimsText(e.shape), e.dtype, bytes, begin, end, end-begin)
	}
	return nil
}

// checkSafetensorsCoverage checks that the tensors' byte ranges, in order
// of (begin, end, place in the header), tile the data section of size
// bytes: no overlap, no hole, nothing after the last.
func checkSafetensorsCoverage(entries []safetensorsEntry, size int64) error {
	order := make([]*safetensorsEntry, len(entries))
	for i := range entries {
		order[i] = &entries[i]
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.offsets[0] != b.offsets[0] {
			return a.offsets[0] < b.offsets[0]
		}
		if a.offsets[1] != b.offsets[1] {
			return a.offsets[1] < b.offsets[1]
		}
		return a.index < b.index
	})
	var at int64
	var last *safetensorsEntry
	for _, e := range order {
		if e.offsets[0] < at {
			return fmt.Errorf("tensor %s: data_offsets [%d, %d] overlap tensor %s's [%d, %d]",
				quoteName(e.name), e.offsets[0], e.offsets[1], quoteName(last.name), last.offsets[0], last.offsets[1])
		}
		if e.offsets[0] > at {
			return fmt.Errorf("bytes [%d, %d) of the data section belong to no tensor", at, e.offsets[0])
		}
		at, last = e.offsets[1], e
	}
	if at < size {
		return fmt.Errorf("bytes [%d, %d) of the data section belong to no tensor", at, size)
	}
	return nil
}
