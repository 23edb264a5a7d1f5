// Package golden holds expected outputs: one txtar archive per graph with
// the input graph, the plan listing and the generated wrappers. The test
// regenerates each and compares; go test ./golden -update rewrites them.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/plan/report"
	"github.com/wrapgen/wrapgen/wrapper/cpp"
	"github.com/wrapgen/wrapgen/wrapper/golang"
)

var update = flag.Bool("update", false, "rewrite the golden archives from what wrapgen generates now")

// sources are the graphs that get an archive: shipped examples, the real
// graphs (copied from ../shared/graphs), and small graphs for what those lack
// (attrs: constant, empty and symbolic int-list attributes, repeated).
var sources = []string{
	"testdata/attrs.json",
	"../examples/mlp/mlp.json",
	"../examples/rnn/rnn.json",
	"../graph/testdata/resnet18.json",
	"../graph/testdata/mobilenet_v2.json",
	"../graph/testdata/vit_b_16.json",
}

// generate produces every file an archive holds, from the graph's bytes.
func generate(t *testing.T, name string, data []byte) map[string][]byte {
	g, err := graph.Parse(name+".json", data)
	require.NoError(t, err)
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	f, err := p.Figures(p.Hints)
	require.NoError(t, err)
	var listing bytes.Buffer
	require.NoError(t, report.WriteReport(&listing, p, f, report.Options{Lines: true}))
	goFiles, err := golang.Generate(p, golang.Options{Package: "wrapper", RuntimeImport: "example.com/wrapper/wgrt", Source: name + ".json"})
	require.NoError(t, err)
	var svg bytes.Buffer
	require.NoError(t, report.WriteSVG(&svg, p, f, ""))
	files := map[string][]byte{
		"plan.txt": listing.Bytes(),
		"plan.svg": svg.Bytes(),
	}
	for _, f := range goFiles {
		files[f.Path] = f.Content
	}
	cc, err := cpp.Generate(p, cpp.Options{Source: name + ".json"})
	require.NoError(t, err)
	for _, f := range cc {
		files["cpp/"+f.Path] = f.Content
	}
	return files
}

// archiveOrder is the order of generated files in an archive.
func archiveOrder(files map[string][]byte) []string {
	order := []string{"plan.txt", "plan.svg", "wrapper.go"}
	var rest []string
	for name := range files {
		if strings.HasPrefix(name, "cpp/") {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	return append(order, rest...)
}

func TestGolden(t *testing.T) {
	for _, src := range sources {
		name := strings.TrimSuffix(filepath.Base(src), ".json")
		t.Run(name, func(t *testing.T) {
			archive := name + ".txtar"
			source, srcErr := os.ReadFile(src)
			if *update {
				require.NoError(t, srcErr)
				got := generate(t, name, source)
				order := archiveOrder(got)
				ar := &txtar.Archive{Comment: []byte("wrapgen golden case: input graph, plan listing and picture, generated Go and C++.\nRegenerate with: go test ./golden -update\n")}
				ar.Files = append(ar.Files, txtar.File{Name: name + ".json", Data: withNewline(source)})
				for _, file := range order {
					ar.Files = append(ar.Files, txtar.File{Name: file, Data: got[file]})
				}
				require.NoError(t, os.WriteFile(archive, txtar.Format(ar), 0o644))
				return
			}
			ar, err := txtar.ParseFile(archive)
			require.NoError(t, err, "missing golden archive; run go test ./golden -update")
			want := map[string][]byte{}
			for _, f := range ar.Files {
				want[f.Name] = f.Data
			}
			input, ok := want[name+".json"]
			require.True(t, ok, "%s holds no %s.json", archive, name)
			if srcErr == nil {
				if d := firstDiff(withNewline(source), input); d != "" {
					t.Fatalf("%s: the archived graph differs from %s (%s); run go test ./golden -update", name, src, d)
				}
			}
			got := generate(t, name, input)
			again := generate(t, name, input)
			order := archiveOrder(got)
			for file := range want {
				if _, ok := got[file]; !ok && file != name+".json" {
					t.Errorf("%s: the archive holds %s, which wrapgen no longer generates; run go test ./golden -update", name, file)
				}
			}
			for _, file := range order {
				if d := firstDiff(got[file], again[file]); d != "" {
					t.Fatalf("%s: %s differs between two runs on the same input: %s", name, file, d)
				}
				if d := firstDiff(want[file], got[file]); d != "" {
					t.Errorf("%s: %s differs from the golden archive: %s\nIf the change is intended, run go test ./golden -update", name, file, d)
				}
			}
		})
	}
}

// withNewline is data ending in a newline, as txtar stores files.
func withNewline(data []byte) []byte {
	if len(data) > 0 && data[len(data)-1] != '\n' {
		return append(data[:len(data):len(data)], '\n')
	}
	return data
}

// firstDiff describes the first line where want and got differ, or "" when
// they are equal; big files stay readable in a failure.
func firstDiff(want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g || i >= len(wl) || i >= len(gl) {
			return fmt.Sprintf("line %d: want %q, got %q (%d lines vs %d)", i+1, w, g, len(wl), len(gl))
		}
	}
	return "differs"
}
