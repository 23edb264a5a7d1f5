package plan

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// This file is how MakeBuckets improves its worst bucket b. The
// candidates are b whole planned anew at its worst point (worstPoint; not
// for the first bucket, the whole range's: that one keeps the caller's
// hints, and callers tell a bucketed plan by its two buckets or more),
// and cuts of b in two: for each symbol with room that b's ratios depend
// on (flat), just below and just above the worst point's value, at each
// power of two between it and b's hint, and the cut MakeBuckets made
// before it searched (splitAt), the fallback. Each part of a cut is either
// left with b's plan (it holds there unchanged; only the part without the
// worst point can gain by that) or planned anew: at the worst point
// (clamped into the part), at b's hints (clamped), and for the fallback
// cut also with the cut symbol at either end of the part.
//
// Options planned anew are judged on sketches (buckets_quick.go): the
// placement best would make (but for time splitting), without program
// lines or verification, its ratios evaluated numerically at the part's
// bucket points. A part's best
// option, and then the best cut, is the one whose ratios go least above
// the target in all (excess), then with the smaller worst ratio, then the
// smaller geomean (ties between cuts: the fallback). b whole wins when it
// goes no further above the target than the best cut (a bucket fewer); a
// cut must lower b's worst ratio or its excess per point; else the
// fallback cut is made, for the next splits to go on from. Only what is
// kept is planned for real, with the full strategy, and verified.

// bucketer makes the buckets of one graph.
type bucketer struct {
	g      *graph.Graph
	opts   Options
	target float64
}

// cut is a candidate: b split along symbol k after value c (the last of
// the lower part), or, with k < 0, b whole planned anew.
type cut struct {
	k     int
	c     int64
	old   bool // the cut MakeBuckets made before it searched: the fallback
	parts [][]SymbolRange
	best  []*option // by part, once judged
}

// option is one way to plan a part: with b's plan (reuse) or anew at
// hints; fig (over the bucket points), ratios and excess are its figures
// across the part.
type option struct {
	reuse  bool
	hints  expr.Env
	fig    RangeFigures
	ratios []float64
	excess float64
}

func (o *option) score() [3]float64 { return [3]float64{o.excess, o.fig.Worst, o.fig.Geomean} }

// score orders cuts: by the excess of their parts' ratios over the
// target, then the worse part's worst ratio, then the parts' log geomean.
func (ct *cut) score() [3]float64 {
	var s [3]float64
	for _, o := range ct.best {
		s[0] += o.excess
		s[1] = max(s[1], o.fig.Worst)
		s[2] += logGeo(o.fig)
	}
	return s
}

// less3 orders scores lexicographically (values within 1e-9 equal).
func less3(a, b [3]float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9 {
			return a[i] < b[i]
		}
	}
	return false
}

// excess is how far ratios go above target: the sum of their logs over it.
func excess(ratios []float64, target float64) float64 {
	e := 0.0
	for _, r := range ratios {
		if r > target {
			e += math.Log(r / target)
		}
	}
	return e
}

func logGeo(f RangeFigures) float64 {
	if f.Points == 0 {
		return 0
	}
	return math.Log(f.Geomean) * float64(f.Points)
}

