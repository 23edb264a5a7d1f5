package onnx

import (
	"os"
	"testing"
)

// FuzzImport: no bytes make the importer panic; what it accepts is a
// document graph.Parse would read (checked by Load in the other tests).
func FuzzImport(f *testing.F) {
	for _, name := range []string{"testdata/resnet18.onnx", "testdata/tiny_bert.onnx", "testdata/scripted_if.onnx",
		"testdata/loop_growing.onnx", "testdata/loop_runtime_cond.onnx", "../../internal/interp/testdata/controlflow/scan_directions/model.onnx",
		"../../internal/interp/testdata/controlflow/loop_nested/model.onnx", "../../internal/interp/testdata/runtime_sizes/topk_of_kept/model.onnx",
		"../../internal/interp/testdata/computed_sizes/detect_transform/model.onnx", "../../internal/interp/testdata/accumulate/loop_accumulate/model.onnx"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add(syntheticModel(30))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Import("fuzz.onnx", data, Options{})
	})
}
