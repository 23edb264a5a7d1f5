package synth

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
)

func TestSyntheticGraphsAreValid(t *testing.T) {
	for _, k := range []Kind{Transformer, CNN} {
		for _, n := range []int{10, 1000} {
			data, err := Graph(k, n)
			require.NoError(t, err)
			g, err := graph.Parse(string(k)+".json", data)
			require.NoError(t, err)
			count := 0
			graph.Walk(g.Ops, func(*graph.Op, []*graph.Op) { count++ })
			assert.GreaterOrEqual(t, count, n)
			assert.Less(t, count, n+20)
		}
	}
	_, err := Graph("rnn", 5)
	require.Error(t, err)
}
