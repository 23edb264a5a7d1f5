package testenv

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// layers ranks wrapgen's packages (docs/layout.md): a package may import
// only packages of a lower rank, so nothing reaches up the pipeline and
// there can be no cycle. A new package must be given its place here.
var layers = map[string]int{
	"graph/expr":                       0,
	"wrapper/golang/vendored/wgrt":     0,
	"internal/quote":                   0,
	"internal/testenv":                 0,
	"graph":                            1,
	"wrapper/golang/vendored/wgref":    1,
	"wrapper/golang/vendored/sentinel": 1,
	"graph/onnx":                       2,
	"graph/fuse":                       2,
	"internal/ident":                   2,
	"internal/synth":                   2,
	"internal/fuzzdiff":                2,
	"internal/refscratch":              2,
	"plan":                             3,
	"plan/report":                      4,
	"wrapper/emit":                     4,
	"templates":                        5,
	"internal/interp":                  5,
	"internal/fold":                    5,
	"internal/onnxtest":                6,
	"internal/cppref":                  6,
	"wrapper/golang":                   6,
	"wrapper/cpp":                      6,
	"cmd/wrapgen":                      9,
	"golden":                           9, // its tests only
}

func TestPackagesImportOnlyLowerLayers(t *testing.T) {
	const module = "github.com/wrapgen/wrapgen/"
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	seen := 0
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg := strings.TrimPrefix(fields[0], module)
		if strings.HasPrefix(pkg, "examples/") || strings.HasPrefix(pkg, ".ci/") {
			continue // users of wrapgen, not layers of it
		}
		rank, ok := layers[pkg]
		if !assert.True(t, ok, "package %s has no layer in layering_test.go (and docs/layout.md)", pkg) {
			continue
		}
		seen++
		for _, imp := range fields[1:] {
			dep, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			assert.Less(t, layers[dep], rank, "%s (layer %d) imports %s (layer %d): imports go down the layers only", pkg, rank, dep, layers[dep])
		}
	}
	require.NoError(t, sc.Err())
	require.Positive(t, seen)
}
