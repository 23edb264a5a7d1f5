package plan

import (
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"slices"
)

// order ranks a pool's buffers for the greedy offset calculation: by key,
// smallest first, then by buffer id.
type order struct {
	name string
	key  func(g *gbuf) [2]int64
}

var (
	bySize     = order{"size", func(g *gbuf) [2]int64 { return [2]int64{-g.hint, -int64(g.b.Len())} }}
	byLifetime = order{"lifetime", func(g *gbuf) [2]int64 { return [2]int64{-int64(g.b.Len()), -g.hint} }}
	byArea     = order{"area", func(g *gbuf) [2]int64 { return [2]int64{-satMul(g.hint, int64(g.b.Len())), -g.hint} }}
	// byConflicts is TVM USMP's greedy_by_conflicts: the most constrained
	// buffers first.
	byConflicts = order{"conflicts", func(g *gbuf) [2]int64 { return [2]int64{-int64(len(g.conflicts)), -g.hint} }}
)

// satMul multiplies non-negative a and b, saturating instead of overflowing.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

func (o order) sorted(pp *poolProblem) []int32 {
	type keyed struct {
		k   [2]int64
		id  int
		idx int32
	}
	ks := make([]keyed, len(pp.bufs))
	for i, g := range pp.bufs {
		ks[i] = keyed{o.key(g), g.b.ID, int32(i)}
	}
	// Keys are computed once; ties are broken by buffer id, so the order is
	// total and an unstable sort is deterministic.
	slices.SortFunc(ks, func(a, b keyed) int {
		if c := cmp.Compare(a.k[0], b.k[0]); c != 0 {
			return c
		}
		if c := cmp.Compare(a.k[1], b.k[1]); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	idx := make([]int32, len(ks))
	for i, k := range ks {
		idx[i] = k.idx
	}
	return idx
}

// Greedy places each pool's buffers with the best-fit offset calculation,
// trying each of its orders and keeping the smallest pool; with Climb it
// then improves the best order by hill climbing (as TVM USMP's hill_climb),
// stopping early at the pool's lower bound.
type Greedy struct {
	name   string
	orders []order
	climb  bool
}

func (s Greedy) Name() string { return s.name }

// Place implements Strategy.
func (s Greedy) Place(req *Request) (*Placement, error) {
	return s.placeGroups(req, poolGroups(req)), nil
}

// placeGroups places each group of buffers in a pool of its own.
func (s Greedy) placeGroups(req *Request, groups []poolGroup) *Placement {
	ctx := newBoundsCtx(req)
	placed := newPlacement(req)
	for _, grp := range groups {
		pp := newPoolProblem(ctx, grp.buffers, req.Hints)
		best, bestSize, bestTop := []int32(nil), int64(-1), 0
		for _, o := range s.orders {
			ord := o.sorted(pp)
			if size, top := pp.place(ord); bestSize < 0 || size < bestSize {
				best, bestSize, bestTop = ord, size, top
			}
			if bestSize <= pp.loadHint {
				break // no order can do better than the pool's lower bound
			}
		}
		if s.climb && bestSize > pp.loadHint {
			best = climb(pp, best, bestSize, bestTop)
		}
		pp.place(best)
		pool := &Pool{Device: grp.device}
		pp.finish(pool, placed)
		placed.Pools = append(placed.Pools, pool)
	}
	return placed
}

// climbWork bounds the hill climbing: about this many buffer placements in
// all, so small graphs get many tries and huge ones a few. Deterministic: the
// same graph always gets the same plan.
const climbWork = 400_000

func climb(pp *poolProblem, start []int32, startSize int64, startTop int) []int32 {
	n := len(start)
	if n < 2 {
		return start
	}
	iters := min(max(climbWork/n, 4), 2000)
	rng := rand.New(rand.NewSource(int64(n)))
	best, bestSize, topPos := append([]int32(nil), start...), startSize, startTop
	cand := make([]int32, n)
	for it := 0; it < iters && bestSize > pp.loadHint; it++ {
		copy(cand, best)
		if it%2 == 0 {
			// Move the buffer that sets the pool's top earlier.
			if topPos > 0 {
				to := rng.Intn(topPos)
				v := cand[topPos]
				copy(cand[to+1:topPos+1], cand[to:topPos])
				cand[to] = v
			}
		} else {
			i, j := rng.Intn(n), rng.Intn(n)
			cand[i], cand[j] = cand[j], cand[i]
		}
		if size, top := pp.place(cand); size <= bestSize {
			copy(best, cand)
			bestSize, topPos = size, top
		}
	}
	return best
}

type poolGroup struct {
	device  string
	buffers []*Buffer
}

// poolGroups splits buffers into pools as the memory_pool mode says, with
// the outputs' pools hosting intermediates before the outputs are born.
// Strategies tried by best share the result, which they only read.
func poolGroups(req *Request) []poolGroup {
	if req.groups == nil {
		req.groups = hostInOutputPools(req, modeGroups(req))
	}
	return req.groups
}

// modeGroups splits buffers into pools as the memory_pool mode says: per
// device; with "intermediates" each output alone, with "outputs" the outputs
// together, with "combined" everything together, with "none" every buffer
// alone.
func modeGroups(req *Request) []poolGroup {
	var devices []string
	byDev := map[string][]*Buffer{}
	for _, b := range req.Buffers {
		if _, ok := byDev[b.Device]; !ok {
			devices = append(devices, b.Device)
		}
		byDev[b.Device] = append(byDev[b.Device], b)
	}
	var out []poolGroup
	for _, d := range devices {
		var outs, inter []*Buffer
		for _, b := range byDev[d] {
			if b.Output && req.Mode != PoolCombined {
				outs = append(outs, b)
			} else {
				inter = append(inter, b)
			}
		}
		switch req.Mode {
		case PoolNone:
			for _, b := range byDev[d] {
				out = append(out, poolGroup{d, []*Buffer{b}})
			}
			continue
		case PoolOutputs:
			if len(outs) > 0 {
				out = append(out, poolGroup{d, outs})
			}
		case PoolIntermediates:
			for _, b := range outs {
				out = append(out, poolGroup{d, []*Buffer{b}})
			}
		}
		if len(inter) > 0 {
			out = append(out, poolGroup{d, inter})
		}
	}
	return out
}

// Best runs several strategies, keeps the placement with the smallest peak
// at the hints, and names the winner. A candidate is skipped on requests
// with more buffers than its limit (0: none), and when it has nothing of
// its own to offer (a nil placement).
type Best struct{ Candidates []BestCandidate }

// BestCandidate is a strategy best tries, up to a number of buffers.
type BestCandidate struct {
	Strategy   Strategy
	MaxBuffers int
}

func (Best) Name() string { return "best" }

// Place implements Strategy: the minimum over the candidates' results.
func (s Best) Place(req *Request) (*Placement, error) {
	var best *Placement
	var bestPeak int64
	for _, c := range s.Candidates {
		if c.MaxBuffers > 0 && len(req.Buffers) > c.MaxBuffers {
			continue
		}
		placed, err := c.Strategy.Place(req)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Strategy.Name(), err)
		}
		if placed == nil {
			continue
		}
		peak, err := placed.peakAt(req.Hints)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Strategy.Name(), err)
		}
		if best == nil || peak < bestPeak {
			best, bestPeak = placed, peak
			best.Winner = c.Strategy.Name()
		}
	}
	return best, nil
}

// timeSplitBestLimit keeps time splitting out of "best" on graphs so large
// that trying cuts would dominate planning time.
const timeSplitBestLimit = 200_000

// inductorBestLimit keeps Inductor's planner out of "best" on graphs so
// large that its tree search dominates planning time.
const inductorBestLimit = 5_000

var (
	greedySize      = Greedy{"greedy-size", []order{bySize}, false}
	greedyLifetime  = Greedy{"greedy-lifetime", []order{byLifetime}, false}
	greedyArea      = Greedy{"greedy-area", []order{byArea}, false}
	greedyConflicts = Greedy{"greedy-conflicts", []order{byConflicts}, false}
	search          = Greedy{"search", []order{bySize, byArea, byConflicts, byLifetime}, true}
	split           = TimeSplit{name: "split", inner: search}
)

// strategyTable lists every strategy by which -strategy names it.
var strategyTable = []Strategy{
	greedySize, greedyLifetime, greedyArea, greedyConflicts, search, split, Inductor{},
	Best{Candidates: []BestCandidate{
		{search, 0},
		{TimeSplit{name: "split", inner: search, onlyIfCut: true}, timeSplitBestLimit},
		{Inductor{}, inductorBestLimit},
	}},
}
