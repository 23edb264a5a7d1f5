package plan

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// bestOf runs several strategies, keeps the placement with the smallest peak
// at the hints (or near it and best across the range), and names the winner. A candidate is skipped on requests
// with more buffers than its limit (0: none), and when it has nothing of
// its own to offer (a nil placement).
type bestOf struct{ candidates []bestCandidate }

// bestCandidate is a strategy bestOf tries, up to a number of buffers.
type bestCandidate struct {
	strategy   strategy
	maxBuffers int
}

func (bestOf) name() string { return "best" }

// nearHints is how far above the smallest peak at the hints a candidate
// may be and still win on its worst ratio across the range.
const nearHints = 1.005

// place keeps the candidate with the smallest peak at the hints, or, among
// those within nearHints of it, the one with the smallest worst ratio of
// peak over lower bound across the request's sample points.
func (s bestOf) place(req *request) (*placement, error) {
	type result struct {
		placed *placement
		name   string
		peak   int64
		worst  float64
	}
	var rs []result
	for _, c := range s.candidates {
		if c.maxBuffers > 0 && len(req.buffers) > c.maxBuffers {
			continue
		}
		placed, err := c.strategy.place(req)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.strategy.name(), err)
		}
		if placed == nil {
			continue
		}
		peak, err := placed.peakAt(req.hints)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.strategy.name(), err)
		}
		rs = append(rs, result{placed: placed, name: c.strategy.name(), peak: peak})
	}
	if len(rs) == 0 {
		return nil, nil
	}
	if len(rs) > 1 && len(req.points) > 0 {
		loads := loadsAt(req.buffers, req.points)
		for i := range rs {
			rs[i].worst = rs[i].placed.worstRatio(req.points, loads)
		}
	}
	best := bestIndex(len(rs), func(i int) (int64, float64) { return rs[i].peak, rs[i].worst })
	rs[best].placed.winner = rs[best].name
	return rs[best].placed, nil
}

// bestIndex is the candidate (of n, each with its peak at the hints and
// worst ratio across the range, 0 when not measured) best keeps: the
// smallest peak, or among those within nearHints of it the smallest worst
// ratio, then the smaller peak; ties go to the earlier candidate.
func bestIndex(n int, figures func(i int) (peak int64, worst float64)) int {
	best := 0
	bestPeak, bestWorst := figures(0)
	for i := 1; i < n; i++ {
		if p, w := figures(i); p < bestPeak {
			best, bestPeak, bestWorst = i, p, w
		}
	}
	limit := float64(bestPeak) * nearHints
	for i := 0; i < n; i++ {
		p, w := figures(i)
		if float64(p) <= limit && (w < bestWorst-1e-9 || (w <= bestWorst+1e-9 && p < bestPeak)) {
			best, bestPeak, bestWorst = i, p, w
		}
	}
	return best
}

// loadsAt is the lower bound at each point: the largest total of live
// storage bytes at any step; -1 at a point where the storages together take
// more bytes than an int64 counts (a symbol without a max sampled up to a
// large -range-horizon), which no wrapper runs at and best does not compare
// at.
func loadsAt(buffers []*Buffer, points []expr.Env) []int64 {
	loads := make([]int64, len(points))
	for i, env := range points {
		evs := make([]event, 0, 2*len(buffers))
		var total int64
		for _, b := range buffers {
			n, err := b.Size.Eval(env)
			if err != nil || n > math.MaxInt64-total {
				evs = nil
				break
			}
			total += n
			evs = append(evs, event{b.Begin, n}, event{b.End, -n})
		}
		loads[i] = -1
		if evs != nil || len(buffers) == 0 {
			loads[i] = maxLive(evs)
		}
	}
	return loads
}

// worstRatio is the placement's largest peak over lower bound at the points
// loadsAt compared at; a pool whose size does not fit an int64 at one of
// them makes it the worst there is.
func (pl *placement) worstRatio(points []expr.Env, loads []int64) float64 {
	worst := 0.0
	for i, env := range points {
		if loads[i] <= 0 {
			continue
		}
		peak, err := pl.peakAt(env)
		if err != nil {
			return math.Inf(1)
		}
		worst = max(worst, float64(peak)/float64(loads[i]))
	}
	return worst
}
