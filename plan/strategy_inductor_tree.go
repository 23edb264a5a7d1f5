package plan

import (
	"slices"
	"sort"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// This file ports the allocation tree of PyTorch Inductor's
// memory_planning.py: Allocation, Empty, TemporalSplit and SpatialSplit.
// The decisions (which block goes where) must stay exactly Inductor's planner's; the
// sizes and offsets it produces are symbolic.

// liveRange is [begin, end) in timesteps.
type liveRange struct{ begin, end int }

// liveRanges is sorted and non-overlapping; ranges that touch are merged.
type liveRanges []liveRange

// mergeRanges is the union of lists that are each already
// liveRanges (sorted, non-overlapping): merged pairwise, O(n log k), instead
// of sorting everything again each time a cache is rebuilt.
func mergeRanges(lists []liveRanges) liveRanges {
	var nonEmpty []liveRanges
	for _, l := range lists {
		if len(l) > 0 {
			nonEmpty = append(nonEmpty, l)
		}
	}
	switch len(nonEmpty) {
	case 0:
		return nil
	case 1:
		return slices.Clone(nonEmpty[0]) // each cache owns its ranges: placed updates them in place
	}
	for len(nonEmpty) > 1 {
		next := nonEmpty[:0:0]
		for i := 0; i+1 < len(nonEmpty); i += 2 {
			next = append(next, merge2(nonEmpty[i], nonEmpty[i+1]))
		}
		if len(nonEmpty)%2 == 1 {
			next = append(next, nonEmpty[len(nonEmpty)-1])
		}
		nonEmpty = next
	}
	return nonEmpty[0]
}

// merge2 merges two liveRanges, joining ranges that overlap or touch.
func merge2(a, b liveRanges) liveRanges {
	out := make(liveRanges, 0, len(a)+len(b))
	push := func(r liveRange) {
		if n := len(out); n > 0 && out[n-1].end >= r.begin {
			out[n-1].end = max(out[n-1].end, r.end)
			return
		}
		out = append(out, r)
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j == len(b) || (i < len(a) && a[i].begin <= b[j].begin) {
			push(a[i])
			i++
		} else {
			push(b[j])
			j++
		}
	}
	return out
}

func (a liveRanges) overlaps(b liveRanges) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		l, r := a[i], b[j]
		if l.begin > r.begin {
			l, r = r, l
			if l.end > r.begin {
				return true
			}
			j++
			continue
		}
		if l.end > r.begin {
			return true
		}
		i++
	}
	return false
}

type treeNode interface {
	allocate(b *allocation, isLast bool) bool
	liveRanges() liveRanges
	sizeHint() int64
	symSize() expr.Expr
	finalize(pool *inductorPool, offset expr.Expr) treeNode
	isEmpty() bool
}

type allocation struct {
	ranges liveRanges
	buf    *Buffer
	rng    liveRange
	hint   int64
	size   expr.Expr
	pool   *inductorPool
	offset expr.Expr
}

func (a *allocation) allocate(*allocation, bool) bool { return false }
func (a *allocation) liveRanges() liveRanges {
	if a.ranges == nil {
		a.ranges = liveRanges{a.rng} // kept: asked for on every placement test
	}
	return a.ranges
}
func (a *allocation) sizeHint() int64    { return a.hint }
func (a *allocation) symSize() expr.Expr { return a.size }
func (a *allocation) isEmpty() bool      { return false }
func (a *allocation) finalize(p *inductorPool, off expr.Expr) treeNode {
	a.pool, a.offset = p, off
	return a
}

// empty is free space, present only so parents' size hints come out right.
type empty struct{ hint int64 }

func (e *empty) allocate(*allocation, bool) bool            { return false }
func (e *empty) liveRanges() liveRanges                     { return nil }
func (e *empty) sizeHint() int64                            { return e.hint }
func (e *empty) symSize() expr.Expr                         { return expr.Const(0) }
func (e *empty) isEmpty() bool                              { return true }
func (e *empty) finalize(*inductorPool, expr.Expr) treeNode { return e }

// cache holds a split's derived values, cleared when a block lands below it.
type cache struct {
	ranges   liveRanges
	haveRng  bool
	hint     int64
	haveHint bool
	sym      expr.Expr
	haveSym  bool
	align    int64
}

func (c *cache) clear() { c.haveRng, c.haveHint, c.haveSym = false, false, false }

// placed updates the cache after block r landed below: sizes are
// recomputed on demand, but the live ranges are the old ones plus r (a
// placement only ever adds a leaf), so r is inserted into them instead of
// merging again from every child: the difference between quadratic work in
// sorting and a short move.
func (c *cache) placed(r liveRange) {
	c.haveHint, c.haveSym = false, false
	if c.haveRng {
		c.ranges = insertRange(c.ranges, r)
	}
}

