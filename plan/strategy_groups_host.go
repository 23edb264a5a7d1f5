package plan

import (
	"cmp"
	"slices"
)

// Outputs' pools host intermediates before the outputs are born.
//
// With memory_pool "intermediates" (or "outputs") an output's pool is its
// own, handed to the caller at the end. A pool exists from its first use by
// anything, so before its output is written it can hold intermediates that
// are dead by then, as Inductor's planner does. A large output made late (a
// transformer's last hidden state) then no longer sits on top of a full
// intermediates pool: the intermediates pool shrinks by what the output's
// pool holds for it earlier.

// hostInOutputPools moves, per output pool group, the intermediates dead
// before the group's first output is born into that group, as long as their
// live total stays within the group's own (so the output's pool does not
// grow). Largest intermediates go first. The hosting is kept only when it
// lowers the estimated peak (each group's live total over its life).
func hostInOutputPools(req *request, groups []poolGroup) []poolGroup {
	if req.mode != PoolIntermediates && req.mode != PoolOutputs {
		return groups
	}
	out := slices.Clone(groups)
	// The intermediates group of each device is the one without outputs.
	inter := map[string]int{}
	var outputGroups []int
	for i, g := range out {
		if hasOutput(g) {
			outputGroups = append(outputGroups, i)
		} else {
			inter[g.device] = i
		}
	}
	if len(outputGroups) == 0 || len(inter) == 0 {
		return groups
	}
	type host struct {
		group int
		birth int   // first step any output of the group is live
		room  int64 // the group's own live total: what the pool will be
	}
	var hosts []host
	for _, gi := range outputGroups {
		if _, ok := inter[out[gi].device]; !ok {
			continue
		}
		birth := -1
		for _, b := range out[gi].buffers {
			if birth < 0 || b.Begin < birth {
				birth = b.Begin
			}
		}
		hosts = append(hosts, host{gi, birth, measurePart(req, out[gi]).load})
	}
	// Largest rooms first: they take the most off the intermediates pool.
	slices.SortStableFunc(hosts, func(a, b host) int { return cmp.Compare(b.room, a.room) })
	best := estimateGroups(req, groups)
	moved := false
	for _, h := range hosts {
		ii := inter[out[h.group].device]
		var cands []*Buffer
		for _, b := range out[ii].buffers {
			if b.End <= h.birth && b.hint > 0 {
				cands = append(cands, b)
			}
		}
		if len(cands) == 0 || h.birth <= 0 {
			continue
		}
		slices.SortStableFunc(cands, func(a, b *Buffer) int {
			if c := cmp.Compare(b.hint, a.hint); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
		// The pool's own size is one room to fill; growing it to hold one of
		// the largest candidates can pay off when those are what is live at
		// the intermediates' peak (a transformer's attention scores, larger
		// than its last hidden state). Each room is tried; the lowest
		// estimated peak is kept. A grown pool is handed to the caller with
		// the output and kept as long as the output is, so growth must buy
		// at least a 1% lower peak.
		rooms := []int64{h.room}
		for _, b := range cands {
			if len(rooms) == maxHostRooms {
				break
			}
			if n := AlignUp(b.hint, req.align); n > rooms[len(rooms)-1] {
				rooms = append(rooms, n)
			}
		}
		for _, room := range rooms {
			trial := hostInto(req, out, h.group, ii, h.birth, room, cands)
			if trial == nil {
				continue
			}
			e := estimateGroups(req, trial)
			if room > h.room {
				e += best / 100
			}
			if e < best {
				best, out, moved = e, trial, true
			}
		}
	}
	if !moved {
		return groups
	}
	// Drop an intermediates group left empty.
	return slices.DeleteFunc(out, func(g poolGroup) bool { return len(g.buffers) == 0 })
}

// maxHostRooms bounds the pool sizes tried per output pool.
const maxHostRooms = 4

// hostInto returns groups with the candidates (largest first) that fit
// within room at every step before birth moved from the intermediates
// group ii into the output group host, or nil when none fits.
func hostInto(req *request, groups []poolGroup, host, ii, birth int, room int64, cands []*Buffer) []poolGroup {
	load := newMaxTree(birth)
	taken := make([]bool, len(req.buffers))
	took := false
	for _, b := range cands {
		n := AlignUp(b.hint, req.align)
		if load.max(b.Begin, b.End)+n > room {
			continue
		}
		load.add(b.Begin, b.End, n)
		taken[b.ID], took = true, true
	}
	if !took {
		return nil
	}
	out := slices.Clone(groups)
	var rest []*Buffer
	hosted := slices.Clone(out[host].buffers)
	for _, b := range out[ii].buffers {
		if taken[b.ID] {
			hosted = append(hosted, b)
		} else {
			rest = append(rest, b)
		}
	}
	out[host] = poolGroup{out[host].device, hosted}
	out[ii] = poolGroup{out[ii].device, rest}
	return out
}

func hasOutput(g poolGroup) bool {
	for _, b := range g.buffers {
		if b.Output {
			return true
		}
	}
	return false
}

// estimateGroups is the peak if each group's pool had its live total as
// size, alive from its first use to its last.
func estimateGroups(req *request, groups []poolGroup) int64 {
	parts := make([]timePart, 0, len(groups))
	for _, g := range groups {
		if len(g.buffers) > 0 {
			parts = append(parts, measurePart(req, g))
		}
	}
	return estimatePeak(parts)
}

// maxTree is a segment tree over steps [0, n): add a value over a range,
// ask the largest value over a range, both in O(log n).
type maxTree struct {
	n        int
	mx, lazy []int64
}

func newMaxTree(n int) *maxTree {
	return &maxTree{n: n, mx: make([]int64, 4*n), lazy: make([]int64, 4*n)}
}

func (t *maxTree) add(lo, hi int, v int64) { t.update(1, 0, t.n, lo, min(hi, t.n), v) }

func (t *maxTree) max(lo, hi int) int64 { return t.query(1, 0, t.n, lo, min(hi, t.n)) }

func (t *maxTree) update(node, l, r, lo, hi int, v int64) {
	if hi <= l || r <= lo {
		return
	}
	if lo <= l && r <= hi {
		t.mx[node] += v
		t.lazy[node] += v
		return
	}
	m := (l + r) / 2
	t.update(2*node, l, m, lo, hi, v)
	t.update(2*node+1, m, r, lo, hi, v)
	t.mx[node] = t.lazy[node] + max(t.mx[2*node], t.mx[2*node+1])
}

func (t *maxTree) query(node, l, r, lo, hi int) int64 {
	if hi <= l || r <= lo {
		return 0
	}
	if lo <= l && r <= hi {
		return t.mx[node]
	}
	m := (l + r) / 2
	return t.lazy[node] + max(t.query(2*node, l, m, lo, hi), t.query(2*node+1, m, r, lo, hi))
}
