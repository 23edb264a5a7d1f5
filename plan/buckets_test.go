package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/graph/synth"
)

// storages lists each buffer's tensors by name.
func storages(p *Plan) [][]string {
	var out [][]string
	for _, b := range p.Buffers {
		var names []string
		for _, t := range b.Tensors {
			names = append(names, t.Name)
		}
		out = append(out, names)
	}
	return out
}

// Buckets of random graphs: they cover the symbols' ranges exactly (every
// value of small ranges falls in exactly one), each bucket's plan is made
// and verified over its own ranges with hints inside them, every bucket
// has the same storages (placed differently), and the caller's graph is
// left as it was.
func TestBucketsCoverRanges(t *testing.T) {
	split := 0
	for seed := uint64(0); seed < 24; seed++ {
		g, err := graph.Parse("random.json", synth.Random(seed))
		require.NoError(t, err)
		var given []*graph.Symbol
		before := map[string]graph.Symbol{}
		for _, s := range g.Symbols {
			before[s.Name] = *s
			if !s.RunTime() {
				given = append(given, s)
			}
		}
		bs, err := MakeBuckets(g, Options{}, 1.0, 6)
		require.NoError(t, err, "seed %d", seed)
		require.NotEmpty(t, bs)
		if len(bs) > 1 {
			split++
		}
		for _, s := range g.Symbols {
			assert.Equal(t, before[s.Name], *s, "seed %d: MakeBuckets changed symbol %s", seed, s.Name)
		}
		for _, b := range bs {
			require.Len(t, b.Ranges, len(given))
			for _, r := range b.Ranges {
				assert.True(t, inRange(b.Plan.Hints[r.Name], r), "seed %d: bucket %s planned at %v", seed, RangesText(b.Ranges), b.Plan.Hints)
			}
			assert.GreaterOrEqual(t, b.Range.Worst, 1.0)
			assert.Equal(t, storages(bs[0].Plan), storages(b.Plan), "seed %d: bucket %s has storages of its own", seed, RangesText(b.Ranges))
		}
		// Every point of the symbols' ranges (up to 40 each) is in one bucket.
		env := expr.Env{}
		var walk func(i int)
		walk = func(i int) {
			if i == len(given) {
				n := 0
				for _, b := range bs {
					if PickBucket([]*Bucket{b}, env) == 0 {
						n++
					}
				}
				assert.Equal(t, 1, n, "seed %d: %s is in %d buckets", seed, EnvText(env), n)
				return
			}
			s := given[i]
			hi := s.Min + 40
			if s.HasMax {
				hi = min(hi, s.Max)
			}
			for v := s.Min; v <= hi; v++ {
				env[s.Name] = v
				walk(i + 1)
			}
		}
		if len(given) <= 2 {
			walk(0)
		}
	}
	assert.Greater(t, split, 3, "too few graphs were split into buckets for the test to mean something")
}
