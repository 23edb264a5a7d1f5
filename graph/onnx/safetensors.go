package onnx

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/wrapgen/wrapgen/graph"
)

// safetensorsDTypes names format-v1 dtypes in the safetensors header.
var safetensorsDTypes = map[graph.DType]string{
	"bool": "BOOL", "i8": "I8", "u8": "U8", "i16": "I16", "u16": "U16", "i32": "I32", "u32": "U32",
	"i64": "I64", "u64": "U64", "f16": "F16", "bf16": "BF16", "f32": "F32", "f64": "F64",
	"f8e4m3fn": "F8_E4M3", "f8e5m2": "F8_E5M2",
}

// Safetensors writes weights in the safetensors format (an 8-byte header
// length, a JSON header naming each tensor's dtype, shape and byte range,
// then the data), which the Go runtime's wgrt.LoadSafetensors reads and which
// Python's safetensors and PyTorch tooling read too. The output is
// deterministic: tensors are laid out in the order given.
func Safetensors(ws []Weight) ([]byte, error) {
	type entry struct {
		DType   string  `json:"dtype"`
		Shape   []int64 `json:"shape"`
		Offsets [2]int  `json:"data_offsets"`
	}
	header := map[string]any{}
	off := 0
	for _, w := range ws {
		d, ok := safetensorsDTypes[w.DType]
		if !ok {
			return nil, fmt.Errorf("weight %q: dtype %s has no safetensors name", w.Name, w.DType)
		}
		shape := w.Shape
		if shape == nil {
			shape = []int64{}
		}
		header[w.Name] = entry{d, shape, [2]int{off, off + len(w.Data)}}
		off += len(w.Data)
	}
	h, err := json.Marshal(header) // keys sorted: deterministic
	if err != nil {
		return nil, err
	}
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	out := binary.LittleEndian.AppendUint64(make([]byte, 0, 8+len(h)+off), uint64(len(h)))
	out = append(out, h...)
	for _, w := range ws {
		out = append(out, w.Data...)
	}
	return out, nil
}
