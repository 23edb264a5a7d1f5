package plan

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/graph/synth"
)

// twoChains is a random graph of two chains of ops, one over n rows and
// one over m (in [1, 256]), of 64 or 128 floats each: where the best
// layout of its storages depends on which of n and m is larger.
func twoChains(seed int64) []byte {
	r := rand.New(rand.NewSource(seed))
	tensors := map[string]string{"x": `["n", 64]`, "y": `["m", 64]`}
	live := map[string][]string{"n": {"x"}, "m": {"y"}}
	var ops []string
	for i := 0; i < 10; i++ {
		s := []string{"n", "m"}[r.Intn(2)]
		name := fmt.Sprintf("t%d", i)
		var narrow []string
		for _, t := range live[s] {
			if strings.HasSuffix(tensors[t], "64]") {
				narrow = append(narrow, t)
			}
		}
		a, b := narrow[r.Intn(len(narrow))], narrow[r.Intn(len(narrow))]
		if r.Intn(2) == 0 {
			ops = append(ops, fmt.Sprintf(`{"kernel": "Concat", "inputs": [%q, %q], "outputs": [%q], "attrs": {"axis": 1}}`, a, a, name))
			tensors[name] = fmt.Sprintf(`[%q, 128]`, s)
		} else {
			ops = append(ops, fmt.Sprintf(`{"kernel": "Add", "inputs": [%q, %q], "outputs": [%q]}`, a, b, name))
			tensors[name] = fmt.Sprintf(`[%q, 64]`, s)
		}
		live[s] = append(live[s], name)
	}
	var ts, outs []string
	for name, shape := range tensors {
		ts = append(ts, fmt.Sprintf(`%q: {"dtype": "f32", "shape": %s}`, name, shape))
	}
	sort.Strings(ts)
	for _, s := range []string{"n", "m"} {
		if last := live[s][len(live[s])-1]; last != "x" && last != "y" {
			outs = append(outs, fmt.Sprintf("%q", last))
		}
	}
	return []byte(fmt.Sprintf(`{"name": "two_chains", "symbols": {"n": {"hint": 16, "min": 1, "max": 256}, "m": {"hint": 16, "min": 1, "max": 256}},
		"tensors": {%s}, "inputs": ["x", "y"], "outputs": [%s], "ops": [%s]}`, strings.Join(ts, ", "), strings.Join(outs, ", "), strings.Join(ops, ", ")))
}

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
// has the same storages (placed differently), buckets lower the worst
// ratio of the whole range's plan (or there is one), and the caller's
// graph is left as it was.
func TestBucketsCoverRanges(t *testing.T) {
	split := 0
	for seed := uint64(0); seed < 48; seed++ {
		data := synth.Random(seed)
		if seed >= 24 {
			data = twoChains(int64(seed))
		}
		g, err := graph.Parse("random.json", data)
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
			single, err := Make(g, Options{})
			require.NoError(t, err)
			whole, err := single.Range()
			require.NoError(t, err)
			assert.Less(t, worstOf(bs), whole.Worst, "seed %d: buckets that do not lower the worst ratio", seed)
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

func loadGraph(t *testing.T, path string) *graph.Graph {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	g, err := graph.Parse(path, data)
	require.NoError(t, err)
	return g
}

// two_chains planned at its hints (n = m = 16) is 1.2x the bound at worst,
// and so is any plan of the whole range: one cut, after m = 7, gives two
// buckets at the bound, placed differently. A graph whose
// plan at other hints does as well as buckets: that plan. nonzero's plan
// at the hints is at the bound everywhere: one bucket, that plan. A target
// the whole range's plan meets: one bucket.
func TestBucketsExact(t *testing.T) {
	describe := func(bs []*Bucket) []string {
		var out []string
		for _, b := range bs {
			out = append(out, fmt.Sprintf("%s at %s: %.4f", RangesText(b.Ranges), EnvText(b.Plan.Hints), b.Range.Worst))
		}
		return out
	}
	g := loadGraph(t, filepath.Join("..", "cmd", "wrapgen", "testdata", "buckets", "two_chains.json"))
	bs, err := MakeBuckets(g, Options{}, 1.10, 8)
	require.NoError(t, err)
	assert.Equal(t, []string{"n in [1, 256], m in [1, 7] at m=1, n=2: 1.0000", "n in [1, 256], m in [8, 256] at m=8, n=16: 1.0000"}, describe(bs))
	// The same again: nothing depends on scheduling.
	again, err := MakeBuckets(g, Options{}, 1.10, 8)
	require.NoError(t, err)
	require.Len(t, again, len(bs))
	for i := range bs {
		assert.Equal(t, bs[i].Ranges, again[i].Ranges)
		assert.Equal(t, bs[i].Plan.Hints, again[i].Plan.Hints)
		assert.Equal(t, storages(bs[i].Plan), storages(again[i].Plan))
	}
	one, err := MakeBuckets(g, Options{}, 2.5, 8)
	require.NoError(t, err)
	assert.Equal(t, []string{"n in [1, 256], m in [1, 256] at m=16, n=16: 1.2000"}, describe(one))

	// The random two-chain graph of seed 4: 1.2x the bound at worst planned
	// at its hints, and at the bound everywhere planned at m=8 (a bucket's
	// hints): that plan alone.
	g, err = graph.Parse("two_chains.json", twoChains(4))
	require.NoError(t, err)
	bs, err = MakeBuckets(g, Options{}, 1.10, 8)
	require.NoError(t, err)
	assert.Equal(t, []string{"n in [1, 256], m in [1, 256] at m=8, n=16: 1.0000"}, describe(bs))

	nonzero := loadGraph(t, filepath.Join("..", "cmd", "wrapgen", "testdata", "runtime_sizes", "nonzero.json"))
	bs, err = MakeBuckets(nonzero, Options{}, 1.10, 8)
	require.NoError(t, err)
	assert.Equal(t, []string{"n in [1, 64] at k=12, n=4: 1.0000"}, describe(bs))
}

// rangeRatios agrees with Range, and excess counts only what is above the
// target.
func TestRangeRatios(t *testing.T) {
	g := loadGraph(t, filepath.Join("..", "cmd", "wrapgen", "testdata", "runtime_sizes", "nonzero.json"))
	p, err := Make(g, Options{})
	require.NoError(t, err)
	ratios, points, fig, all, err := rangeRatios(p)
	require.NoError(t, err)
	want, err := p.Range()
	require.NoError(t, err)
	assert.Equal(t, want, fig)
	assert.Len(t, ratios, all.Points)
	assert.Len(t, points, all.Points)
	assert.GreaterOrEqual(t, all.Points, want.Points)
	assert.GreaterOrEqual(t, all.Worst, want.Worst)
	assert.InDelta(t, math.Log(2/1.5)+math.Log(1.8/1.5), excess([]float64{2, 1.2, 1.5, 1.8}, 1.5), 1e-12)
	assert.Equal(t, 0.0, excess([]float64{1, 1.1}, 1.1))
}

// A plan reused on a narrower range keeps its placement and is verified
// there; its hints move into the range.
func TestReuseBucket(t *testing.T) {
	g := loadGraph(t, filepath.Join("..", "cmd", "wrapgen", "testdata", "runtime_sizes", "nonzero.json"))
	b, err := makeBucket(g, Options{}, []SymbolRange{{Name: "n", Min: 1, Max: 64, HasMax: true}}, nil)
	require.NoError(t, err)
	r, err := reuseBucket(b, g, []SymbolRange{{Name: "n", Min: 10, Max: 20, HasMax: true}})
	require.NoError(t, err)
	assert.Equal(t, int64(10), r.Plan.Hints["n"])
	assert.Equal(t, storages(b.Plan), storages(r.Plan))
	assert.Equal(t, int64(10), r.Plan.Graph.Symbol("n").Min)
	assert.Equal(t, int64(64), b.Plan.Graph.Symbol("n").Max, "the bucket's own plan is left as it was")
}

// A sketch's ratios, evaluated from its placement without expressions,
// are those of a plan placed the same way (search placed by placeCheap,
// or Inductor's planner where its peak at the hints is smaller) and
// evaluated from its expressions.
func TestSketchMatchesPlan(t *testing.T) {
	defer func(w int) { sketchClimbWork = w }(sketchClimbWork)
	sketchClimbWork = climbWork
	same := bestOf{candidates: []bestCandidate{{cheapGreedy{}, 0}, {inductor{}, inductorBestLimit}}}
	graphs := []*graph.Graph{loadGraph(t, filepath.Join("..", "cmd", "wrapgen", "testdata", "runtime_sizes", "nonzero.json"))}
	for seed := uint64(0); seed < 12; seed++ {
		g, err := graph.Parse("random.json", synth.Random(seed))
		require.NoError(t, err)
		graphs = append(graphs, g)
	}
	inductorWon := 0
	for _, g := range graphs {
		s, err := sketch(g, Options{})
		require.NoError(t, err)
		if s.pools == nil {
			inductorWon++
		}
		got, gotFig, err := s.ratios()
		require.NoError(t, err)
		p, err := makeWith(g, Options{}, same)
		require.NoError(t, err)
		want, _, _, wantFig, err := rangeRatios(p)
		require.NoError(t, err)
		require.Len(t, got, len(want), g.Name)
		for i := range want {
			assert.InDelta(t, want[i], got[i], 1e-12, "%s: point %d", g.Name, i)
		}
		assert.InDelta(t, wantFig.Worst, gotFig.Worst, 1e-12, g.Name)
		assert.InDelta(t, wantFig.Geomean, gotFig.Geomean, 1e-12, g.Name)
	}
	assert.Less(t, inductorWon, len(graphs), "no sketch was evaluated numerically")
}

// Buckets do not depend on scheduling: the same graph gives the same
// buckets, planned at the same hints, every time.
func TestBucketsDeterministic(t *testing.T) {
	for seed := uint64(0); seed < 8; seed++ {
		g, err := graph.Parse("random.json", synth.Random(seed))
		require.NoError(t, err)
		a, err := MakeBuckets(g, Options{}, 1.0, 6)
		require.NoError(t, err)
		b, err := MakeBuckets(g, Options{}, 1.0, 6)
		require.NoError(t, err)
		require.Len(t, b, len(a), "seed %d", seed)
		for i := range a {
			assert.Equal(t, a[i].Ranges, b[i].Ranges, "seed %d", seed)
			assert.Equal(t, a[i].Plan.Hints, b[i].Plan.Hints, "seed %d", seed)
			assert.Equal(t, a[i].Range, b[i].Range, "seed %d", seed)
		}
	}
}
