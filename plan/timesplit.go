package plan

import "sort"

// TimeSplit cuts pools by time before placing them with a greedy strategy.
//
// A pool cannot shrink: it holds its largest size from its first use to its
// last. When large outputs appear late (an encoder returning its hidden
// state), one intermediates pool alive until the end forces the peak to that
// pool plus the outputs, although most intermediates are long dead by then.
// Cutting the intermediates into pools by time lets the early pool be
// released before the late buffers need memory.
//
// Cuts are chosen on lower bounds (each part's largest live total, which the
// greedy placement nearly reaches), so choosing costs a sweep per candidate,
// not a placement.
type TimeSplit struct {
	name  string
	inner Greedy
}

func (s TimeSplit) Name() string { return s.name }

// Place implements Strategy.
func (s TimeSplit) Place(req *Request) ([]*Pool, error) {
	groups, _ := s.groups(req)
	return s.inner.placeGroups(req, groups), nil
}

// groups is the mode's grouping with the time cuts made; cut reports
// whether there were any (without, the placement is the inner strategy's).
func (s TimeSplit) groups(req *Request) (groups []poolGroup, cut bool) {
	groups = poolGroups(req)
	if req.Mode == PoolNone {
		return groups, false
	}
	split := splitByTime(req, groups)
	return split, len(split) > len(groups)
}

const (
	maxTimeCuts   = 4  // cuts added in all, best first
	cutCandidates = 32 // cut times tried per part
	// minCutGain is the least relative gain in the estimated peak a cut
	// must bring: an extra pool is an extra allocation.
	minCutGain = 0.01
)

// timePart is a group of buffers with its live range and largest live total
// (its pool's lower bound), at the hints.
type timePart struct {
	grp        poolGroup
	begin, end int
	load       int64
}

// splitByTime repeatedly makes the one cut of one group that lowers the
// estimated peak most.
func splitByTime(req *Request, groups []poolGroup) []poolGroup {
	parts := make([]timePart, len(groups))
	for i, g := range groups {
		parts[i] = measurePart(req, g)
	}
	var outputBegins []int
	for _, b := range req.Buffers {
		if b.Output {
			outputBegins = append(outputBegins, b.Begin)
		}
	}
	cur := estimatePeak(parts)
	for cut := 0; cut < maxTimeCuts; cut++ {
		bestI, bestEst := -1, cur
		var bestPair [2]timePart
		for i, p := range parts {
			if len(p.grp.buffers) < 2 {
				continue
			}
			for _, pair := range cutsOf(req, p, outputBegins) {
				trial := append(append(append([]timePart(nil), parts[:i]...), pair[0], pair[1]), parts[i+1:]...)
				if est := estimatePeak(trial); est < bestEst {
					bestI, bestEst, bestPair = i, est, pair
				}
			}
		}
		if bestI < 0 || float64(bestEst) > float64(cur)*(1-minCutGain) {
			break
		}
		parts = append(append(append([]timePart(nil), parts[:bestI]...), bestPair[0], bestPair[1]), parts[bestI+1:]...)
		cur = bestEst
	}
	out := make([]poolGroup, len(parts))
	for i, p := range parts {
		out[i] = p.grp
	}
	return out
}

func measurePart(req *Request, g poolGroup) timePart {
	p := timePart{grp: g}
	var evs []event
	for i, b := range g.buffers {
		if i == 0 || b.Begin < p.begin {
			p.begin = b.Begin
		}
		p.end = max(p.end, b.End)
		if n := alignInt(b.Hint, req.Align); n > 0 {
			evs = append(evs, event{b.Begin, n}, event{b.End, -n})
		}
	}
	p.load = maxLive(evs)
	return p
}

func estimatePeak(parts []timePart) int64 {
	evs := make([]event, 0, 2*len(parts))
	for _, p := range parts {
		evs = append(evs, event{p.begin, p.load}, event{p.end, -p.load})
	}
	return maxLive(evs)
}

// cutsOf proposes ways to cut p in two at times spread over its life, where
// outputs begin, and where the buffers alive beside them begin: either the buffers dead by the cut go early (the rest
// late), or the buffers born from the cut on go late (the rest early).
func cutsOf(req *Request, p timePart, outputBegins []int) [][2]timePart {
	begins := make([]int, 0, len(p.grp.buffers))
	for _, b := range p.grp.buffers {
		begins = append(begins, b.Begin)
	}
	sort.Ints(begins)
	var times []int
	for k := 1; k < cutCandidates; k++ {
		times = append(times, begins[k*(len(begins)-1)/cutCandidates])
	}
	for _, t := range outputBegins {
		if t <= p.begin || t >= p.end {
			continue
		}
		// Cut where the first buffer still alive beside the output was
		// born, so that everything live with the output can go late.
		first := t
		for _, b := range p.grp.buffers {
			if b.Begin <= t && t < b.End {
				first = min(first, b.Begin)
			}
		}
		times = append(times, t, first)
	}
	sort.Ints(times)
	var out [][2]timePart
	for i, t := range times {
		if i > 0 && times[i-1] == t {
			continue
		}
		for _, deadBy := range []bool{true, false} {
			var early, late []*Buffer
			for _, b := range p.grp.buffers {
				if (deadBy && b.End <= t) || (!deadBy && b.Begin < t) {
					early = append(early, b)
				} else {
					late = append(late, b)
				}
			}
			if len(early) == 0 || len(late) == 0 {
				continue
			}
			out = append(out, [2]timePart{
				measurePart(req, poolGroup{p.grp.device, early}),
				measurePart(req, poolGroup{p.grp.device, late}),
			})
		}
	}
	return out
}
