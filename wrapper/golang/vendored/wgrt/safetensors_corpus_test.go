package wgrt

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"

	"github.com/wrapgen/wrapgen/graph/onnx"
)

// corpusDir is the safetensors corpus both runtimes are held to: files,
// manifest.json with what each must read as, the C++ driver load.cc.
const corpusDir = "../../../testdata/safetensors"

// safetensorsNames names the dtypes as a safetensors header does.
var safetensorsNames = func() map[DType]string {
	m := map[DType]string{}
	for name, d := range safetensorsDTypes {
		m[d] = name
	}
	return m
}()

// describeSafetensors is what the corpus manifest holds for a file: "ok"
// and a line a tensor by name, or "error: " and the message after name.
func describeSafetensors(t *testing.T, name string, data []byte) string {
	ts, err := ParseSafetensors(name, data)
	if err != nil {
		msg, ok := strings.CutPrefix(err.Error(), name+": ")
		require.True(t, ok, "%s: the message names the file: %v", name, err)
		return "error: " + msg + "\n"
	}
	var b strings.Builder
	b.WriteString("ok\n")
	for _, n := range sortedKeys(ts) {
		tn := ts[n]
		shape := make([]int64, len(tn.Shape))
		for i, d := range tn.Shape {
			shape[i] = int64(d)
		}
		h := hex.EncodeToString(tn.Data)
		if h == "" {
			h = "-"
		}
		b.WriteString(quoteName(n) + " " + safetensorsNames[tn.DType] + " " + dimsText(shape) + " " + h + "\n")
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func readCorpusManifest(t *testing.T) map[string]string {
	data, err := os.ReadFile(filepath.Join(corpusDir, "manifest.json"))
	require.NoError(t, err)
	var manifest map[string]string
	require.NoError(t, json.Unmarshal(data, &manifest))
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.safetensors"))
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	require.ElementsMatch(t, sortedKeys(manifest), names, "every corpus file has a verdict in manifest.json and the other way round")
	return manifest
}

// TestSafetensorsCorpus reads every file of the shared corpus: each is
// loaded or refused exactly as manifest.json says (written by hand from
// docs/safetensors.md), message and all.
func TestSafetensorsCorpus(t *testing.T) {
	manifest := readCorpusManifest(t)
	for _, name := range sortedKeys(manifest) {
		data, err := os.ReadFile(filepath.Join(corpusDir, name))
		require.NoError(t, err)
		assert.Equal(t, manifest[name], describeSafetensors(t, name, data), name)
	}
}

// TestSafetensorsCorpusCpp builds load.cc against the C++ runtime with
// every compiler installed, under ASan and UBSan, and runs it over the
// corpus, over what `import -weights` writes for the example models and
// over what FuzzSafetensors found: the C++ runtime must load and refuse
// exactly what this package does, with the same messages.
func TestSafetensorsCorpusCpp(t *testing.T) {
	testenv.SkipUnlessLong(t, "compiles C++")
	var compilers []string
	for _, c := range []string{"g++", "clang++"} {
		if _, err := exec.LookPath(c); err == nil {
			compilers = append(compilers, c)
		}
	}
	if len(compilers) == 0 {
		t.Skip("no g++ or clang++ installed: the C++ safetensors reader is not compared")
	}
	manifest := readCorpusManifest(t)
	dir := t.TempDir()
	want := map[string]string{}
	var files []string
	for _, name := range sortedKeys(manifest) {
		path := filepath.Join(corpusDir, name)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		want[path] = describeSafetensors(t, path, data)
		require.Equal(t, manifest[name], want[path], name)
		files = append(files, path)
	}
	// What `wrapgen import -weights` writes for the example models.
	for _, model := range []string{"../../../../examples/onnxcnn/cnn.onnx", "../../../../examples/tinybert/tinybert.onnx"} {
		_, res, err := onnx.Load(model, onnx.Options{})
		require.NoError(t, err)
		data, err := onnx.Safetensors(res.Weights)
		require.NoError(t, err)
		path := filepath.Join(dir, filepath.Base(model)+".safetensors")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		want[path] = describeSafetensors(t, path, data)
		require.True(t, strings.HasPrefix(want[path], "ok\n"), "%s: %s", model, want[path])
		require.Equal(t, len(res.Weights)+1, strings.Count(want[path], "\n"), model)
		files = append(files, path)
	}
	fuzzDirs := []string{filepath.Join("testdata", "fuzz", "FuzzSafetensors")}
	if cache, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		fuzzDirs = append(fuzzDirs, filepath.Join(strings.TrimSpace(string(cache)), "fuzz", "github.com", "wrapgen", "wrapgen", "wrapper", "golang", "wgrt", "FuzzSafetensors"))
	}
	for i, data := range fuzzCorpus(t, fuzzDirs...) {
		path := filepath.Join(dir, "fuzz"+strconv.Itoa(i)+".safetensors")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		want[path] = describeSafetensors(t, path, data)
		files = append(files, path)
	}
	t.Logf("%d files, %d of them from fuzzing", len(files), len(files)-len(manifest)-2)
	runtimeDir, err := filepath.Abs("../../../../templates/runtime")
	require.NoError(t, err)
	for _, cxx := range compilers {
		t.Run(cxx, func(t *testing.T) {
			bin := filepath.Join(dir, "load-"+cxx)
			args := []string{"-std=c++17", "-O1", "-g", "-Wall", "-Wextra", "-Wshadow", "-Wconversion", "-Werror",
				"-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-I", runtimeDir, "-o", bin, filepath.Join(corpusDir, "load.cc"), filepath.Join(runtimeDir, "wrapgen_runtime.cc")}
			out, err := exec.Command(cxx, args...).CombinedOutput()
			require.NoError(t, err, "%s %s:\n%s", cxx, strings.Join(args, " "), out)
			cmd := exec.Command(bin, files...)
			cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err = cmd.Output()
			require.NoError(t, err, "%s", stderr.String())
			got := map[string]string{}
			for _, part := range strings.Split(string(out), "== ")[1:] {
				path, desc, _ := strings.Cut(part, "\n")
				got[path] = desc
			}
			for _, path := range files {
				assert.Equal(t, want[path], got[path], "%s read by the C++ runtime (%s)", path, cxx)
			}
		})
	}
}

// fuzzCorpus is the inputs go test -fuzz saved in dirs, decoded: the
// failures it found (kept as regression tests in testdata) and, when this
// machine has fuzzed, the inputs it found interesting (in the build cache).
func fuzzCorpus(t *testing.T, dirs ...string) [][]byte {
	var files []string
	for _, dir := range dirs {
		more, err := filepath.Glob(filepath.Join(dir, "*"))
		require.NoError(t, err)
		files = append(files, more...)
	}
	var out [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		require.Len(t, lines, 2, "%s: one []byte value", f)
		q, ok := strings.CutPrefix(lines[1], "[]byte(")
		require.True(t, ok, "%s: one []byte value", f)
		s, err := strconv.Unquote(strings.TrimSuffix(q, ")"))
		require.NoError(t, err, f)
		out = append(out, []byte(s))
	}
	return out
}

// FuzzSafetensors feeds the reader mutations of the shared corpus: it
// never panics, and what it accepts is JSON encoding/json reads too, with
// the same tensors, whose bytes tile the data section.
func FuzzSafetensors(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.safetensors"))
	require.NoError(f, err)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := ParseSafetensors("f.safetensors", data)
		if err != nil {
			assert.True(t, strings.HasPrefix(err.Error(), "f.safetensors: "), "%v", err)
			return
		}
		n := binary.LittleEndian.Uint64(data)
		var header map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(data[8:8+n], &header), "an accepted header is JSON")
		delete(header, "__metadata__")
		assert.ElementsMatch(t, sortedKeys(header), sortedKeys(ts))
		total := 0
		for name, tn := range ts {
			var e struct {
				DType string `json:"dtype"`
				Shape []int  `json:"shape"`
			}
			require.NoError(t, json.Unmarshal(header[name], &e))
			assert.Equal(t, e.Shape, append([]int{}, tn.Shape...), name)
			assert.Equal(t, e.DType, safetensorsNames[tn.DType], name)
			assert.Len(t, tn.Data, tn.ExtentElements()*tn.DType.Size(), name)
			total += len(tn.Data)
		}
		assert.Equal(t, len(data)-8-int(n), total, "the tensors tile the data section")
	})
}
