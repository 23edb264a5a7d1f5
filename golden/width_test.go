package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/cpp"
	"github.com/wrapgen/wrapgen/wrapper/emit"
	"github.com/wrapgen/wrapgen/wrapper/golang"
)

// nameAllowance is how much of one quoted graph-derived name a line may
// hold before the name alone is to blame for its length.
const nameAllowance = 40

// overLong reports a line wider than emit.LineLimit (a tab taking four
// columns) once every quoted string in it is cut to nameAllowance
// characters: what wrapgen adds never makes a line too long; only a long
// graph-derived name, which no layout can shorten, may.
func overLong(line string) bool {
	if emit.Columns(line) <= emit.LineLimit {
		return false
	}
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		if line[i] != '"' {
			b.WriteByte(line[i])
			continue
		}
		j := i + 1
		for j < len(line) && line[j] != '"' {
			if line[j] == '\\' {
				j++
			}
			j++
		}
		q := line[i:min(j+1, len(line))]
		if len(q) > nameAllowance {
			q = q[:nameAllowance-1] + `"`
		}
		b.WriteString(q)
		i = j
	}
	return emit.Columns(b.String()) > emit.LineLimit
}

func TestOverLongBlamesOnlyWrapgen(t *testing.T) {
	name := `"` + strings.Repeat("n", 300) + `"`
	assert.False(t, overLong("\t\t"+name+", // "+name), "long names alone")
	assert.True(t, overLong("\t"+strings.Repeat("x, ", 60)), "wrapgen's own text")
	assert.True(t, overLong(name+strings.Repeat(", 1", 60)), "a long name does not excuse the rest")
}

// widthSources are the graphs whose generated code the width test reads,
// beyond the golden ones: every shipped example.
var widthSources = []string{
	"../examples/onnxcnn/cnn.json",
	"../examples/tinybert/tinybert.json",
	"../examples/resnet18/resnet18.json",
}

// No generated line, Go or C++, is over emit.LineLimit but for a long
// graph-derived name: for the golden graphs and the examples, freshly
// generated (the Go wrapper with and without reference kernels), and the
// wrappers the examples ship.
func TestGeneratedLinesFitTheWidth(t *testing.T) {
	check := func(t *testing.T, file string, content []byte) {
		for i, line := range strings.Split(string(content), "\n") {
			if overLong(line) {
				t.Errorf("%s:%d is %d columns (limit %d): %.200s", file, i+1, emit.Columns(line), emit.LineLimit, line)
			}
		}
	}
	for _, src := range append(append([]string{}, sources...), widthSources...) {
		name := strings.TrimSuffix(filepath.Base(src), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(src)
			require.NoError(t, err)
			g, err := graph.Parse(src, data)
			require.NoError(t, err)
			p, err := plan.Make(g, plan.Options{})
			require.NoError(t, err)
			for _, ref := range []string{"", "example.com/wrapper/wgref"} {
				files, err := golang.Generate(p, golang.Options{Package: "wrapper", RuntimeImport: "example.com/wrapper/wgrt", RefKernelsImport: ref})
				if ref != "" && err != nil {
					continue // a kernel the reference kernels lack
				}
				require.NoError(t, err)
				for _, f := range files {
					check(t, fmt.Sprintf("%s (ref %q) %s", name, ref, f.Path), f.Content)
				}
			}
			files, err := cpp.Generate(p, cpp.Options{})
			require.NoError(t, err)
			for _, f := range append(files, cpp.Runtime()...) {
				check(t, name+" cpp/"+f.Path, f.Content)
			}
		})
	}
	shipped, err := filepath.Glob("../examples/*/*_wrapper.go")
	require.NoError(t, err)
	more, err := filepath.Glob("../examples/cppmlp/gen/*")
	require.NoError(t, err)
	require.NotEmpty(t, shipped)
	for _, path := range append(shipped, more...) {
		content, err := os.ReadFile(path)
		require.NoError(t, err)
		check(t, path, content)
	}
}

// The tinybert example with reference kernels stays small enough to read.
func TestTinybertWrapperSize(t *testing.T) {
	info, err := os.Stat("../examples/tinybert/tinybert_wrapper.go")
	require.NoError(t, err)
	assert.LessOrEqual(t, info.Size(), int64(100_000))
}
