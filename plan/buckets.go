package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// Bucket is a plan for a sub-range of the symbols (a size bucket): where
// no single layout stays near the bound over the whole range, a wrapper
// holds one plan per bucket and picks the bucket whose ranges hold the
// symbol values.
type Bucket struct {
	Ranges []SymbolRange // one per caller-given symbol, graph order
	Plan   *Plan         // made and verified over Ranges only
	Range  RangeFigures  // the plan's figures across Ranges

	all    RangeFigures // across the bucket points (Plan.bucketPoints)
	ratios []float64    // at each of them
	points []expr.Env   // the bucket points
	worst  expr.Env     // worstPoint's, once asked for
}

// SymbolRange is a symbol's values in a bucket: [Min, Max], Max
// meaningful when HasMax.
type SymbolRange struct {
	Name   string
	Min    int64
	Max    int64
	HasMax bool
}

// rangeOf is s's range.
func rangeOf(s *graph.Symbol) SymbolRange {
	return SymbolRange{Name: s.Name, Min: s.Min, Max: s.Max, HasMax: s.HasMax}
}

// clamp is v moved into the range.
func (r SymbolRange) clamp(v int64) int64 {
	v = max(v, r.Min)
	if r.HasMax {
		v = min(v, r.Max)
	}
	return v
}

func (r SymbolRange) String() string {
	if !r.HasMax {
		return fmt.Sprintf("%s>=%d", r.Name, r.Min)
	}
	if r.Min == r.Max {
		return fmt.Sprintf("%s=%d", r.Name, r.Min)
	}
	return fmt.Sprintf("%s in [%d, %d]", r.Name, r.Min, r.Max)
}

// RangesText prints a bucket's ranges.
func RangesText(rs []SymbolRange) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ", ")
}

// MakeBuckets plans g over its whole range and then, while some bucket's
// worst peak over the bound across its sample points (those of Range, and
// more: Plan.bucketPoints) is above target and
// there are fewer than maxBuckets, improves the worst bucket: plans it
// anew at other hints, or splits it in two, whichever its candidates'
// sketches say brings its ratios nearest the target with the fewest
// buckets (buckets_split.go). Buckets that do not lower the worst ratio
// are dropped for the whole range planned at the caller's hints; buckets
// that all place the storages alike become that layout planned over the
// whole range (a single bucket, at other hints than the caller's).
// Buckets are returned in order of their ranges; they cover g's ranges
// exactly, without overlap. With the
// default strategy (or best), the buckets' plans are made by best with
// cheaper placement proofs (bucketBest), and verified as Make's are.
// Deterministic: work is counted in steps, and candidates judged in
// parallel are chosen from in a fixed order.
func MakeBuckets(g *graph.Graph, opts Options, target float64, maxBuckets int) ([]*Bucket, error) {
	var ranges []SymbolRange
	for _, s := range g.Symbols {
		if !s.RunTime() {
			ranges = append(ranges, rangeOf(s))
		}
	}
	bk := &bucketer{g: g, opts: opts, target: target}
	first, err := bk.final(ranges, opts.Hints)
	if err != nil {
		return nil, err
	}
	buckets := []*Bucket{first}
	stuck := map[*Bucket]bool{} // nothing tried helps them
	for len(buckets) < maxBuckets {
		worst := -1
		for i, b := range buckets {
			if b.all.Points > 0 && b.all.Worst > target && !stuck[b] && (worst < 0 || b.all.Worst > buckets[worst].all.Worst) {
				worst = i
			}
		}
		if worst < 0 {
			break
		}
		repl, err := bk.improve(buckets[worst], len(buckets) > 1)
		if err != nil {
			return nil, err
		}
		if repl == nil {
			stuck[buckets[worst]] = true
			continue
		}
		buckets = append(buckets[:worst], append(repl, buckets[worst+1:]...)...)
	}
	if len(buckets) > 1 {
		// Planned at some bucket's hints, one layout may do as well over
		// the whole range as the buckets do: then it serves alone.
		whole, err := bk.wholeAsGood(ranges, buckets)
		if err != nil {
			return nil, err
		}
		if whole != nil {
			return []*Bucket{whole}, nil
		}
	}
	if len(buckets) > 1 && worstOf(buckets) >= first.Range.Worst-1e-9 {
		// Buckets that do not lower the worst ratio are not worth their
		// code (alignment can keep tiny sizes far above the bound whatever
		// the layout): the whole range's plan serves.
		return []*Bucket{first}, nil
	}
	sort.SliceStable(buckets, func(i, j int) bool {
		for k := range buckets[i].Ranges {
			if x, y := buckets[i].Ranges[k].Min, buckets[j].Ranges[k].Min; x != y {
				return x < y
			}
		}
		return false
	})
	return buckets, nil
}

