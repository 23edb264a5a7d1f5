package onnxcnn

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/onnx"
	"github.com/wrapgen/wrapgen/internal/ident"
	"github.com/wrapgen/wrapgen/internal/testenv"
)

const nodeTestDir = "/usr/share/libonnx-testdata/data/node"

// nodeTests are run through import → generated Go wrapper → Dispatch, and
// compared with their output_<i>.pb. fixed names inputs that must be known
// at import time (they are taken from the test's input_<i>.pb).
var nodeTests = []struct {
	name  string
	fixed map[string]int
}{
	{"test_basic_conv_with_padding", nil},
	{"test_conv_with_strides_padding", nil},
	{"test_gemm_all_attributes", nil},
	{"test_matmul_3d", nil},
	{"test_relu", nil},
	{"test_add_bcast", nil},
	{"test_maxpool_2d_pads", nil},
	{"test_softmax_axis_0", nil},
	{"test_concat_2d_axis_1", nil},
	{"test_reshape_reordered_all_dims", map[string]int{"shape": 1}},
	{"test_batchnorm_example", nil},
}

func TestNodeTestsThroughWrapper(t *testing.T) {
	if _, err := os.Stat(nodeTestDir); err != nil {
		t.Skipf("no ONNX node tests in %s (install Debian's libonnx-testdata)", nodeTestDir)
	}
	testenv.SkipUnlessLong(t, "builds a program from eleven generated wrappers")
	work, err := os.MkdirTemp(".", "_nodetests-") // "_": out of ./..., so a concurrent go list never sees it
	require.NoError(t, err)
	defer os.RemoveAll(work)
	wrapgen := filepath.Join(work, "wrapgen")
	build := exec.Command("go", "build", "-o", wrapgen, "github.com/wrapgen/wrapgen/cmd/wrapgen")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	var imports, body strings.Builder
	for i, nt := range nodeTests {
		dir := filepath.Join(nodeTestDir, nt.name)
		data, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
		require.NoError(t, err)
		opts := onnx.Options{Values: map[string]onnx.Weight{}}
		for name, idx := range nt.fixed {
			pb, err := os.ReadFile(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("input_%d.pb", idx)))
			require.NoError(t, err)
			opts.Values[name], err = onnx.DecodeTensor(pb)
			require.NoError(t, err)
		}
		res, err := onnx.Import(nt.name+".onnx", data, opts)
		require.NoError(t, err, nt.name)
		g, err := graph.Parse(nt.name+".json", res.JSON)
		require.NoError(t, err)
		pkg := fmt.Sprintf("n%d", i)
		require.NoError(t, os.MkdirAll(filepath.Join(work, pkg), 0o755))
		graphFile := filepath.Join(work, pkg, "graph.json")
		require.NoError(t, os.WriteFile(graphFile, res.JSON, 0o644))
		gen := exec.Command(wrapgen, "gen", "-lang", "go", "-package", pkg, "-runtime", "wgrt",
			"-runtime-import", "github.com/wrapgen/wrapgen/examples/onnxcnn/wgrt",
			"-o", filepath.Join(work, pkg, "wrapper.go"), graphFile)
		out, err := gen.CombinedOutput()
		require.NoError(t, err, "%s", out)

		fmt.Fprintf(&imports, "\t%q\n", "github.com/wrapgen/wrapgen/examples/onnxcnn/"+filepath.Base(work)+"/"+pkg)
		fmt.Fprintf(&body, "\t{\n\t\tin := &%s.Inputs{}\n", pkg)
		for _, tn := range g.Inputs {
			idx := inputIndex(t, data, tn.Name)
			id, _ := ident.Camel(tn.Name)
			fmt.Fprintf(&body, "\t\tin.%s = load(%q)\n", id, filepath.Join(dir, "test_data_set_0", fmt.Sprintf("input_%d.pb", idx)))
		}
		fmt.Fprintf(&body, "\t\tout, err := %s.Run(%s.KernelsFunc(onnxcnn.Dispatch), nil, in)\n\t\tcheck(err)\n", pkg, pkg)
		for k, tn := range g.Outputs {
			id, _ := ident.Camel(tn.Name)
			fmt.Fprintf(&body, "\t\tcompare(%q, out.%s, %q)\n", nt.name, id, filepath.Join(dir, "test_data_set_0", fmt.Sprintf("output_%d.pb", k)))
		}
		body.WriteString("\t}\n")
	}
	require.NoError(t, os.MkdirAll(filepath.Join(work, "main"), 0o755))
	main := fmt.Sprintf(nodeTestMain, imports.String(), body.String())
	require.NoError(t, os.WriteFile(filepath.Join(work, "main", "main.go"), []byte(main), 0o644))
	run := exec.Command("go", "run", "./"+filepath.Join(work, "main"))
	out, err = run.CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, len(nodeTests))
	for _, line := range lines {
		f := strings.Fields(line)
		require.Len(t, f, 2, line)
		e, err := strconv.ParseFloat(f[1], 64)
		require.NoError(t, err)
		t.Logf("%-34s max abs error %.3g", f[0], e)
		require.Less(t, e, 1e-5, f[0])
	}
}

// inputIndex is the position of a graph input in the model, which names
// its input_<i>.pb.
func inputIndex(t *testing.T, model []byte, name string) int {
	res, err := onnx.InputNames(model)
	require.NoError(t, err)
	for i, n := range res {
		if n == name {
			return i
		}
	}
	t.Fatalf("input %q not in the model", name)
	return -1
}

const nodeTestMain = `package main

import (
	"fmt"
	"math"
	"os"

	"github.com/wrapgen/wrapgen/examples/onnxcnn"
	"github.com/wrapgen/wrapgen/examples/onnxcnn/wgrt"
	"github.com/wrapgen/wrapgen/graph/onnx"
%s)

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func load(path string) wgrt.Tensor {
	data, err := os.ReadFile(path)
	check(err)
	w, err := onnx.DecodeTensor(data)
	check(err)
	if w.DType != "f32" {
		check(fmt.Errorf("%%s: dtype %%s", path, w.DType))
	}
	shape := make([]int, len(w.Shape))
	for i, s := range w.Shape {
		shape[i] = int(s)
	}
	t := wgrt.New(wgrt.F32, shape...)
	copy(t.Data, w.Data)
	return t
}

func compare(name string, got wgrt.Tensor, path string) {
	want := load(path)
	if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
		check(fmt.Errorf("%%s: shape %%v, want %%v", name, got.Shape, want.Shape))
	}
	g, w := got.Float32s(), want.Float32s()
	e := 0.0
	for i := range want.NumElements() {
		e = math.Max(e, math.Abs(float64(g[i]-w[i])))
	}
	fmt.Println(name, e)
}

func main() {
%s}
`
