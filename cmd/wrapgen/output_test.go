package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const cnnModel = "../../examples/onnxcnn/cnn.onnx"

// fifo makes a named pipe in a test directory.
func fifo(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	return p
}

// assertKind checks what a path is after a refused command: it must not
// have become a regular file.
func assertKind(t *testing.T, path string, mode fs.FileMode) {
	st, err := os.Lstat(path)
	require.NoError(t, err)
	assert.Equal(t, mode, st.Mode().Type(), "%s changed kind", path)
}

// wrapgen writes only regular files or new paths: a device, a FIFO, a
// directory or a symlink to one given as an output is refused by name
// before any work (the model given here is broken, and that is not what is
// reported), and left as it was.
func TestOutputsMustBeRegularFiles(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.onnx")
	require.NoError(t, os.WriteFile(broken, []byte("not a model"), 0o644))
	pipe := fifo(t)
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(pipe, link))
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"import -o FIFO", []string{"import", "-o", pipe, broken}, "-o " + pipe + ": is a FIFO; wrapgen writes only regular files or new paths"},
		{"import -o symlink to FIFO", []string{"import", "-o", link, broken}, "-o " + link + ": is a FIFO"},
		{"import -weights FIFO", []string{"import", "-weights", pipe, broken}, "-weights " + pipe + ": is a FIFO"},
		{"import -o dir", []string{"import", "-o", sub, broken}, "-o " + sub + ": is a directory"},
		{"import -o /dev/null", []string{"import", "-o", "/dev/null", broken}, "-o /dev/null: is a character device"},
		{"plan -svg FIFO", []string{"plan", "-svg", pipe, broken}, "-svg " + pipe + ": is a FIFO"},
		{"gen -o FIFO", []string{"gen", "-o", pipe, broken}, "-o " + pipe + ": is a FIFO"},
		{"gen -lang cpp -o FIFO", []string{"gen", "-lang", "cpp", "-o", pipe, broken}, "-o " + pipe + ": is not a directory"},
		{"gen -runtime FIFO", []string{"gen", "-o", filepath.Join(dir, "w.go"), "-runtime", pipe, broken}, "-runtime " + pipe + ": is not a directory"},
		{"run -out FIFO", []string{"run", "-out", pipe, broken}, "-out " + pipe + ": is not a directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.args[2] == "/dev/null" {
				if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
					t.Skip("no /dev/null character device")
				}
			}
			_, _, err := runCLI(c.args...)
			assert.ErrorContains(t, err, c.want)
		})
	}
	assertKind(t, pipe, fs.ModeNamedPipe)
	assertKind(t, link, fs.ModeSymlink)
	assertKind(t, sub, fs.ModeDir)
	if st, err := os.Stat("/dev/null"); err == nil {
		assert.NotZero(t, st.Mode()&fs.ModeCharDevice, "/dev/null is still a character device")
	}
}

// An output that is one of the command's inputs (by any name) is refused
// before any work, and the input is left as it was.
func TestOutputsAreNotInputs(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.onnx")
	orig, err := os.ReadFile(cnnModel)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(model, orig, 0o644))
	other := filepath.Join(dir, "other-name.onnx")
	require.NoError(t, os.Link(model, other))
	graphFile := filepath.Join(dir, "g.json")
	_, _, err = runCLI("import", "-q", "-o", graphFile, model)
	require.NoError(t, err)
	graphBytes, err := os.ReadFile(graphFile)
	require.NoError(t, err)
	in := filepath.Join(dir, "in.npy")
	img, err := os.ReadFile("testdata/shape.npy")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in, img, 0o644))

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"import -o MODEL MODEL", []string{"import", "-o", model, model}, "-o " + model + ": is the input " + model + "; wrapgen does not overwrite a file it reads"},
		{"import -weights MODEL MODEL", []string{"import", "-weights", model, model}, "-weights " + model + ": is the input " + model},
		{"import -o LINK MODEL", []string{"import", "-o", other, model}, "-o " + other + ": is the input " + model},
		{"import -o F -weights F", []string{"import", "-o", filepath.Join(dir, "x"), "-weights", filepath.Join(dir, "x"), model}, "-o and -weights are the same file"},
		{"import -params", []string{"import", "-o", in, "-params", in, model}, "-o " + in + ": is the input " + in},
		{"import -value", []string{"import", "-o", in, "-value", "shape=" + in, model}, "-o " + in + ": is the input " + in},
		{"gen -o GRAPH GRAPH", []string{"gen", "-o", graphFile, graphFile}, "-o " + graphFile + ": is the input " + graphFile},
		{"plan -svg GRAPH GRAPH", []string{"plan", "-svg", graphFile, graphFile}, "-svg " + graphFile + ": is the input"},
		{"run -out DIR -in DIR/output_0.npy", []string{"run", "-in", filepath.Join(dir, "output_0.npy"), "-out", dir, model}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.want == "" {
				// run's outputs are known once the graph is read, and
				// checked before it runs.
				require.NoError(t, os.WriteFile(filepath.Join(dir, "output_0.npy"), img, 0o644))
				c.want = "-out " + filepath.Join(dir, "output_0.npy") + ": is the input"
			}
			_, _, err := runCLI(c.args...)
			assert.ErrorContains(t, err, c.want)
		})
	}
	have, err := os.ReadFile(model)
	require.NoError(t, err)
	assert.Equal(t, orig, have, "the model is untouched")
	have, err = os.ReadFile(graphFile)
	require.NoError(t, err)
	assert.Equal(t, graphBytes, have, "the graph is untouched")
	have, err = os.ReadFile(in)
	require.NoError(t, err)
	assert.Equal(t, img, have)
	assert.NoFileExists(t, filepath.Join(dir, "x"))
}

