package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/onnx"
)

// realModelMain runs a generated wrapper with the reference kernels: params
// and inputs from safetensors files, each output's bytes (row-major) to
// DIR/gen_<i>.bin in the graph's output order.
const realModelMain = `package main

import (
	"fmt"
	"os"
	"path/filepath"

	"example.com/user/model"
	"example.com/user/model/wgrt"
)

func main() {
	p, err := model.LoadParams(os.Args[1])
	check(err)
	tensors, err := wgrt.LoadSafetensors(os.Args[2])
	check(err)
	in, err := model.InputsFrom(tensors, nil)
	check(err)
	out, err := model.Run(model.RefKernels(), p, in)
	check(err)
	outs := out.Map()
	for i, s := range model.Signature().Outputs {
		t := outs[s.Name]
		if !t.Contiguous() {
			panic("output " + s.Name + " is not row-major")
		}
		check(os.WriteFile(filepath.Join(os.Args[3], fmt.Sprintf("gen_%d.bin", i)), t.Data[:t.NumElements()*t.DType.Size()], 0o644))
	}
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
`

// The models bench/export.py writes (CI exports them with PyTorch and
// points WRAPGEN_MODELS at them), each run through a wrapper generated with
// -kernels ref: its outputs must be exactly `wrapgen run`'s, which CI
// compares with PyTorch's.
func TestRealModelsGeneratedMatchRun(t *testing.T) {
	dir := os.Getenv("WRAPGEN_MODELS")
	if dir == "" {
		t.Skip("WRAPGEN_MODELS names no directory of exported models (CI sets it)")
	}
	models, err := filepath.Glob(filepath.Join(dir, "*.onnx"))
	require.NoError(t, err)
	require.NotEmpty(t, models)
	for _, m := range models {
		name := filepath.Base(m[:len(m)-len(".onnx")])
		t.Run(name, func(t *testing.T) {
			work := tempModule(t)
			g, _, err := onnx.Load(m, onnx.Options{})
			require.NoError(t, err)
			runArgs := []string{"run", "-q", "-out", work}
			var inputs []onnx.Weight
			for i, x := range g.Inputs {
				f := filepath.Join(dir, fmt.Sprintf("%s_in_%d.npy", name, i))
				runArgs = append(runArgs, "-in", f)
				data, err := os.ReadFile(f)
				require.NoError(t, err)
				tensor, err := readNpy(f, data)
				require.NoError(t, err)
				shape := make([]int64, len(tensor.Shape))
				for d, s := range tensor.Shape {
					shape[d] = int64(s)
				}
				inputs = append(inputs, onnx.Weight{Name: x.Name, DType: graph.DType(tensor.DType.String()), Shape: shape, Data: tensor.Data})
			}
			_, _, err = runCLI(append(runArgs, m)...)
			require.NoError(t, err)

			st, err := onnx.Safetensors(inputs)
			require.NoError(t, err)
			inFile, weights, graphFile := filepath.Join(work, "in.safetensors"), filepath.Join(work, "w.safetensors"), filepath.Join(work, "g.json")
			require.NoError(t, os.WriteFile(inFile, st, 0o644))
			_, _, err = runCLI("import", "-q", "-weights", weights, "-o", graphFile, m)
			require.NoError(t, err)
			_, _, err = runCLI("gen", "-q", "-lang", "go", "-kernels", "ref", "-o", filepath.Join(work, "model", "model.go"), graphFile)
			require.NoError(t, err)
			require.NoError(t, os.MkdirAll(filepath.Join(work, "cmd"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(work, "cmd", "main.go"), []byte(realModelMain), 0o644))
			cmd := exec.Command("go", "run", "./cmd", weights, inFile, work)
			cmd.Dir = work
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)

			for i := range g.Outputs {
				f := filepath.Join(work, fmt.Sprintf("output_%d.npy", i))
				data, err := os.ReadFile(f)
				require.NoError(t, err)
				want, err := readNpy(f, data)
				require.NoError(t, err)
				got, err := os.ReadFile(filepath.Join(work, fmt.Sprintf("gen_%d.bin", i)))
				require.NoError(t, err)
				assert.True(t, string(got) == string(want.Data), "output %d: the generated wrapper's bytes differ from wrapgen run's", i)
			}
		})
	}
}
