package synth

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
)

func TestRandomGraphsAreValid(t *testing.T) {
	for seed := uint64(0); seed < 500; seed++ {
		data := Random(seed)
		_, err := graph.Parse("random.json", data)
		require.NoError(t, err, "seed %d:\n%s", seed, data)
		require.Equal(t, data, Random(seed), "seed %d is not deterministic", seed)
	}
}
