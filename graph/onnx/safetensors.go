package onnx

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/wrapgen/wrapgen/graph"
)

// safetensorsDTypes names format-v1 dtypes in the safetensors header.
var safetensorsDTypes = map[graph.DType]string{
	"bool": "BOOL", "i8": "I8", "u8": "U8", "i16": "I16", "u16": "U16", "i32": "I32", "u32": "U32",
	"i64": "I64", "u64": "U64", "f16": "F16", "bf16": "BF16", "f32": "F32", "f64": "F64",
	"f8e4m3fn": "F8_E4M3", "f8e5m2": "F8_E5M2",
}

// safetensorsMaxRank is the largest rank the runtimes read back (the C++
// runtime's kMaxRank; docs/safetensors.md).
const safetensorsMaxRank = 8

// Safetensors writes weights in the safetensors format (an 8-byte header
// length, a JSON header naming each tensor's dtype, shape and byte range,
// then the data), which the Go runtime's wgrt.LoadSafetensors, the C++
// runtime's wrapgen::LoadSafetensors and Python's safetensors read. The
// output is deterministic: tensors are laid out in the order given.
// Weights the readers would not give back as written are refused: a name
// that is not UTF-8, is __metadata__ or is repeated, a rank above 8, data
// that is not the shape's size.
func Safetensors(ws []Weight) ([]byte, error) {
	type entry struct {
		DType   string  `json:"dtype"`
		Shape   []int64 `json:"shape"`
		Offsets [2]int  `json:"data_offsets"`
	}
	header := map[string]any{}
	off := 0
	for _, w := range ws {
		if err := checkSafetensorsWeight(w); err != nil {
			return nil, err
		}
		if _, dup := header[w.Name]; dup {
			return nil, fmt.Errorf("weight %q: two weights have this name; a safetensors file holds one", w.Name)
		}
		shape := w.Shape
		if shape == nil {
			shape = []int64{}
		}
		header[w.Name] = entry{safetensorsDTypes[w.DType], shape, [2]int{off, off + len(w.Data)}}
		off += len(w.Data)
	}
	// Keys sorted (deterministic); < > & as themselves, since HTML
	// escaping buys a weights file nothing.
	var h bytes.Buffer
	enc := json.NewEncoder(&h)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(header); err != nil {
		return nil, err
	}
	hdr := bytes.TrimRight(h.Bytes(), "\n")
	for len(hdr)%8 != 0 {
		hdr = append(hdr, ' ')
	}
	out := binary.LittleEndian.AppendUint64(make([]byte, 0, 8+len(hdr)+off), uint64(len(hdr)))
	out = append(out, hdr...)
	for _, w := range ws {
		out = append(out, w.Data...)
	}
	return out, nil
}

// checkSafetensorsWeight refuses a weight that would not read back as
// written.
func checkSafetensorsWeight(w Weight) error {
	if !utf8.ValidString(w.Name) {
		return fmt.Errorf("weight %q: the name is not UTF-8, which a safetensors header must be", w.Name)
	}
	if w.Name == "__metadata__" {
		return fmt.Errorf("weight %q: safetensors keeps this name for the file's metadata; rename the tensor", w.Name)
	}
	d, ok := safetensorsDTypes[w.DType]
	if !ok {
		return fmt.Errorf("weight %q: dtype %s has no safetensors name", w.Name, w.DType)
	}
	if len(w.Shape) > safetensorsMaxRank {
		return fmt.Errorf("weight %q: rank %d is above %d, the most the runtimes read", w.Name, len(w.Shape), safetensorsMaxRank)
	}
	bytes := w.DType.Size()
	for i := len(w.Shape) - 1; i >= 0; i-- {
		s := w.Shape[i]
		if s < 0 || (s > 0 && bytes > math.MaxInt64/s) {
			return fmt.Errorf("weight %q: shape %v of %s has more bytes than an int64 holds", w.Name, w.Shape, d)
		}
		bytes *= s
	}
	if int64(len(w.Data)) != bytes {
		return fmt.Errorf("weight %q: %d bytes of data for shape %v of %s, which needs %d", w.Name, len(w.Data), w.Shape, d, bytes)
	}
	return nil
}
