package plan

import (
	"slices"
	"sort"
)

// timeSplit cuts pools by time before placing them with a greedy strategy.
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
type timeSplit struct {
	label string
	inner greedy
	// onlyIfCut makes place return no placement when no cut is made: it
	// would be the inner strategy's (which best tries anyway).
	onlyIfCut bool
}

func (s timeSplit) name() string { return s.label }

func (s timeSplit) place(req *request) (*placement, error) {
	groups, cut := s.groups(req)
	if !cut && s.onlyIfCut {
		return nil, nil
	}
	return s.inner.placeGroups(req, groups), nil
}

// groups is the mode's grouping with the time cuts made; cut reports
// whether there were any (without, the placement is the inner strategy's).
func (s timeSplit) groups(req *request) (groups []poolGroup, cut bool) {
	groups = poolGroups(req)
	if req.mode == PoolNone {
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
func splitByTime(req *request, groups []poolGroup) []poolGroup {
	parts := make([]timePart, len(groups))
	for i, g := range groups {
		parts[i] = measurePart(req, g)
	}
	var outputBegins []int
	for _, b := range req.buffers {
		if b.Output {
			outputBegins = append(outputBegins, b.Begin)
		}
	}
	cur := estimatePeak(parts)
	for cut := 0; cut < maxTimeCuts; cut++ {
		bestI, bestEst := -1, cur
		var bestCut timeCut
		for i, p := range parts {
			// An output's pool that hosts intermediates is already sized by
			// its output: cutting it would only cost time.
			if len(p.grp.buffers) < 2 || (req.mode == PoolIntermediates && hasOutput(p.grp)) {
				continue
			}
			evs := partEvents(req, p)
			for _, c := range cutTimes(p, outputBegins) {
				for _, deadBy := range []bool{true, false} {
					tc := timeCut{c, deadBy}
					early, late := evalCut(evs, tc)
					if early.load == 0 && late.load == 0 {
						continue
					}
					trial := append(append(append([]timePart(nil), parts[:i]...), early, late), parts[i+1:]...)
					if est := estimatePeak(trial); est < bestEst {
						bestI, bestEst, bestCut = i, est, tc
					}
				}
			}
		}
		if bestI < 0 || float64(bestEst) > float64(cur)*(1-minCutGain) {
			break
		}
		early, late := cutPart(req, parts[bestI], bestCut)
		parts = append(append(append([]timePart(nil), parts[:bestI]...), early, late), parts[bestI+1:]...)
		cur = bestEst
	}
	out := make([]poolGroup, len(parts))
	for i, p := range parts {
		out[i] = p.grp
	}
	return out
}

// timeCut splits a part at a step: with deadBy, buffers dead by the step go
// early and the rest late; otherwise buffers born from the step on go late
// and the rest early.
type timeCut struct {
	step   int
	deadBy bool
}

func (c timeCut) late(b *Buffer) bool {
	if c.deadBy {
		return b.End > c.step
	}
	return b.Begin >= c.step
}

func measurePart(req *request, g poolGroup) timePart {
	p := timePart{grp: g}
	for i, b := range g.buffers {
		if i == 0 || b.Begin < p.begin {
			p.begin = b.Begin
		}
		p.end = max(p.end, b.End)
	}
	// The live total per step from a difference array: linear, where
	// sorting events cost most of choosing cuts and hosting on large graphs.
	// Releases and acquisitions at one step net out, as maxLive's order
	// (releases first) makes them.
	delta := make([]int64, p.end-p.begin+1)
	for _, b := range g.buffers {
		if n := AlignUp(b.hint, req.align); n > 0 {
			delta[b.Begin-p.begin] += n
			delta[b.End-p.begin] -= n
		}
	}
	var cur int64
	for _, d := range delta {
		cur += d
		p.load = max(p.load, cur)
	}
	return p
}

func estimatePeak(parts []timePart) int64 {
	evs := make([]event, 0, 2*len(parts))
	for _, p := range parts {
		evs = append(evs, event{p.begin, p.load}, event{p.end, -p.load})
	}
	return maxLive(evs)
}

// bufEvent is a buffer starting (delta > 0) or ending in a part's timeline.
type bufEvent struct {
	step  int
	delta int64
	b     *Buffer
}

// partEvents is p's buffers' events in time order, releases first at a
// step; sorted once for all the cuts tried.
func partEvents(req *request, p timePart) []bufEvent {
	evs := make([]bufEvent, 0, 2*len(p.grp.buffers))
	for _, b := range p.grp.buffers {
		if n := AlignUp(b.hint, req.align); n > 0 {
			evs = append(evs, bufEvent{b.Begin, n, b}, bufEvent{b.End, -n, b})
		}
	}
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].step != evs[j].step {
			return evs[i].step < evs[j].step
		}
		return evs[i].delta < evs[j].delta
	})
	return evs
}

// evalCut measures the two sides of a cut in one pass over the events
// (without their buffer lists, which only the chosen cut needs).
func evalCut(evs []bufEvent, c timeCut) (early, late timePart) {
	var cur [2]int64
	sides := [2]*timePart{&early, &late}
	seen := [2]bool{}
	for _, e := range evs {
		k := 0
		if c.late(e.b) {
			k = 1
		}
		side := sides[k]
		if !seen[k] || e.b.Begin < side.begin {
			side.begin, seen[k] = e.b.Begin, true
		}
		side.end = max(side.end, e.b.End)
		cur[k] += e.delta
		side.load = max(side.load, cur[k])
	}
	if !seen[0] || !seen[1] {
		return timePart{}, timePart{} // nothing cut off
	}
	return early, late
}

// cutPart makes the cut, with the buffers of each side.
func cutPart(req *request, p timePart, c timeCut) (early, late timePart) {
	var e, l []*Buffer
	for _, b := range p.grp.buffers {
		if c.late(b) {
			l = append(l, b)
		} else {
			e = append(e, b)
		}
	}
	return measurePart(req, poolGroup{p.grp.device, e}), measurePart(req, poolGroup{p.grp.device, l})
}

// cutTimes proposes where to cut p: at times spread over its life, where
// outputs begin, and where the buffers alive beside them begin.
func cutTimes(p timePart, outputBegins []int) []int {
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
	return slices.Compact(times)
}
