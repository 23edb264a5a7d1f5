package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
)

// consumerMain loads the params once, runs twice through a Runner and once
// through Run, tries a params file with one tensor's dtype changed, and
// counts the heap allocations of a steady call with the reference kernels.
const consumerMain = `package main

import (
	"fmt"
	"os"
	"testing"

	"example.com/user/model"
	"example.com/user/model/wgrt"
)

func main() {
	p, err := model.LoadParams(os.Args[1])
	if err != nil {
		panic(err)
	}
	k := model.KernelsFunc(func(*wgrt.Call) error { return nil })
	in, err := model.InputsFrom(inputs(), nil)
	if err != nil {
		panic(err)
	}
	if _, err := model.Run(k, p, in); err != nil {
		panic(err)
	}
	r, err := model.NewRunner(p, model.Options{})
	if err != nil {
		panic(err)
	}
	for i := 0; i < 2; i++ {
		if err := r.Run(k, in, &model.Outputs{}); err != nil {
			panic(err)
		}
	}
	if _, err := model.Run(k, p, &model.Inputs{}); err != nil {
		fmt.Println("unset:", err)
	}
	_, err = model.LoadParams(os.Args[2])
	fmt.Println("bad params:", err)
	ref, out := model.RefKernels(), &model.Outputs{}
	allocs := testing.AllocsPerRun(5, func() {
		if err := r.Run(ref, in, out); err != nil {
			panic(err)
		}
	})
	fmt.Println("allocations per steady call:", allocs)
	fmt.Println("ok", len(model.Signature().Params), "params")
}

// inputs are zeros of every input's shape at 1 for each symbol.
func inputs() map[string]wgrt.Tensor {
	out := map[string]wgrt.Tensor{}
	for _, s := range model.Signature().Inputs {
		shape := make([]int, len(s.Shape))
		for i, d := range s.Shape {
			shape[i] = 1
			fmt.Sscan(d, &shape[i])
		}
		out[s.Name] = wgrt.New(s.DType, shape...)
	}
	return out
}
`

// A model exported with its weights inside: import -weights, gen with the
// reference kernels, and a consumer that loads the params by name, runs,
// and is told clearly when an input is unset or the params file does not
// fit; a steady call allocates nothing (the kernels' scratch is planned).
// The C++ wrapper has the same Params, and selftest passes in both
// languages, the Go one with the reference kernels' scratch.
func TestParamsEndToEnd(t *testing.T) {
	testenv.SkipUnlessLong(t, "builds and runs generated code")
	for _, tc := range []struct {
		model        string
		inputFields  int
		changedParam string
	}{
		{"../../examples/onnxcnn/cnn.onnx", 1, "conv2.weight"},
		{"../../examples/tinybert/tinybert.onnx", 2, "tok.weight"},
	} {
		t.Run(filepath.Base(tc.model), func(t *testing.T) {
			dir := tempModule(t)
			weights, graphFile := filepath.Join(dir, "w.safetensors"), filepath.Join(dir, "g.json")
			_, _, err := runCLI("import", "-weights", weights, "-o", graphFile, tc.model)
			require.NoError(t, err)
			out := filepath.Join(dir, "model", "model.go")
			_, _, err = runCLI("gen", "-lang", "go", "-kernels", "ref", "-o", out, graphFile)
			require.NoError(t, err)
			src, err := os.ReadFile(out)
			require.NoError(t, err)
			inputs := regexp.MustCompile(`(?s)type Inputs struct \{(.*?)\n\}`).FindSubmatch(src)
			require.NotNil(t, inputs)
			assert.Equal(t, tc.inputFields, bytes.Count(inputs[1], []byte("wgrt.Tensor")), "Inputs holds only the data")

			// One tensor's dtype changed in the header (same byte size).
			data, err := os.ReadFile(weights)
			require.NoError(t, err)
			re := regexp.MustCompile(`"` + regexp.QuoteMeta(tc.changedParam) + `":\{"dtype":"F32"`)
			bad := re.ReplaceAll(data, []byte(`"`+tc.changedParam+`":{"dtype":"I32"`))
			require.NotEqual(t, data, bad)
			badFile := filepath.Join(dir, "bad.safetensors")
			require.NoError(t, os.WriteFile(badFile, bad, 0o644))

			require.NoError(t, os.MkdirAll(filepath.Join(dir, "cmd"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "cmd", "main.go"), []byte(consumerMain), 0o644))
			cmd := exec.Command("go", "run", "./cmd", weights, badFile)
			cmd.Dir = dir
			got, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", got)
			assert.Regexp(t, `unset: \w+: input \S+ is not set`, string(got))
			assert.Contains(t, string(got), "param "+tc.changedParam+": dtype is i32, want f32")
			assert.Regexp(t, `ok \d+ params`, string(got))
			assert.Contains(t, string(got), "allocations per steady call: 0\n")

			cppDir := filepath.Join(dir, "cpp")
			_, _, err = runCLI("gen", "-lang", "cpp", "-o", cppDir, graphFile)
			require.NoError(t, err)
			h, err := filepath.Glob(filepath.Join(cppDir, "*.h"))
			require.NoError(t, err)
			var header []byte
			for _, f := range h {
				if filepath.Base(f) != "wrapgen_runtime.h" {
					header, _ = os.ReadFile(f)
				}
			}
			assert.Contains(t, string(header), "struct Params {")
			assert.Contains(t, string(header), "wrapgen::Status LoadParams(const std::string& path, Params* out);")

			for _, lang := range []string{"go", "cpp"} {
				if lang == "cpp" {
					if _, err := exec.LookPath("g++"); err != nil {
						continue
					}
				}
				args := []string{"selftest", "-lang", lang, graphFile}
				if lang == "go" {
					args = append(args[:1], "-kernels", "ref", "-lang", lang, graphFile)
				}
				stdout, _, err := runCLI(args...)
				require.NoError(t, err, lang)
				assert.Contains(t, stdout, "selftest: ok", lang)
			}
		})
	}
}
