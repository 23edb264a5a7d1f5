package onnxcnn

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"

	"github.com/wrapgen/wrapgen/examples/onnxcnn/wgrt"
)

// LoadWeights reads a safetensors file written by `wrapgen import
// -weights` into tensors by name (F32 only: the dtype of this model).
func LoadWeights(path string) (map[string]wgrt.Tensor, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) < 8 {
		return nil, fmt.Errorf("%s: too short for a safetensors file", path)
	}
	n := binary.LittleEndian.Uint64(data)
	if n > uint64(len(data)-8) {
		return nil, fmt.Errorf("%s: header length %d beyond the file", path, n)
	}
	var header map[string]struct {
		DType   string `json:"dtype"`
		Shape   []int  `json:"shape"`
		Offsets [2]int `json:"data_offsets"`
	}
	if err := json.Unmarshal(data[8:8+n], &header); err != nil {
		return nil, fmt.Errorf("%s: header: %v", path, err)
	}
	body := data[8+n:]
	out := map[string]wgrt.Tensor{}
	for name, e := range header {
		if e.DType != "F32" {
			return nil, fmt.Errorf("%s: %q has dtype %s, want F32", path, name, e.DType)
		}
		if e.Offsets[0] < 0 || e.Offsets[1] > len(body) || e.Offsets[0] > e.Offsets[1] {
			return nil, fmt.Errorf("%s: %q has byte range %v outside the data", path, name, e.Offsets)
		}
		t := wgrt.New(wgrt.F32, e.Shape...)
		if len(t.Data) != e.Offsets[1]-e.Offsets[0] {
			return nil, fmt.Errorf("%s: %q holds %d bytes for shape %v", path, name, e.Offsets[1]-e.Offsets[0], e.Shape)
		}
		copy(t.Data, body[e.Offsets[0]:e.Offsets[1]])
		out[name] = t
	}
	return out, nil
}
