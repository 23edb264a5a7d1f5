package main

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// .npy files round-trip every dtype they can hold, and strided tensors are
// written in row-major order.
func TestNpyRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, dt := range []wgrt.DType{wgrt.Bool, wgrt.I8, wgrt.U8, wgrt.I16, wgrt.U16, wgrt.I32, wgrt.U32, wgrt.I64, wgrt.U64,
		wgrt.F16, wgrt.F32, wgrt.F64, wgrt.C64, wgrt.C128} {
		x := wgrt.New(dt, 2, 3)
		r.Read(x.Data)
		if dt == wgrt.Bool {
			for i := range x.Data {
				x.Data[i] &= 1
			}
		}
		data, err := writeNpy(x)
		require.NoError(t, err, dt)
		y, err := readNpy("x.npy", data)
		require.NoError(t, err, dt)
		assert.Equal(t, x.DType, y.DType)
		assert.Equal(t, x.Shape, y.Shape)
		assert.Equal(t, x.Data, y.Data, dt.String())
	}
	// A transposed view is written as the values it shows.
	x := wgrt.View([]int32{1, 2, 3, 4, 5, 6}, 2, 3)
	xt := wgrt.Tensor{DType: wgrt.I32, Shape: []int{3, 2}, Strides: []int{1, 3}, Device: "cpu", Data: x.Data}
	data, err := writeNpy(xt)
	require.NoError(t, err)
	y, err := readNpy("t.npy", data)
	require.NoError(t, err)
	assert.Equal(t, []int32{1, 4, 2, 5, 3, 6}, y.Int32s())
}

func TestNpyErrors(t *testing.T) {
	x := wgrt.View([]float32{1, 2}, 2)
	good, err := writeNpy(x)
	require.NoError(t, err)
	for _, c := range []struct {
		data []byte
		want string
	}{
		{[]byte("hello"), "not a .npy file"},
		{bytes.Replace(good, []byte("'<f4'"), []byte("'>f4'"), 1), "big-endian"},
		{bytes.Replace(good, []byte("'<f4'"), []byte("'|O8'"), 1), `dtype "|O8"`},
		{good[:len(good)-2], "bytes of data"},
		// numpy refuses a fortran_order that is not a bool.
		{bytes.Replace(good, []byte("False"), []byte("1    "), 1), "header: fortran_order is 1, not True or False"},
		// numpy takes the last of a repeated key; which was meant is unclear.
		{bytes.Replace(good, []byte("'fortran_order': False,"), []byte("'descr':'<i4',         "), 1), `header: key "descr" is given twice`},
		{bytes.Replace(good, []byte("'fortran_order': False,"), []byte("'fortran_orden': False,"), 1), `header: no "fortran_order" key`},
		{npyWithHeader("{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (2,), }", 16),
			"header: descr is a structured dtype (a record of named fields), which wrapgen does not read"},
		{npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 'x'), }", 8), "header: shape [2 x]: each size is an integer"},
		{npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } junk", 8), "header: unexpected"},
		{npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'unknown': 1}", 8), `header: unknown key "unknown"`},
		{npyWithHeader("{'descr': '<f4\\", 8), "header: unterminated string"},
	} {
		_, err := readNpy("in.npy", c.data)
		require.Error(t, err, c.want)
		assert.Contains(t, err.Error(), "in.npy: ")
		assert.Contains(t, err.Error(), c.want)
	}
}

// npyWithHeader is a version 1.0 .npy file with the given header and n
// zero bytes of data.
func npyWithHeader(header string, n int) []byte {
	header += "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = append(b, byte(len(header)), byte(len(header)>>8))
	return append(append(b, header...), make([]byte, n)...)
}

// A Fortran-order file (written by numpy.save of numpy.asfortranarray:
// testdata/fortran.npy, i32 [2 3 4] holding 100i + 10j + k) is read in its
// element order.
func TestNpyFortranOrder(t *testing.T) {
	data, err := os.ReadFile("testdata/fortran.npy")
	require.NoError(t, err)
	require.Contains(t, string(data[:80]), "'fortran_order': True")
	x, err := readNpy("fortran.npy", data)
	require.NoError(t, err)
	assert.Equal(t, []int{2, 3, 4}, x.Shape)
	var want []int32
	for i := 0; i < 2; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 4; k++ {
				want = append(want, int32(100*i+10*j+k))
			}
		}
	}
	assert.Equal(t, want, x.Int32s())
}