// insertRange adds r to rs, merging ranges that overlap or touch. It changes rs,
// which must be owned by its cache (mergeRanges never returns a child's).
func insertRange(rs liveRanges, r liveRange) liveRanges {
	i := sort.Search(len(rs), func(i int) bool { return rs[i].end >= r.begin })
	j := i
	for j < len(rs) && rs[j].begin <= r.end {
		r.begin, r.end = min(r.begin, rs[j].begin), max(r.end, rs[j].end)
		j++
	}
	if j == i {
		return slices.Insert(rs, i, r)
	}
	rs[i] = r
	return append(rs[:i+1], rs[j:]...)
}

// temporalSplit holds children whose live ranges do not overlap.
type temporalSplit struct {
	cache
	children []treeNode
}

func newTemporal(align int64, children ...treeNode) *temporalSplit {
	return &temporalSplit{cache: cache{align: align}, children: children}
}

func (t *temporalSplit) allocate(b *allocation, isLast bool) bool {
	if t.tryAllocate(b, isLast) {
		t.placed(b.rng)
		return true
	}
	return false
}

func (t *temporalSplit) tryAllocate(b *allocation, isLast bool) bool {
	slot := t.sizeHint()
	size := b.sizeHint()
	if !isLast && size > slot {
		return false
	}
	live := b.liveRanges()
	var overlapping []treeNode
	for _, c := range t.children {
		if c.liveRanges().overlaps(live) {
			overlapping = append(overlapping, c)
			if len(overlapping) > 1 {
				return false
			}
		}
	}
	if len(overlapping) == 1 {
		return overlapping[0].allocate(b, isLast)
	}
	if len(t.children) == 1 && t.children[0].isEmpty() {
		t.children = t.children[:0]
	}
	switch {
	case slot == size:
		t.children = append(t.children, b)
	case slot > size:
		t.children = append(t.children, newSpatial(t.align, b, slot-size))
	default: // grow this allocation
		grown := make([]treeNode, 0, len(t.children)+1)
		for _, c := range t.children {
			grown = append(grown, newSpatial(t.align, c, size-slot))
		}
		t.children = append(grown, b)
	}
	return true
}

func (t *temporalSplit) liveRanges() liveRanges {
	if !t.haveRng {
		lists := make([]liveRanges, len(t.children))
		for i, c := range t.children {
			lists[i] = c.liveRanges()
		}
		t.ranges, t.haveRng = mergeRanges(lists), true
	}
	return t.ranges
}

func (t *temporalSplit) sizeHint() int64 {
	if !t.haveHint {
		t.hint = 0
		for _, c := range t.children {
			t.hint = max(t.hint, c.sizeHint())
		}
		t.haveHint = true
	}
	return t.hint
}

func (t *temporalSplit) symSize() expr.Expr {
	if !t.haveSym {
		if len(t.children) == 0 {
			t.sym = expr.Const(0)
		} else {
			sizes := make([]expr.Expr, len(t.children))
			for i, c := range t.children {
				sizes[i] = c.symSize()
			}
			t.sym = expr.Max(sizes...)
		}
		t.haveSym = true
	}
	return t.sym
}

func (t *temporalSplit) isEmpty() bool { return len(t.children) == 1 && t.children[0].isEmpty() }

func (t *temporalSplit) finalize(p *inductorPool, off expr.Expr) treeNode {
	for i, c := range t.children {
		t.children[i] = c.finalize(p, off)
	}
	t.clear()
	if len(t.children) == 1 {
		return t.children[0]
	}
	return t
}

// spatialSplit places right immediately after left (aligned) in memory.
type spatialSplit struct {
	cache
	left, right treeNode
}

func newSpatial(align int64, left treeNode, extra int64) *spatialSplit {
	return &spatialSplit{
		cache: cache{align: align},
		left:  newTemporal(align, left),
		right: newTemporal(align, &empty{hint: extra}),
	}
}

func (s *spatialSplit) allocate(b *allocation, isLast bool) bool {
	if s.left.allocate(b, false) || s.right.allocate(b, isLast) {
		s.placed(b.rng)
		return true
	}
	return false
}

func (s *spatialSplit) liveRanges() liveRanges {
	if !s.haveRng {
		s.ranges = mergeRanges([]liveRanges{s.left.liveRanges(), s.right.liveRanges()})
		s.haveRng = true
	}
	return s.ranges
}

func (s *spatialSplit) sizeHint() int64 {
	if !s.haveHint {
		s.hint, s.haveHint = AlignUp(s.left.sizeHint(), s.align)+s.right.sizeHint(), true
	}
	return s.hint
}

func (s *spatialSplit) symSize() expr.Expr {
	if !s.haveSym {
		s.sym, s.haveSym = expr.Add(expr.AlignUp(s.left.symSize(), s.align), s.right.symSize()), true
	}
	return s.sym
}

func (s *spatialSplit) isEmpty() bool { return false }

func (s *spatialSplit) finalize(p *inductorPool, off expr.Expr) treeNode {
	s.left = s.left.finalize(p, off)
	s.right = s.right.finalize(p, expr.Add(off, expr.AlignUp(s.left.symSize(), s.align)))
	s.clear()
	if s.right.isEmpty() {
		return s.left
	}
	return s
}
