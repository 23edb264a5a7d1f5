package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/wrapper/cpp"
)

// Wrappers of two graphs generated into one directory link into one
// program with one copy of the runtime's source, as the README says to
// build them: no symbol is defined twice, no wrapper's object holds the
// runtime's functions (they are compiled once, in the runtime's), and each
// wrapper runs the shared runtime on its own tables.
func TestCppWrappersShareOneRuntime(t *testing.T) {
	testenv.SkipUnlessLong(t, "compiles C++")
	t.Parallel() // builds and runs other programs: overlaps with the other long tests
	compilers := cxxCompilers()
	if len(compilers) == 0 {
		t.Skip("no C++ compiler")
	}
	if _, err := exec.LookPath("nm"); err != nil {
		t.Skip("no nm (binutils)")
	}
	cxx := compilers[0]
	dir := t.TempDir()
	for _, g := range []string{"../../examples/mlp/mlp.json", "../../examples/onnxcnn/cnn.json"} {
		_, _, err := runCLI("gen", "-q", "-lang", "cpp", "-o", dir, g)
		require.NoError(t, err)
	}
	main, err := filepath.Abs("testdata/two_wrappers/main.cc")
	require.NoError(t, err)
	var objects []string
	for _, src := range []string{main, filepath.Join(dir, "mlp.cc"), filepath.Join(dir, "cnn.cc"), filepath.Join(dir, cpp.RuntimeSource)} {
		obj := filepath.Join(dir, strings.TrimSuffix(filepath.Base(src), ".cc")+".o")
		out, err := exec.Command(cxx, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-I", dir, "-c", src, "-o", obj).CombinedOutput()
		require.NoError(t, err, "%s", out)
		objects = append(objects, obj)
	}
	// Code in namespace wrapgen, strong or weak (an inline function a file
	// compiled for itself): the runtime's only. At -O1 both compilers
	// inline what the header keeps inline; the old header-only runtime
	// left 65 such functions in each wrapper.
	runtimeCode := regexp.MustCompile(`(?m)^[0-9a-f]+ [TWtw] wrapgen::.*$`)
	for _, obj := range objects {
		out, err := exec.Command("nm", "-C", "--defined-only", obj).CombinedOutput()
		require.NoError(t, err, "%s", out)
		defs := runtimeCode.FindAllString(string(out), -1)
		if filepath.Base(obj) == "wrapgen_runtime.o" {
			assert.NotEmpty(t, defs, "the runtime's object defines the runtime")
		} else {
			assert.Empty(t, defs, "%s compiles runtime functions of its own", filepath.Base(obj))
		}
	}
	bin := filepath.Join(dir, "two")
	out, err := exec.Command(cxx, append([]string{"-o", bin}, objects...)...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(bin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "mlp: tensor stray is not a param of graph mlp\n"+
		"cnn: 7 problems with the params:\n"+
		"\tparam conv1.weight is missing\n\tparam conv1.bias is missing\n\tparam conv2.weight is missing\n"+
		"\tparam conv2.bias is missing\n\tparam fc.weight is missing\n\tparam fc.bias is missing\n"+
		"\ttensor stray is not a param of graph cnn\n"+
		"no/such.safetensors: cannot open: No such file or directory\n", string(out))
}
