package plan

import (
	"github.com/wrapgen/wrapgen/graph"
)

// sketched is a cheap placement of a bucket's storages: search's, with
// ends compared only by their bounds (boundsCtx.cheap), so that no
// expression is built at all. Its figures are computed from the placement
// numerically; it only chooses where to cut and at which hints to plan,
// and is never returned.
type sketched struct {
	plan  *Plan        // graph, hints and buffers; placed only when pools is nil
	pools []sketchPool // nil: plan is placed (by Inductor's planner)
	align int64
}

type sketchPool struct {
	bufs       []*gbuf
	begin, end int
}

// sketch places g's storages for its figures only (see sketched).
func sketch(g *graph.Graph, opts Options) (*sketched, error) {
	opts, err := opts.withDefaults(g)
	if err != nil {
		return nil, err
	}
	prog, err := lowerWith(g, opts)
	if err != nil {
		return nil, err
	}
	req := &request{buffers: prog.buffers, mode: opts.MemoryPool, align: opts.Align, bounds: g.Bounds(), hints: opts.Hints}
	ctx := newBoundsCtx(req)
	s := &sketched{plan: &Plan{Graph: g, Mode: opts.MemoryPool, Align: opts.Align, Hints: opts.Hints, Horizon: opts.Horizon, Buffers: prog.buffers}, align: opts.Align}
	groups := poolGroups(req)
	for i, pp := range placeCheap(req, ctx, groups, sketchClimbWork) {
		sp := sketchPool{bufs: pp.bufs}
		for j, b := range groups[i].buffers {
			if j == 0 || b.Begin < sp.begin {
				sp.begin = b.Begin
			}
			sp.end = max(sp.end, b.End)
		}
		s.pools = append(s.pools, sp)
	}
	// As best does, Inductor's planner's placement instead where best would
	// keep it (time splitting is left out: it rarely wins and would cost
	// as much again).
	if len(req.buffers) <= inductorBestLimit {
		placed, err := inductor{}.place(req)
		if err != nil {
			return nil, err
		}
		if placed != nil {
			keep, err := s.prefers(placed, prog.buffers)
			if err != nil {
				return nil, err
			}
			if keep {
				placed.apply(prog.buffers)
				s.plan.Pools = placed.pools
				s.plan.finishPools()
				s.pools = nil
			}
		}
	}
	return s, nil
}

// prefers reports whether bestOf would keep placed (Inductor's planner's,
// its second candidate) over the sketch's own placement (search's, its
// first): the smaller peak at the hints, or near it the smaller worst
// ratio across the sample points.
func (s *sketched) prefers(placed *placement, buffers []*Buffer) (bool, error) {
	peak, err := placed.peakAt(s.plan.Hints)
	if err != nil {
		return false, err
	}
	own := s.peakAtHints()
	if len(buffers) > MaxRangeBuffers {
		return peak < own, nil
	}
	points := s.plan.samplePoints()
	ratios, _, err := s.ratios() // the sample points come first
	if err != nil {
		return false, err
	}
	ownWorst := 0.0
	for _, r := range ratios[:len(points)] {
		ownWorst = max(ownWorst, r)
	}
	loads, err := loadsAt(buffers, points)
	if err != nil {
		return false, err
	}
	worst, err := placed.worstRatio(points, loads)
	if err != nil {
		return false, err
	}
	cands := []struct {
		peak  int64
		worst float64
	}{{own, ownWorst}, {peak, worst}}
	return bestIndex(len(cands), func(i int) (int64, float64) { return cands[i].peak, cands[i].worst }) == 1, nil
}

// peakAtHints is the cheap placement's peak at the hints, as
// placement.peakAt.
func (s *sketched) peakAtHints() int64 {
	var evs []event
	for _, sp := range s.pools {
		var top int64
		for _, g := range sp.bufs {
			if c, ok := g.b.Size.IsConst(); ok && c == 0 {
				continue
			}
			top = max(top, g.endHint())
		}
		evs = append(evs, event{sp.begin, top}, event{sp.end, -top})
	}
	return maxLive(evs)
}

// ratios is the sketch's peak over the lower bound at each bucket point,
// and their figures.
func (s *sketched) ratios() ([]float64, RangeFigures, error) {
	if s.pools == nil { // Inductor's placement, with its expressions
		ratios, _, _, all, err := rangeRatios(s.plan)
		return ratios, all, err
	}
	if len(s.plan.Buffers) > MaxRangeBuffers {
		return nil, RangeFigures{}, nil
	}
	points, _ := s.plan.bucketPoints()
	out := make([]float64, len(points))
	sizes := map[*Buffer]int64{}
	ends := map[*gbuf]int64{}
	for i, env := range points {
		env = s.plan.WithHints(env)
		clear(sizes)
		clear(ends)
		var loads, peaks []event
		for _, b := range s.plan.Buffers {
			n, err := b.Size.Eval(env)
			if err != nil {
				return nil, RangeFigures{}, err
			}
			sizes[b] = n
			loads = append(loads, event{b.Begin, n}, event{b.End, -n})
		}
		for _, sp := range s.pools {
			var top int64
			for _, g := range sp.bufs {
				if c, ok := g.b.Size.IsConst(); ok && c == 0 {
					continue
				}
				top = max(top, s.endAt(g, sizes, ends))
			}
			peaks = append(peaks, event{sp.begin, top}, event{sp.end, -top})
		}
		out[i] = 1
		if load := maxLive(loads); load > 0 {
			out[i] = float64(maxLive(peaks)) / float64(load)
		}
	}
	return out, figuresOf(out, points), nil
}