// improve is b planned anew (only when whole), or b's two parts, or nil
// when nothing tried helps.
func (bk *bucketer) improve(b *Bucket, whole bool) ([]*Bucket, error) {
	cuts := bk.cuts(b, whole)
	if len(cuts) == 0 {
		return nil, nil
	}
	// Every option of every part, judged in parallel; each result lands
	// in its own slot, so nothing depends on scheduling.
	type job struct {
		ct   *cut
		side int
		opt  *option
	}
	var jobs []job
	for _, ct := range cuts {
		ct.best = make([]*option, len(ct.parts))
		for side, rs := range ct.parts {
			for _, o := range bk.options(b, ct, rs) {
				jobs = append(jobs, job{ct, side, o})
			}
		}
	}
	errs := make([]error, len(jobs))
	parallel(len(jobs), func(i int) {
		j := jobs[i]
		rs := j.ct.parts[j.side]
		if j.opt.reuse {
			j.opt.ratios, _, _, j.opt.fig, errs[i] = rangeRatios(reused(b.Plan, restrict(bk.g, rs)))
		} else {
			j.opt.ratios, j.opt.fig, errs[i] = bk.sketchFigures(rs, j.opt.hints)
		}
		j.opt.excess = excess(j.opt.ratios, bk.target)
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for _, j := range jobs {
		if cur := j.ct.best[j.side]; cur == nil || less3(j.opt.score(), cur.score()) {
			j.ct.best[j.side] = j.opt
		}
	}
	var win, anew, old *cut
	for _, ct := range cuts {
		switch {
		case ct.k < 0:
			anew = ct
		case win == nil || less3(ct.score(), win.score()) || (ct.old && !less3(win.score(), ct.score())):
			// On a tie, the cut MakeBuckets made before it searched: the
			// buckets stay as they were where nothing is gained.
			win = ct
		}
		if ct.old {
			old = ct
		}
	}
	cur := excess(b.ratios, bk.target)
	if anew != nil && anew.best[0].excess < cur-1e-9 && (win == nil || anew.best[0].excess <= win.score()[0]+1e-9) {
		nb, err := bk.final(b.Ranges, anew.best[0].hints)
		if err != nil {
			return nil, err
		}
		if excess(nb.ratios, bk.target) < cur-1e-9 && nb.all.Worst <= b.all.Worst+1e-9 {
			return []*Bucket{nb}, nil
		}
	}
	if win != nil && bk.improves(b, win) {
		parts, err := bk.materialize(b, win)
		if err != nil || max(parts[0].all.Worst, parts[1].all.Worst) <= b.all.Worst+1e-9 {
			return parts, err
		}
		// Planned for real, the parts did worse than their sketches.
	}
	if old == nil {
		return nil, nil
	}
	return bk.materialize(b, old)
}

// improves reports whether ct lowers b's worst ratio or its excess per
// sample point (the parts have points of their own, at the cut).
func (bk *bucketer) improves(b *Bucket, ct *cut) bool {
	sc, n := ct.score(), 0
	for _, o := range ct.best {
		n += len(o.ratios)
	}
	before := excess(b.ratios, bk.target) / float64(max(len(b.ratios), 1))
	return sc[1] < b.all.Worst-1e-9 || (n > 0 && sc[0]/float64(n) < before-1e-12)
}

// materialize plans the parts of ct with the full strategy (both at
// once), or gives them b's plan where that was their best option.
func (bk *bucketer) materialize(b *Bucket, ct *cut) ([]*Bucket, error) {
	parts := make([]*Bucket, len(ct.parts))
	errs := make([]error, len(ct.parts))
	w := b.worstPoint() // before the goroutines: it is remembered in b
	parallel(len(ct.parts), func(side int) {
		o, rs := ct.best[side], ct.parts[side]
		if o.reuse {
			parts[side], errs[side] = reuseBucket(b, bk.g, rs)
			return
		}
		parts[side], errs[side] = bk.final(rs, o.hints)
		if errs[side] == nil && parts[side].all.Worst > bk.target && !inRangeAll(w, rs) {
			// b's own plan may hold better on this part.
			if r, err := reuseBucket(b, bk.g, rs); err == nil && less3(
				[3]float64{r.all.Worst, r.all.Geomean}, [3]float64{parts[side].all.Worst, parts[side].all.Geomean}) {
				parts[side] = r
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// cuts lists the candidates for b (see the top of the file); b planned
// anew only when whole.
func (bk *bucketer) cuts(b *Bucket, whole bool) []*cut {
	var out []*cut
	w := b.worstPoint()
	if whole && EnvText(clampInto(w, b.Ranges)) != EnvText(clampInto(b.Plan.Hints, b.Ranges)) {
		out = append(out, &cut{k: -1, parts: [][]SymbolRange{b.Ranges}})
	}
	oldK, oldC, oldOK := splitAt(b)
	for k, r := range b.Ranges {
		wv, hv := w[r.Name], b.Plan.Hints[r.Name]
		if flat(b, r.Name) {
			continue
		}
		var cs []int64
		add := func(c int64) {
			if c >= r.Min && (!r.HasMax || c < r.Max) {
				cs = append(cs, c)
			}
		}
		add(wv - 1)
		add(wv)
		lo, hi := min(wv, hv), max(wv, hv)
		for p := int64(1); p < hi && p < 1<<40; p *= 2 {
			if p > lo {
				add(p)
			}
		}
		if oldOK && oldK == k {
			add(oldC)
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i] < cs[j] })
		for i, c := range cs {
			if i > 0 && c == cs[i-1] {
				continue
			}
			below := append([]SymbolRange(nil), b.Ranges...)
			above := append([]SymbolRange(nil), b.Ranges...)
			below[k].Max, below[k].HasMax = c, true
			above[k].Min = c + 1
			out = append(out, &cut{k: k, c: c, old: oldOK && oldK == k && oldC == c, parts: [][]SymbolRange{below, above}})
		}
	}
	return out
}

// flat reports whether b's ratios do not depend on symbol name (within
// 0.1%) where the other symbols are at b's hints: a batch often scales
// every storage alike, and cuts along it do not help.
func flat(b *Bucket, name string) bool {
	lo, hi, n := 0.0, 0.0, 0
	for i, env := range b.points {
		on := true
		for _, r := range b.Ranges {
			if r.Name != name && env[r.Name] != b.Plan.Hints[r.Name] {
				on = false
				break
			}
		}
		if !on {
			continue
		}
		if n == 0 || b.ratios[i] < lo {
			lo = b.ratios[i]
		}
		hi = max(hi, b.ratios[i])
		n++
	}
	return n >= 2 && hi <= lo*1.001
}

// options lists the ways to plan the part rs of ct (see the top of the
// file).
func (bk *bucketer) options(b *Bucket, ct *cut, rs []SymbolRange) []*option {
	w := b.worstPoint()
	if ct.k < 0 {
		return []*option{{hints: clampInto(w, rs)}}
	}
	var out []*option
	hasWorst := inRangeAll(w, rs)
	if !hasWorst {
		out = append(out, &option{reuse: true})
	}
	ats := []expr.Env{clampInto(w, rs), clampInto(b.Plan.Hints, rs)}
	if ct.old {
		base := b.Plan.Hints
		if hasWorst {
			base = w
		}
		r := rs[ct.k]
		for _, end := range []int64{r.Min, r.Max} {
			if end == r.Max && !r.HasMax {
				continue
			}
			at := clampInto(base, rs)
			at[r.Name] = end
			ats = append(ats, at)
		}
	}
	seen := map[string]bool{}
	for _, at := range ats {
		if k := EnvText(at); !seen[k] {
			seen[k] = true
			out = append(out, &option{hints: at})
		}
	}
	return out
}

// splitAt is the cut MakeBuckets made before it searched: along the
// symbol whose value at the worst point is furthest (in powers of two)
// from b's hint, at a power of two near the geometric middle of the two.
// It gives the symbol's index in b.Ranges and the last value of the part
// below the cut.
func splitAt(b *Bucket) (int, int64, bool) {
	best, bestDist := -1, 0.0
	for k, r := range b.Ranges {
		w, h := b.worstPoint()[r.Name], b.Plan.Hints[r.Name]
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
	w, h := b.worstPoint()[r.Name], b.Plan.Hints[r.Name]
	lo, hi := min(w, h), max(w, h)
	cut := int64(1) << int(math.Floor(math.Log2(math.Sqrt(float64(max(lo, 1))*float64(hi)))))
	cut = max(lo, min(cut, hi-1))
	return best, cut, true
}

// worstPoint is where b is split from: of the sample points whose ratio is
// the worst (within 0.01%), the one that differs from b's hints in the
// fewest symbols, then the furthest from them (in powers of two), not
// merely the first. Ratios often do not depend on a symbol (a batch
// scales every storage alike): cutting along it would not help.
func (b *Bucket) worstPoint() expr.Env {
	if b.worst != nil {
		return b.worst
	}
	if len(b.ratios) == 0 {
		return b.all.WorstAt
	}
	best, bestDiff, bestDist := -1, 0, 0.0
	for i, r := range b.ratios {
		if r < b.all.Worst*(1-1e-4) {
			continue
		}
		diff, d := 0, 0.0
		for _, sr := range b.Ranges {
			v, h := b.points[i][sr.Name], b.Plan.Hints[sr.Name]
			if v != h {
				diff++
			}
			d += math.Abs(math.Log2(float64(max(v, 1))) - math.Log2(float64(max(h, 1))))
		}
		if best < 0 || diff < bestDiff || (diff == bestDiff && d > bestDist+1e-12) {
			best, bestDiff, bestDist = i, diff, d
		}
	}
	b.worst = b.points[best]
	return b.worst
}

// rangeRatios is p's ratio at each of its bucket points (and the
// points), its range figures (as Range, over the sample points) and its
// figures over all the bucket points.
func rangeRatios(p *Plan) ([]float64, []expr.Env, RangeFigures, RangeFigures, error) {
	var r, all RangeFigures
	if len(p.Buffers) > MaxRangeBuffers {
		return nil, nil, r, all, nil
	}
	points, n := p.bucketPoints()
	ratios, err := p.ratiosAt(points)
	if err != nil {
		return nil, nil, r, all, err
	}
	return ratios, points, figuresOf(ratios[:n], points[:n]), figuresOf(ratios, points), nil
}

// bucketPoints are the points buckets are judged at: p's sample points
// (the first n), then each symbol at each of its sample values with the
// others at their minimums, where Range's points (the others at their
// hints) miss small sizes of one symbol with small sizes of the others.
func (p *Plan) bucketPoints() ([]expr.Env, int) {
	points := p.samplePoints()
	n := len(points)
	seen := map[string]bool{}
	for _, env := range points {
		seen[EnvText(env)] = true
	}
	mins := expr.Env{}
	for _, s := range p.Graph.Symbols {
		if !s.RunTime() {
			mins[s.Name] = s.Min
		}
	}
	for _, s := range p.Graph.Symbols {
		if s.RunTime() {
			continue
		}
		for _, v := range p.sampleValues(s) {
			env := p.WithHints(mins)
			env[s.Name] = v
			p.Graph.AtBounds(env)
			if k := EnvText(env); !seen[k] {
				seen[k] = true
				points = append(points, env)
			}
		}
	}
	return points, n
}

// clampInto is env's values of rs's symbols, clamped into rs.
func clampInto(env expr.Env, rs []SymbolRange) expr.Env {
	out := expr.Env{}
	for _, r := range rs {
		if v, ok := env[r.Name]; ok {
			out[r.Name] = r.clamp(v)
		}
	}
	return out
}

func inRange(v int64, r SymbolRange) bool { return v >= r.Min && (!r.HasMax || v <= r.Max) }

func inRangeAll(env expr.Env, rs []SymbolRange) bool {
	for _, r := range rs {
		if v, ok := env[r.Name]; ok && !inRange(v, r) {
			return false
		}
	}
	return true
}

// sketchFigures are the ratios and range figures of the part rs sketched
// at hints.
func (bk *bucketer) sketchFigures(rs []SymbolRange, hints expr.Env) ([]float64, RangeFigures, error) {
	rg := restrict(bk.g, rs)
	if st := bk.opts.Strategy; st != "" && st != DefaultStrategy && st != search.name() {
		// A strategy the caller chose is judged as it is (the greedy
		// ones are cheap; the others are what the caller asked for).
		p, err := Make(rg, bk.bucketOptions(rg, hints))
		if err != nil {
			return nil, RangeFigures{}, fmt.Errorf("bucket %s: %w", RangesText(rs), err)
		}
		ratios, _, _, all, err := rangeRatios(p)
		return ratios, all, err
	}
	s, err := sketch(rg, bk.bucketOptions(rg, hints))
	if err != nil {
		return nil, RangeFigures{}, fmt.Errorf("bucket %s: %w", RangesText(rs), err)
	}
	return s.ratios()
}

// reused is p as a plan of rg, whose ranges lie within p's: its placement
// holds there as it does across p's, so only the graph and the hints
// (clamped into rg's ranges) change.
func reused(p *Plan, rg *graph.Graph) *Plan {
	q := *p
	q.Graph = rg
	q.Hints = expr.Env{}
	for k, v := range p.Hints {
		q.Hints[k] = v
	}
	for _, s := range rg.Symbols {
		if s.RunTime() {
			continue
		}
		q.Hints[s.Name] = rangeOf(s).clamp(q.Hints[s.Name])
	}
	rg.AtBounds(q.Hints)
	return &q
}

// reuseBucket is the part rs of b with b's plan, verified over rs.
func reuseBucket(b *Bucket, g *graph.Graph, rs []SymbolRange) (*Bucket, error) {
	q := reused(b.Plan, restrict(g, rs))
	if err := verify(q); err != nil {
		return nil, fmt.Errorf("bucket %s: %w", RangesText(rs), err)
	}
	ratios, points, r, all, err := rangeRatios(q)
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", RangesText(rs), err)
	}
	return &Bucket{Ranges: rs, Plan: q, Range: r, all: all, ratios: ratios, points: points}, nil
}

// final is the bucket of ranges planned at hints with the full strategy
// and verified.
func (bk *bucketer) final(ranges []SymbolRange, hints expr.Env) (*Bucket, error) {
	return makeBucket(bk.g, bk.opts, ranges, hints)
}

func (bk *bucketer) bucketOptions(rg *graph.Graph, hints expr.Env) Options {
	return bucketOptions(bk.g, bk.opts, rg, hints)
}

// parallel runs f(0), ..., f(n-1) on up to GOMAXPROCS goroutines.
func parallel(n int, f func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}