// run on a model exported with its weights: outputs written as .npy, the
// same numbers with and without the planner's in-place reuse, timings
// printed with -repeat.
func TestRunWritesOutputsAndAgreesWithoutAliasing(t *testing.T) {
	for _, model := range []string{"../../examples/onnxcnn/cnn.onnx", "../../examples/tinybert/tinybert.onnx"} {
		dir := t.TempDir()
		_, _, err := runCLI("run", "-q", "-out", filepath.Join(dir, "alias"), model)
		require.NoError(t, err, model)
		_, _, err = runCLI("run", "-q", "-alias=false", "-out", filepath.Join(dir, "noalias"), model)
		require.NoError(t, err, model)
		files, err := filepath.Glob(filepath.Join(dir, "alias", "output_*.npy"))
		require.NoError(t, err)
		require.NotEmpty(t, files)
		for _, f := range files {
			a, err := os.ReadFile(f)
			require.NoError(t, err)
			b, err := os.ReadFile(filepath.Join(dir, "noalias", filepath.Base(f)))
			require.NoError(t, err)
			assert.Equal(t, a, b, "%s %s: in-place reuse changed the numbers", model, filepath.Base(f))
		}
	}
	out, _, err := runCLI("run", "-q", "-repeat", "3", "-at", "batch=2", "../../examples/onnxcnn/cnn.onnx")
	require.NoError(t, err)
	assert.Regexp(t, `probs: f32 \[2 10\] \[`, out)
	assert.Regexp(t, `time per call: min [0-9.]+ ms, median [0-9.]+ ms \(3 calls, [0-9]+ threads?\)`, out)
	assert.Regexp(t, `memory: pools' peak \d+ bytes at batch=2 \((as planned|placed at these sizes; as planned \d+); lower bound \d+\); params 6504 bytes; packed weights \d+ bytes`, out)

	out, _, err = runCLI("run", "-q", "-repeat", "3", "-op-times", "2", "../../examples/onnxcnn/cnn.onnx")
	require.NoError(t, err)
	assert.Regexp(t, `kernels: [0-9.]+ ms per call \(mean of 2 calls\); the 2 longest ops, ms and share:\n( +[0-9.]+ +[0-9.]+%  ops\[\d+\] \w+ -> \S+ \[[0-9,]+\]\n){2}by kernel`, out)
	assert.Regexp(t, `\n +[0-9.]+ +[0-9.]+%  FusedConv \(2 ops\)\n`, out)
}

// run reads inputs from .npy and .pb files, and says clearly what is wrong
// with them.
func TestRunInputs(t *testing.T) {
	dir := t.TempDir()
	img := wgrt.New(wgrt.F32, 1, 1, 16, 16)
	data, err := writeNpy(img)
	require.NoError(t, err)
	in := filepath.Join(dir, "image.npy")
	require.NoError(t, os.WriteFile(in, data, 0o644))
	out, _, err := runCLI("run", "-in", in, "../../examples/onnxcnn/cnn.onnx")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "probs: f32 [1 10]"), out)

	_, _, err = runCLI("run", "-in", in, "-in", in, "../../examples/onnxcnn/cnn.onnx")
	assert.Equal(t, exitUsage, exitCode(err))
	assert.ErrorContains(t, err, "has 1 data inputs (image), got 2 -in files")

	ids, err := writeNpy(wgrt.New(wgrt.I64, 1, 16))
	require.NoError(t, err)
	bad := filepath.Join(dir, "ids.npy")
	require.NoError(t, os.WriteFile(bad, ids, 0o644))
	_, _, err = runCLI("run", "-in", bad, "../../examples/onnxcnn/cnn.onnx")
	assert.ErrorContains(t, err, `ids.npy: input "image" wants f32, the file holds i64`)

	wrong, err := writeNpy(wgrt.New(wgrt.F32, 1, 2, 16, 16))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bad, wrong, 0o644))
	_, _, err = runCLI("run", "-in", bad, "../../examples/onnxcnn/cnn.onnx")
	assert.ErrorContains(t, err, "input image: shape is [1, 2, 16, 16], want [1, 1, 16, 16]")

	_, _, err = runCLI("run", "-in", filepath.Join(dir, "missing.npy"), "../../examples/onnxcnn/cnn.onnx")
	assert.Equal(t, exitFailure, exitCode(err))

	// A format-v1 graph with params needs them.
	g := filepath.Join(dir, "cnn.json")
	_, _, err = runCLI("import", "-q", "-o", g, "../../examples/onnxcnn/cnn.onnx")
	require.NoError(t, err)
	_, _, err = runCLI("run", g)
	assert.ErrorContains(t, err, "the graph has 6 params: give them with -params FILE.safetensors")
	out, _, err = runCLI("run", "-params", "../../examples/onnxcnn/cnn.safetensors", g)
	require.NoError(t, err)
	assert.Contains(t, out, "probs: f32 [1 10]")
}

