package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlaceIsPure: every strategy returns its placement and leaves the
// request's buffers as they were; Make applies the one kept.
func TestPlaceIsPure(t *testing.T) {
	g := parse(t, aliasGraph)
	prog, err := lower(g, g.Hints(), g.Hints(), true)
	require.NoError(t, err)
	for _, name := range Strategies() {
		s, err := strategyByName(name)
		require.NoError(t, err)
		req := &request{buffers: prog.buffers, mode: PoolIntermediates, align: DefaultAlign, bounds: g.Bounds(), hints: g.Hints()}
		placed, err := s.place(req)
		require.NoError(t, err, name)
		require.NotNil(t, placed, name)
		for _, b := range prog.buffers {
			assert.Nil(t, b.Pool, "%s: buffer %s was written by place", name, b.Owner().Name)
			assert.NotNil(t, placed.pool[b.ID], "%s: buffer %s is not placed", name, b.Owner().Name)
		}
	}
}