// wholeAsGood is the whole range planned at the first bucket's hints (in
// order) at which it holds as well across the range as the buckets do, or
// nil. Candidates are judged on sketches first.
func (bk *bucketer) wholeAsGood(ranges []SymbolRange, bs []*Bucket) (*Bucket, error) {
	worst := 0.0
	for _, b := range bs {
		worst = max(worst, b.all.Worst)
	}
	for _, b := range bs {
		_, fig, err := bk.sketchFigures(ranges, b.Plan.Hints)
		if err != nil {
			return nil, err
		}
		if fig.Worst > worst+1e-9 {
			continue
		}
		whole, err := bk.final(ranges, b.Plan.Hints)
		if err != nil {
			return nil, err
		}
		if whole.all.Worst <= worst+1e-9 {
			return whole, nil
		}
	}
	return nil, nil
}

// worstOf is the worst peak over the bound across every bucket's range.
func worstOf(bs []*Bucket) float64 {
	w := 0.0
	for _, b := range bs {
		w = max(w, b.Range.Worst)
	}
	return w
}

// makeBucket plans g with its symbols restricted to ranges, at hints
// (clamped into them).
func makeBucket(g *graph.Graph, opts Options, ranges []SymbolRange, hints expr.Env) (*Bucket, error) {
	rg := restrict(g, ranges)
	p, err := makeBucketPlan(rg, bucketOptions(g, opts, rg, hints))
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", RangesText(ranges), err)
	}
	ratios, points, r, all, err := rangeRatios(p)
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", RangesText(ranges), err)
	}
	return &Bucket{Ranges: ranges, Plan: p, Range: r, all: all, ratios: ratios, points: points}, nil
}

// bucketOptions are opts for planning rg, g restricted, at hints (clamped
// into rg's ranges).
func bucketOptions(g *graph.Graph, opts Options, rg *graph.Graph, hints expr.Env) Options {
	o := opts
	if o.AliasHints == nil {
		// Every bucket weighs in-place pairs where the whole range's plan
		// does, so all have the same storages (what a wrapper's buckets
		// and its selftest share).
		o.AliasHints = g.Hints()
		for n, v := range opts.Hints {
			o.AliasHints[n] = v
		}
	}
	o.Hints = expr.Env{}
	for _, s := range rg.Symbols {
		if s.RunTime() {
			continue
		}
		v, ok := hints[s.Name]
		if !ok {
			v = s.Hint
		}
		o.Hints[s.Name] = rangeOf(s).clamp(v)
	}
	return o
}

// restrict is g with its caller-given symbols' ranges narrowed to ranges
// (and hints clamped into them): the plan made for it is proven over those
// ranges only. g is not modified.
func restrict(g *graph.Graph, ranges []SymbolRange) *graph.Graph {
	rg := *g
	rg.Symbols = make([]*graph.Symbol, len(g.Symbols))
	for i, s := range g.Symbols {
		c := *s
		for _, r := range ranges {
			if r.Name == s.Name {
				c.Min, c.Max, c.HasMax = r.Min, r.Max, r.HasMax
				c.Hint = r.clamp(c.Hint)
			}
		}
		rg.Symbols[i] = &c
	}
	return &rg
}

// PickBucket is the index of the bucket whose ranges hold the symbol
// values env gives (symbols env lacks are not tested), or -1.
func PickBucket(bs []*Bucket, env expr.Env) int {
	for i, b := range bs {
		holds := true
		for _, r := range b.Ranges {
			if v, ok := env[r.Name]; ok && !inRange(v, r) {
				holds = false
			}
		}
		if holds {
			return i
		}
	}
	return -1
}
