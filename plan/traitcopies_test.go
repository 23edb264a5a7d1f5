package plan

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wrapgen/wrapgen/graph"
)

var updateTraits = flag.Bool("update-traits", false, "rewrite testdata/traits from ../shared/graphs")

// pointwiseAliases are the may_alias pairs of the pointwise aten kernels
// (issue 13's list): each output element is computed from the same element
// of these inputs (batch norm and layer norm in inference, softmax from its
// row, which it reads before writing).
var pointwiseAliases = map[string][][2]int{
	"native_batch_norm": {{0, 0}}, "native_layer_norm": {{0, 0}}, "_softmax": {{0, 0}},
	"add_Tensor": {{0, 0}, {0, 1}}, "mul_Tensor": {{0, 0}, {0, 1}}, "sub_Tensor": {{0, 0}, {0, 1}}, "div_Tensor": {{0, 0}, {0, 1}},
	"gelu": {{0, 0}}, "relu": {{0, 0}}, "sigmoid": {{0, 0}}, "hardsigmoid": {{0, 0}}, "silu": {{0, 0}}, "hardswish": {{0, 0}},
	"clone": {{0, 0}}, "masked_fill_Scalar": {{0, 0}},
}

// withTraits returns the graph text with a "kernels" object for the
// pointwise kernels it calls (pairs limited to the inputs every call has).
func withTraits(t *testing.T, src []byte, g *graph.Graph) []byte {
	var entries []string
	for _, k := range g.Kernels() {
		pairs, ok := pointwiseAliases[k.Name]
		if !ok {
			continue
		}
		var ps []string
		for _, p := range pairs {
			if p[1] < k.Inputs {
				ps = append(ps, fmt.Sprintf("[%d, %d]", p[0], p[1]))
			}
		}
		entries = append(entries, fmt.Sprintf("    %q: {\"may_alias\": [%s]}", k.Name, strings.Join(ps, ", ")))
	}
	slices.Sort(entries)
	text := strings.TrimRight(string(src), " \n")
	require.True(t, strings.HasSuffix(text, "}"))
	return []byte(text[:len(text)-1] + ",\n  \"kernels\": {\n" + strings.Join(entries, ",\n") + "\n  }\n}\n")
}

// TestTraitCopies checks that testdata/traits holds each shared graph with
// its pointwise kernels' traits added and nothing else changed (-update-traits
// rewrites them). The copies let tests plan with aliasing in a fresh clone.
func TestTraitCopies(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(sharedGraphs, "*.json"))
	if len(files) == 0 {
		t.Skipf("no graphs in %s to compare the copies with", sharedGraphs)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		g, err := graph.Parse(f, src)
		require.NoError(t, err)
		want := withTraits(t, src, g)
		copyPath := filepath.Join("testdata", "traits", filepath.Base(f))
		if *updateTraits {
			require.NoError(t, os.WriteFile(copyPath, want, 0o644))
		}
		got, err := os.ReadFile(copyPath)
		require.NoError(t, err, "run go test ./plan -run TestTraitCopies -update-traits")
		require.Equal(t, string(want), string(got), "%s is stale: run go test ./plan -run TestTraitCopies -update-traits", copyPath)
	}
}
