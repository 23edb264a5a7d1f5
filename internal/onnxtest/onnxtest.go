// Package onnxtest imports ONNX's backend node tests (Debian's
// libonnx-testdata) for the tests that run them.
package onnxtest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/wrapgen/wrapgen/graph/onnx"
	"github.com/wrapgen/wrapgen/internal/fold"
)

// Dir is where libonnx-testdata puts the node tests: one folder per test,
// each a model.onnx and test_data_set_0/.
const Dir = "/usr/share/libonnx-testdata/data/node"

var computedInput = regexp.MustCompile(`input \d+ (?:\([a-z_A-Z]+\) )?"([^"]+)" (?:of \w+ )?is computed`)

// Import imports a node test's model. Node tests pass reshape targets,
// slice bounds and the like as graph inputs; when the import needs one at
// import time, it is fixed to the test's input_<i>.pb and the import
// retried, as a user would with onnx.Options.Values. It returns the
// result, the model's bytes and the values it fixed.
func Import(dir string) (*onnx.Result, []byte, map[string]onnx.Weight, error) {
	name := filepath.Base(dir) + "/model.onnx"
	data, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		return nil, nil, nil, err
	}
	values := map[string]onnx.Weight{}
	names, err := onnx.InputNames(data)
	if err != nil {
		res, err := onnx.Import(name, data, onnx.Options{Values: values, Fold: fold.Call})
		return res, data, values, err
	}
	for {
		res, err := onnx.Import(name, data, onnx.Options{Values: values, Fold: fold.Call})
		if err == nil {
			return res, data, values, nil
		}
		sub := computedInput.FindStringSubmatch(err.Error())
		if sub == nil {
			return nil, data, values, err
		}
		if _, fixed := values[sub[1]]; fixed {
			return nil, data, values, err
		}
		idx := -1
		for i, in := range names {
			if in == sub[1] {
				idx = i
			}
		}
		if idx < 0 {
			// A value computed from the inputs (a window's size through Cast
			// and arithmetic): fix every input, once, and let import fold.
			if len(values) == len(names) {
				return nil, data, values, err
			}
			for i, in := range names {
				if w, rerr := readInput(dir, i); rerr == nil {
					values[in] = w
				}
			}
			if len(values) < len(names) {
				return nil, data, values, err
			}
			continue
		}
		w, rerr := readInput(dir, idx)
		if rerr != nil {
			return nil, data, values, err
		}
		values[sub[1]] = w
	}
}

// readInput reads a node test's input_<i>.pb.
func readInput(dir string, i int) (onnx.Weight, error) {
	pb, err := os.ReadFile(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("input_%d.pb", i)))
	if err != nil {
		return onnx.Weight{}, err
	}
	return onnx.DecodeTensor(pb)
}
