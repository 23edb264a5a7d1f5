package plan

import (
	"fmt"
	"math"
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
}

// SymbolRange is a symbol's values in a bucket: [Min, Max], Max
// meaningful when HasMax.
type SymbolRange struct {
	Name   string
	Min    int64
	Max    int64
	HasMax bool
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
// worst peak over the bound across its sample points is above target and
// there are fewer than maxBuckets, splits the worst bucket in two: along
// the symbol whose value at the worst point is furthest (in powers of
// two) from the bucket's hint, between the two, at a power of two. The
// part holding the worst point is planned at it. Buckets are returned in
// order of their ranges; they cover g's ranges exactly, without overlap.
func MakeBuckets(g *graph.Graph, opts Options, target float64, maxBuckets int) ([]*Bucket, error) {
	var ranges []SymbolRange
	for _, s := range g.Symbols {
		if !s.RunTime() {
			ranges = append(ranges, SymbolRange{Name: s.Name, Min: s.Min, Max: s.Max, HasMax: s.HasMax})
		}
	}
	first, err := makeBucket(g, opts, ranges, opts.Hints)
	if err != nil {
		return nil, err
	}
	buckets := []*Bucket{first}
	for len(buckets) < maxBuckets {
		worst := -1
		for i, b := range buckets {
			if b.Range.Points > 0 && b.Range.Worst > target && (worst < 0 || b.Range.Worst > buckets[worst].Range.Worst) && splittable(b) {
				worst = i
			}
		}
		if worst < 0 {
			break
		}
		a, b, err := splitBucket(g, opts, buckets[worst])
		if err != nil {
			return nil, err
		}
		buckets = append(buckets[:worst], append([]*Bucket{a, b}, buckets[worst+1:]...)...)
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

// splittable reports whether the bucket's worst point differs from its
// hints in a symbol with room to split.
func splittable(b *Bucket) bool {
	_, _, ok := splitAt(b)
	return ok
}

// splitAt picks the symbol (its index in b.Ranges) and the last value of
// the part below the cut.
func splitAt(b *Bucket) (int, int64, bool) {
	best, bestDist := -1, 0.0
	for k, r := range b.Ranges {
		w, h := b.Range.WorstAt[r.Name], b.Plan.Hints[r.Name]
		if w == h {
			continue
		}
		d := math.Abs(math.Log2(float64(max(w, 1))) - math.Log2(float64(max(h, 1))))
		if best < 0 || d > bestDist {
			best, bestDist = k, d
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	r := b.Ranges[best]
	w, h := b.Range.WorstAt[r.Name], b.Plan.Hints[r.Name]
	lo, hi := min(w, h), max(w, h)
	// A power of two in [lo, hi) near the geometric middle.
	cut := int64(1) << int(math.Floor(math.Log2(math.Sqrt(float64(max(lo, 1))*float64(hi)))))
	cut = max(lo, min(cut, hi-1))
	return best, cut, true
}

func splitBucket(g *graph.Graph, opts Options, b *Bucket) (*Bucket, *Bucket, error) {
	k, cut, _ := splitAt(b)
	below := append([]SymbolRange(nil), b.Ranges...)
	above := append([]SymbolRange(nil), b.Ranges...)
	below[k].Max, below[k].HasMax = cut, true
	above[k].Min = cut + 1
	name := b.Ranges[k].Name
	var parts [2]*Bucket
	for i, rs := range [2][]SymbolRange{below, above} {
		hints := expr.Env{}
		for n, v := range b.Plan.Hints {
			hints[n] = v
		}
		// The part holding the worst point is planned at it; the other
		// keeps the bucket's hints.
		at := b.Plan.Hints[name]
		if w := b.Range.WorstAt[name]; inRange(w, rs[k]) {
			for n := range hints {
				if v, ok := b.Range.WorstAt[n]; ok {
					hints[n] = v
				}
			}
			at = w
		}
		hints[name] = at
		p, err := makeBucket(g, opts, rs, hints)
		if err != nil {
			return nil, nil, err
		}
		// Also try the part planned at either end of the cut symbol's
		// range; keep the best worst ratio across the part.
		for _, end := range []int64{rs[k].Min, rs[k].Max} {
			if end == at || (end == rs[k].Max && !rs[k].HasMax) {
				continue
			}
			hints[name] = end
			q, err := makeBucket(g, opts, rs, hints)
			if err != nil {
				return nil, nil, err
			}
			if q.Range.Worst < p.Range.Worst {
				p = q
			}
		}
		parts[i] = p
	}
	return parts[0], parts[1], nil
}

func inRange(v int64, r SymbolRange) bool { return v >= r.Min && (!r.HasMax || v <= r.Max) }

// makeBucket plans g with its symbols restricted to ranges, at hints
// (clamped into them).
func makeBucket(g *graph.Graph, opts Options, ranges []SymbolRange, hints expr.Env) (*Bucket, error) {
	rg := restrict(g, ranges)
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
		v = max(v, s.Min)
		if s.HasMax {
			v = min(v, s.Max)
		}
		o.Hints[s.Name] = v
	}
	p, err := Make(rg, o)
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", RangesText(ranges), err)
	}
	r, err := p.Range()
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", RangesText(ranges), err)
	}
	return &Bucket{Ranges: ranges, Plan: p, Range: r}, nil
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
				c.Hint = max(c.Hint, c.Min)
				if c.HasMax {
					c.Hint = min(c.Hint, c.Max)
				}
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
