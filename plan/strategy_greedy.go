package plan

import (
	"cmp"
	"math"
	"math/rand"
	"slices"
)

// order ranks a pool's buffers for the greedy offset calculation: by key,
// smallest first, then by buffer id.
type order struct {
	key func(gb *gbuf) [2]int64
}

var (
	bySize     = order{func(gb *gbuf) [2]int64 { return [2]int64{-gb.hint, -int64(gb.b.lifetime())} }}
	byLifetime = order{func(gb *gbuf) [2]int64 { return [2]int64{-int64(gb.b.lifetime()), -gb.hint} }}
	byArea     = order{func(gb *gbuf) [2]int64 { return [2]int64{-satMul(gb.hint, int64(gb.b.lifetime())), -gb.hint} }}
	// byConflicts is TVM USMP's greedy_by_conflicts: the most constrained
	// buffers first.
	byConflicts = order{func(gb *gbuf) [2]int64 { return [2]int64{-int64(len(gb.conflicts)), -gb.hint} }}
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
	for i, gb := range pp.bufs {
		ks[i] = keyed{o.key(gb), gb.b.ID, int32(i)}
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

// greedy places each pool's buffers with the best-fit offset calculation,
// trying each of its orders and keeping the smallest pool; with climb it
// then improves the best order by hill climbing (as TVM USMP's hill_climb),
// stopping early at the pool's lower bound.
type greedy struct {
	label  string
	orders []order
	climb  bool
}

func (s greedy) name() string { return s.label }

func (s greedy) place(req *request) (*placement, error) {
	return s.placeGroups(req, poolGroups(req)), nil
}

// placeGroups places each group of buffers in a pool of its own.
func (s greedy) placeGroups(req *request, groups []poolGroup) *placement {
	ctx := newBoundsCtx(req)
	placed := newPlacement(req)
	for _, grp := range groups {
		pp := newPoolProblem(ctx, grp.buffers, req.hints)
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
		placed.pools = append(placed.pools, pool)
	}
	return placed
}

// climbWork bounds the hill climbing: about this many buffer placements in
// all, so small graphs get many tries and huge ones a few. Deterministic: the
// same graph always gets the same plan. The bound, in steps: a pool of n
// buffers gets min(max(climbWork/n, 4), 2000) passes, so at most
// max(climbWork, 4n) placements. A placement sorts the buffer's placed
// conflicts and tries the gaps between them, each in O(c) for c buffers
// live at once (O(c²) at worst, c log c when the first gaps fit), and the
// offsets' expressions are made once each (boundsCtx remembers sums and
// maxima): a pool costs O(max(climbWork, n) * c²) at worst, whatever the
// symbols' ranges.
const climbWork = 400_000

func climb(pp *poolProblem, start []int32, startSize int64, startTop int) []int32 {
	return climbFor(pp, start, startSize, startTop, climbWork)
}

// climbFor is climb with a budget of about work buffer placements.
func climbFor(pp *poolProblem, start []int32, startSize int64, startTop int, work int) []int32 {
	n := len(start)
	if n < 2 {
		return start
	}
	iters := min(max(work/n, 4), 2000)
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