// A .pb input whose tensor has a name feeds the input of that name,
// whatever its place among the -in flags; files without a name (.npy, or a
// .pb with none) feed the remaining inputs in the graph's order. Unknown
// and repeated names are refused. testdata/sub.py makes the files.
func TestRunBindsPbInputsByName(t *testing.T) {
	const model = "testdata/sub.onnx" // d = a - b
	for _, c := range []struct {
		name string
		ins  []string
		want string // d, or the error
	}{
		{"in order", []string{"a.pb", "b.pb"}, "d: f32 [2] [9 18]"},
		{"swapped flags", []string{"b.pb", "a.pb"}, "d: f32 [2] [9 18]"},
		{"named and unnamed", []string{"unnamed.pb", "b.pb"}, "d: f32 [2] [99 198]"},
		{"named a then unnamed", []string{"unnamed.pb", "a.pb"}, "d: f32 [2] [-90 -180]"},
		{"a named twice", []string{"a.pb", "a.pb"}, `testdata/a.pb: input "a" is given by testdata/a.pb already`},
		{"raw_data and float_data", []string{"both.pb", "b.pb"}, `testdata/both.pb: tensor "a" has both raw_data and float_data: which holds its values is ambiguous`},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"run"}
			for _, in := range c.ins {
				args = append(args, "-in", filepath.Join("testdata", in))
			}
			out, _, err := runCLI(append(args, model)...)
			if strings.HasPrefix(c.want, "d:") {
				require.NoError(t, err)
				assert.True(t, strings.HasPrefix(out, c.want), "%s", out)
				return
			}
			assert.EqualError(t, err, c.want)
		})
	}
	// A name the graph does not have.
	_, _, err := runCLI("run", "-in", "testdata/a.pb", "-in", "testdata/b.pb", "../../examples/tinybert/tinybert.onnx")
	assert.ErrorContains(t, err, `testdata/a.pb: the tensor is named "a", and the graph has no data input of that name (its data inputs: `)
	// -value checks the name too.
	_, _, err = runCLI("import", "-value", "b=testdata/a.pb", model)
	assert.ErrorContains(t, err, `-value b=testdata/a.pb: the file's tensor is named "a", not "b"`)
}

// The params file given is not what the messages tell the user to give:
// an empty one says it holds nothing, a directory is not "too short".
func TestRunParamsMessages(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "cnn.json")
	_, _, err := runCLI("import", "-q", "-o", g, "../../examples/onnxcnn/cnn.onnx")
	require.NoError(t, err)
	empty := filepath.Join(dir, "empty.safetensors")
	header := "{}      "
	require.NoError(t, os.WriteFile(empty, append([]byte{byte(len(header)), 0, 0, 0, 0, 0, 0, 0}, header...), 0o644))
	_, _, err = runCLI("run", "-params", empty, g)
	assert.EqualError(t, err, g+": the graph has 6 params, and -params "+empty+" holds no tensors")

	_, _, err = runCLI("run", "-params", dir, g)
	assert.EqualError(t, err, "-params "+dir+": is a directory, not a safetensors file")
	_, _, err = runCLI("import", "-params", dir, "../../examples/onnxcnn/cnn.onnx")
	assert.EqualError(t, err, "-params "+dir+": is a directory, not a safetensors file")
	_, _, err = runCLI("run", "-in", dir, "../../examples/onnxcnn/cnn.onnx")
	assert.EqualError(t, err, dir+": is a directory, not an input file")

	// A params file holding the model's own initializers: which one to
	// use is not guessed.
	_, _, err = runCLI("run", "-params", "../../examples/onnxcnn/cnn.safetensors", "../../examples/onnxcnn/cnn.onnx")
	assert.ErrorContains(t, err, `("conv1.weight"): the params file holds a tensor of this name too; wrapgen does not choose between them`)
}
