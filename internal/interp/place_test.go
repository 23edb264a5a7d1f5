package interp

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/internal/synth"
	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/plan"
)

// On random graphs (two symbols, two devices, loops, views, in-place
// chains), at random points of the symbols' ranges, what a runner holds
// is at least the lower bound and at most the plan's peak, and the
// runtime's figure for the plan's own placement is the planner's: the
// runtime places anew only when that needs less, and its placement was
// checked (no overlap, inside the arena) when it was laid out.
func TestRunTimePlacementBetweenBoundAndPlan(t *testing.T) {
	seeds := uint64(120)
	if !testenv.Long() {
		seeds = 25
	}
	rng := rand.New(rand.NewSource(3))
	placed := 0
	for seed := uint64(0); seed < seeds; seed++ {
		g, err := graph.Parse("random.json", synth.Random(seed))
		require.NoError(t, err)
		p, err := plan.Make(g, plan.Options{})
		require.NoError(t, err, "seed %d", seed)
		m := New(p)
		for range 4 {
			at, env := map[string]int{}, expr.Env{}
			for _, s := range g.Symbols {
				hi := s.Min + 40
				if s.HasMax {
					hi = min(hi, s.Max)
				}
				v := s.Min + rng.Int63n(hi-s.Min+1)
				at[s.Name], env[s.Name] = int(v), v
			}
			fig, err := p.Figures(env)
			require.NoError(t, err)
			require.NoError(t, m.LayoutAt(at), "seed %d at %v", seed, at)
			peak, static := m.PeakBytes()
			// Pools acquired outside a loop hold from there, so the
			// runtime's figure can exceed the planner's, which counts each
			// pool over its storages' steps.
			assert.GreaterOrEqual(t, static, int(fig.PeakBytes), "seed %d at %v: the runtime's figure for the plan's placement", seed, at)
			assert.LessOrEqual(t, peak, static, "seed %d at %v", seed, at)
			assert.GreaterOrEqual(t, peak, int(fig.LoadBytes), "seed %d at %v", seed, at)
			if peak < static {
				placed++
			}
		}
	}
	assert.Positive(t, placed, "some point placed anew")
}
