package graph

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docs/graph-format.md is the contract: its example must be a graph
// wrapgen accepts, and its dtype table and item sizes must be the ones
// wrapgen uses.
func TestGraphFormatDoc(t *testing.T) {
	data, err := os.ReadFile("../docs/graph-format.md")
	require.NoError(t, err)
	doc := string(data)

	example := regexp.MustCompile("(?s)```json\n(\\{.*?\n\\})\n```").FindStringSubmatch(doc)
	require.NotNil(t, example, "the format doc has no example graph")
	g, err := Parse("graph-format.md", []byte(example[1]))
	require.NoError(t, err, "the documented example is refused")
	assert.Equal(t, "mlp", g.Name)
	assert.Equal(t, g.Tensor("h2"), g.Tensor("ht").ViewOf)

	names := make([]string, len(DTypes))
	for i, d := range DTypes {
		names[i] = string(d)
	}
	assert.True(t, strings.Contains(doc, "`"+strings.Join(names, " ")+"`"), "the documented dtypes are wrapgen's, in order")
	for _, size := range []int64{1, 2, 4, 8, 16} {
		var of []string
		for _, d := range DTypes {
			if d.Size() == size {
				of = append(of, string(d))
			}
		}
		row := fmt.Sprintf("| %d | `%s` |", size, strings.Join(of, " "))
		assert.True(t, strings.Contains(doc, row), "the doc has no row %s", row)
	}
	for _, link := range []string{"kernel-traits.md", "onnx.md"} {
		assert.True(t, strings.Contains(doc, "]("+link+")"), "the extensions section links %s", link)
	}
}

// The README's first screen (its first 40 lines) says where the format is.
func TestReadmeLinksGraphFormat(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	lines := strings.SplitN(string(data), "\n", 41)
	first := strings.Join(lines[:min(40, len(lines))], "\n")
	assert.Contains(t, first, "(docs/graph-format.md)")
}
