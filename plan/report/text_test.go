package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/plan"
)

func planOf(t *testing.T, path string, opts plan.Options) (*plan.Plan, *plan.Figures) {
	t.Helper()
	g, err := graph.Load(path)
	require.NoError(t, err)
	p, err := plan.Make(g, opts)
	require.NoError(t, err)
	f, err := p.Figures(nil)
	require.NoError(t, err)
	return p, f
}

func TestReportMentionsFigures(t *testing.T) {
	p, f := planOf(t, "../../examples/rnn/rnn.json", plan.Options{})
	var sb strings.Builder
	require.NoError(t, WriteReport(&sb, p, f, Options{Lines: true, MemoryMap: true}))
	out := sb.String()
	for _, want := range []string{"lower bound", "peak", "naive", "pool0", "AllocFromPool xp = pool0", "memory map of pool1"} {
		assert.Contains(t, out, want)
	}
}

// The storages the planner joined are drawn with a dashed outline and
// their own class; with aliasing off there are none.
func TestSVGMarksAliasedStorages(t *testing.T) {
	p, f := planOf(t, "../testdata/traits/resnet18.json", plan.Options{})
	var buf strings.Builder
	require.NoError(t, WriteSVG(&buf, p, f, ""))
	require.NotEmpty(t, p.AliasedBuffers())
	assert.Equal(t, len(p.AliasedBuffers()), strings.Count(buf.String(), `class="storage aliased"`))
	off, fOff := planOf(t, "../testdata/traits/resnet18.json", plan.Options{NoAlias: true})
	buf.Reset()
	require.NoError(t, WriteSVG(&buf, off, fOff, ""))
	assert.NotContains(t, buf.String(), "aliased")
}

// The report says which sizes are set at run time, by which op, and the
// bound the storages are planned at.
func TestReportNamesRunTimeSizes(t *testing.T) {
	p, f := planOf(t, "../../cmd/wrapgen/testdata/runtime_sizes/nonzero.json", plan.Options{})
	var sb strings.Builder
	require.NoError(t, WriteReport(&sb, p, f, Options{}))
	assert.Contains(t, sb.String(), "symbols                       k=12, n=4\n")
	assert.Contains(t, sb.String(), "run-time size                 k, set by ops[0], planned at its bound 3*n\n")
}