// A command writing several files writes all or none: when a later
// output's path is taken (here by a directory), the earlier outputs keep
// their old contents.
func TestMultiFileOutputsAllOrNothing(t *testing.T) {
	precious := []byte("precious")
	for _, c := range []struct {
		name  string
		args  func(dir string) []string
		old   []string // files that exist before, relative to dir
		taken string   // a later output's path, taken by a directory
	}{
		{"run -out", func(dir string) []string {
			return []string{"run", "-q", "-out", dir, "../../examples/tinybert/tinybert.onnx"}
		},
			[]string{"output_0.npy"}, "output_1.npy"},
		{"gen -lang cpp", func(dir string) []string {
			return []string{"gen", "-q", "-lang", "cpp", "-o", dir, "../../examples/cppmlp/mlp.json"}
		},
			[]string{"mlp.h", "mlp.cc"}, "wrapgen_runtime.h"},
		{"gen -kernels ref", func(dir string) []string {
			return []string{"gen", "-q", "-kernels", "ref", "-package", "m", "-runtime-import", "example.com/m/wgrt", "-o", filepath.Join(dir, "w.go"), cnnModel}
		}, []string{"w.go", "wgrt/alloc.go"}, "wgref/doc.go"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range c.old {
				require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), precious, 0o644))
			}
			require.NoError(t, os.MkdirAll(filepath.Join(dir, c.taken), 0o755))
			_, _, err := runCLI(c.args(dir)...)
			assert.ErrorContains(t, err, filepath.Join(dir, c.taken)+": is a directory")
			for _, f := range c.old {
				have, err := os.ReadFile(filepath.Join(dir, f))
				require.NoError(t, err)
				assert.Equal(t, string(precious), string(have), "%s was replaced by a failed command", f)
			}
			leftovers, _ := filepath.Glob(filepath.Join(dir, "*", ".*wrapgen-*"))
			top, _ := filepath.Glob(filepath.Join(dir, ".*wrapgen-*"))
			assert.Empty(t, append(leftovers, top...), "no temporary files left behind")
		})
	}
}

// When a rename fails after others succeeded (a target taken between the
// check and the rename), the targets already replaced are put back.
func TestRenameAllUndoes(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	require.NoError(t, os.WriteFile(a, []byte("old a"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(c, "full"), 0o755)) // rename over a non-empty directory fails
	files := []outFile{{a, []byte("new a")}, {b, []byte("new b")}, {c, []byte("new c")}}
	var temps []string
	for _, f := range files {
		tmp := filepath.Join(dir, "."+filepath.Base(f.path)+".wrapgen-test")
		require.NoError(t, os.WriteFile(tmp, f.content, 0o644))
		temps = append(temps, tmp)
	}
	err := renameAll(files, temps)
	assert.ErrorContains(t, err, "writing "+c)
	have, err := os.ReadFile(a)
	require.NoError(t, err)
	assert.Equal(t, "old a", string(have))
	assert.NoFileExists(t, b, "a new file of a failed transaction is removed")
	assert.DirExists(t, filepath.Join(c, "full"))
	left, _ := filepath.Glob(filepath.Join(dir, "*.old"))
	assert.Empty(t, left, "the kept links are gone")
}