// endAt is g's offset plus aligned size at the point sizes were taken at:
// the offset is the largest end of the buffers it is placed above (what
// its expression would be; chains are walked with an explicit stack).
func (s *sketched) endAt(g *gbuf, sizes map[*Buffer]int64, ends map[*gbuf]int64) int64 {
	if e, ok := ends[g]; ok {
		return e
	}
	stack := []*gbuf{g}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		if _, ok := ends[x]; ok {
			stack = stack[:len(stack)-1]
			continue
		}
		pending := false
		if x.placed {
			for _, src := range x.offFrom {
				if _, ok := ends[src]; !ok {
					stack, pending = append(stack, src), true
				}
			}
		}
		if pending {
			continue
		}
		stack = stack[:len(stack)-1]
		var off int64
		if x.placed {
			for _, src := range x.offFrom {
				off = max(off, ends[src])
			}
		}
		ends[x] = off + AlignUp(sizes[x.b], s.align)
	}
	return ends[g]
}

// placeCheap places each group as search does (its orders, then hill
// climbing with the same budget, stopping at the pool's lower bound), but
// with ctx.cheap: maxEnd keeps ends it cannot tell apart by their bounds
// instead of comparing their expressions. Offsets stay correct for every
// symbol value (a maximum over more ends); placing builds no expression,
// which makes it many times faster on graphs whose sizes are not affine
// (attention's seq*seq). The pools are not finished.
func placeCheap(req *request, ctx *boundsCtx, groups []poolGroup, work int) []*poolProblem {
	ctx.cheap = true
	var out []*poolProblem
	for _, grp := range groups {
		pp := newPoolProblem(ctx, grp.buffers, req.hints)
		best, bestSize, bestTop := []int32(nil), int64(-1), 0
		for _, o := range search.orders {
			ord := o.sorted(pp)
			if size, top := pp.place(ord); bestSize < 0 || size < bestSize {
				best, bestSize, bestTop = ord, size, top
			}
			if bestSize <= pp.loadHint {
				break // no order can do better than the pool's lower bound
			}
		}
		if bestSize > pp.loadHint {
			best = climbFor(pp, best, bestSize, bestTop, work)
		}
		pp.place(best)
		out = append(out, pp)
	}
	return out
}

// cheapGreedy is search, or with split the time-split strategy around it,
// placed by placeCheap.
type cheapGreedy struct{ split bool }

func (s cheapGreedy) name() string {
	if s.split {
		return "split"
	}
	return "search"
}

func (s cheapGreedy) place(req *request) (*placement, error) {
	groups := poolGroups(req)
	if s.split {
		var cut bool
		if groups, cut = (timeSplit{}).groups(req); !cut {
			return nil, nil // search's placement, which best tries anyway
		}
	}
	ctx := newBoundsCtx(req)
	placed := newPlacement(req)
	for i, pp := range placeCheap(req, ctx, groups, climbWork) {
		pool := &Pool{Device: groups[i].device}
		pp.finish(pool, placed)
		placed.pools = append(placed.pools, pool)
	}
	return placed, nil
}

// bucketBest is the default strategy, best, with its search and split
// placed by placeCheap: the strategy of the plans MakeBuckets keeps, when
// the caller asks for the default.
var bucketBest = bestOf{candidates: []bestCandidate{
	{cheapGreedy{}, 0},
	{cheapGreedy{split: true}, timeSplitBestLimit},
	{inductor{}, inductorBestLimit},
}}

// makeBucketPlan is Make with bucketBest in place of best, and search
// placed by placeCheap (other strategies as named).
func makeBucketPlan(g *graph.Graph, opts Options) (*Plan, error) {
	switch opts.Strategy {
	case "", DefaultStrategy:
		return makeWith(g, opts, bucketBest)
	case search.name():
		return makeWith(g, opts, cheapGreedy{})
	}
	return Make(g, opts)
}

// sketchClimbWork is the hill climbing budget of sketches, counted in
// buffer placements, never in time. Half search's (climbWork): climbing
// stops after 2000 tries whatever the budget, so pools of up to 100
// storages get all of search's; a quarter of it misjudged encdec's cuts.
var sketchClimbWork = 200_000
