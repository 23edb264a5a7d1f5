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
	prog, err := Lower(g, g.Hints(), true)
	require.NoError(t, err)
	for _, name := range Strategies() {
		s, err := StrategyByName(name)
		require.NoError(t, err)
		req := &Request{Buffers: prog.Buffers, Mode: PoolIntermediates, Align: DefaultAlign, Bounds: g.Bounds(), Hints: g.Hints()}
		placed, err := s.Place(req)
		require.NoError(t, err, name)
		require.NotNil(t, placed, name)
		for _, b := range prog.Buffers {
			assert.Nil(t, b.Pool, "%s: buffer %s was written by Place", name, b.Owner().Name)
			pool, _ := placed.Offset(b)
			assert.NotNil(t, pool, "%s: buffer %s is not placed", name, b.Owner().Name)
		}
	}
}
