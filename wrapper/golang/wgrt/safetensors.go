package wgrt

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// safetensorsDTypes maps the dtype names of a safetensors header (what
// `wrapgen import -weights` writes) to element types.
var safetensorsDTypes = map[string]DType{
	"BOOL": Bool, "I8": I8, "U8": U8, "I16": I16, "U16": U16, "I32": I32, "U32": U32,
	"I64": I64, "U64": U64, "F16": F16, "BF16": BF16, "F32": F32, "F64": F64,
	"F8_E4M3": F8E4M3FN, "F8_E5M2": F8E5M2,
}

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
// in errors.
func ParseSafetensors(name string, data []byte) (map[string]Tensor, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("%s: %d bytes is too short for a safetensors file", name, len(data))
	}
	n := binary.LittleEndian.Uint64(data)
	if n > uint64(len(data)-8) {
		return nil, fmt.Errorf("%s: header length %d runs past the end of the file (%d bytes)", name, n, len(data))
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(data[8:8+n], &header); err != nil {
		return nil, fmt.Errorf("%s: header: %v", name, err)
	}
	body := data[8+n:]
	out := make(map[string]Tensor, len(header))
	for key, raw := range header {
		if key == "__metadata__" {
			continue
		}
		var e struct {
			DType   string `json:"dtype"`
			Shape   []int  `json:"shape"`
			Offsets []int  `json:"data_offsets"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fmt.Errorf("%s: tensor %q: %v", name, key, err)
		}
		dtype, ok := safetensorsDTypes[e.DType]
		if !ok {
			return nil, fmt.Errorf("%s: tensor %q: unknown dtype %q", name, key, e.DType)
		}
		if len(e.Offsets) != 2 || e.Offsets[0] < 0 || e.Offsets[0] > e.Offsets[1] || e.Offsets[1] > len(body) {
			return nil, fmt.Errorf("%s: tensor %q: byte range %v is not inside the data (%d bytes)", name, key, e.Offsets, len(body))
		}
		elems := 1
		for _, d := range e.Shape {
			// Bounded so that the byte size (up to 16 bytes an element)
			// cannot overflow.
			if d < 0 || (d > 0 && elems > math.MaxInt/16/d) {
				return nil, fmt.Errorf("%s: tensor %q: bad shape %v", name, key, e.Shape)
			}
			elems *= d
		}
		if want := elems * dtype.Size(); want != e.Offsets[1]-e.Offsets[0] {
			return nil, fmt.Errorf("%s: tensor %q: shape %v of %s needs %d bytes, the file gives %d", name, key, e.Shape, dtype, want, e.Offsets[1]-e.Offsets[0])
		}
		t := New(dtype, e.Shape...)
		copy(t.Data, body[e.Offsets[0]:e.Offsets[1]])
		out[key] = t
	}
	return out, nil
}
