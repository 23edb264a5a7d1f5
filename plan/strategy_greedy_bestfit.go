package plan

import (
	"cmp"
	"slices"
	"sort"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// This file is the offset calculation shared by the greedy strategies
// (TFLite's GreedyMemoryPlanner, XLA's GlobalDecreasingSizeBestFitHeap):
// buffers are placed one by one in a given order; each goes into the
// smallest gap between the buffers already placed that are live at the same
// time, or above all of them. A gap is used only when it is proven to fit for
// every symbol value, so a plan made at the hints stays valid at any size.

// gbuf is a buffer being placed in one pool.
type gbuf struct {
	b          *Buffer
	size       expr.Expr // aligned size
	sizeBounds span      // bounds of size
	hint       int64     // size at the hints
	sizeKey    int32     // equal for equal size expressions
	// probe is the size at a second point of the symbols' ranges (-1:
	// unknown): ends that differ there cannot have equal expressions, which
	// maxEnd then need not build to compare.
	probe int64
	// conflicts are the pool's other buffers live at the same time.
	conflicts []int32

	placed bool
	// The offset is the largest end of offFrom (0 when it is empty). Its
	// expression is built only when asked for: most placements tried are
	// thrown away, and building expressions was most of their cost.
	offFrom   []*gbuf
	offBounds span
	offHint   int64
	offProbe  int64 // the offset at the probe point; -1: unknown
	endBounds span
	built     bool
	off       expr.Expr
	end       expr.Expr // off + size
}

func (gb *gbuf) endHint() int64 { return gb.offHint + gb.hint }

// endProbe is the end at the probe point, -1 when unknown.
func (gb *gbuf) endProbe() int64 {
	if gb.probe < 0 || gb.offProbe < 0 {
		return -1
	}
	return gb.offProbe + gb.probe
}

func (gb *gbuf) setOffset(from []*gbuf, b span, hint, probe int64) {
	gb.offFrom, gb.offBounds, gb.offHint, gb.offProbe = from, b, hint, probe
	gb.built, gb.off, gb.end = false, expr.Expr{}, expr.Expr{}
	gb.endBounds = addSpan(b, gb.sizeBounds)
}

func (gb *gbuf) offExpr(ctx *boundsCtx) expr.Expr { gb.build(ctx); return gb.off }
func (gb *gbuf) endExpr(ctx *boundsCtx) expr.Expr { gb.build(ctx); return gb.end }

// build makes the offset and end expressions of gb and of the buffers they
// depend on, with an explicit stack: chains of offsets can be as long as
// the pool has buffers.
func (gb *gbuf) build(ctx *boundsCtx) {
	stack := []*gbuf{gb}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		if x.built {
			stack = stack[:len(stack)-1]
			continue
		}
		pending := false
		for _, src := range x.offFrom {
			if !src.built {
				stack, pending = append(stack, src), true
			}
		}
		if pending {
			continue
		}
		stack = stack[:len(stack)-1]
		switch {
		case len(x.offFrom) == 0:
			x.off = expr.Const(0)
		case x.offBounds.exact():
			// Bounds that pin the value down are the expression itself,
			// made without the general sum and max.
			x.off = ctx.linearExpr(x.offBounds.lo)
		case len(x.offFrom) == 1:
			x.off = x.offFrom[0].end
		default:
			ends := make([]expr.Expr, len(x.offFrom))
			for i, src := range x.offFrom {
				ends[i] = src.end
			}
			x.off = ctx.maxOf(ends)
		}
		if x.endBounds.exact() {
			x.end = ctx.linearExpr(x.endBounds.lo)
		} else {
			x.end = ctx.sum(x.off, x.size)
		}
		x.built = true
	}
}

// poolProblem is the buffers of one pool with their time conflicts,
// computed once and shared by every order tried.
type poolProblem struct {
	ctx  *boundsCtx
	bufs []*gbuf
	// loadHint is the pool's own lower bound at the hints: the largest total
	// of aligned live bytes at any step.
	loadHint int64
}

func newPoolProblem(ctx *boundsCtx, buffers []*Buffer, hints expr.Env) *poolProblem {
	pp := &poolProblem{ctx: ctx}
	type aligned struct {
		size       expr.Expr
		sizeBounds span
		key        int32
	}
	seen := map[string]aligned{} // sizes repeat: a layer's shapes recur in every layer
	for _, b := range buffers {
		a, ok := seen[b.Size.String()]
		if !ok {
			a = aligned{expr.AlignUp(b.Size, ctx.align), ctx.alignedSpan(b.Size), int32(len(seen))}
			seen[b.Size.String()] = a
		}
		probe := int64(-1)
		if ctx.probe != nil {
			if n, err := b.Size.Eval(ctx.probe); err == nil && n >= 0 {
				probe = AlignUp(n, ctx.align)
			}
		}
		pp.bufs = append(pp.bufs, &gbuf{b: b, size: a.size, sizeBounds: a.sizeBounds, sizeKey: a.key, hint: AlignUp(b.hint, ctx.align), probe: probe})
	}
	pp.findConflicts()
	return pp
}

// findConflicts sweeps the buffers by begin, keeping the live ones; each new
// buffer conflicts with every live one. Buffers of constant size zero
// conflict with nothing. Cost is linear in the number of conflicts.
func (pp *poolProblem) findConflicts() {
	idx := make([]int32, 0, len(pp.bufs))
	for i, gb := range pp.bufs {
		if c, ok := gb.b.Size.IsConst(); ok && c == 0 {
			continue
		}
		idx = append(idx, int32(i))
	}
	sort.SliceStable(idx, func(a, b int) bool { return pp.bufs[idx[a]].b.Begin < pp.bufs[idx[b]].b.Begin })
	var live []int32
	var evs []event
	for _, i := range idx {
		gb := pp.bufs[i]
		evs = append(evs, event{gb.b.Begin, gb.hint}, event{gb.b.End, -gb.hint})
		keep := live[:0]
		for _, j := range live {
			if pp.bufs[j].b.End > gb.b.Begin {
				keep = append(keep, j)
			}
		}
		live = keep
		for _, j := range live {
			pp.bufs[j].conflicts = append(pp.bufs[j].conflicts, i)
			gb.conflicts = append(gb.conflicts, j)
		}
		live = append(live, i)
	}
	pp.loadHint = maxLive(evs)
}

// place runs the greedy offset calculation in the given order and returns
// the pool's size at the hints and the position in order of the first
// buffer reaching it.
func (pp *poolProblem) place(order []int32) (size int64, topPos int) {
	for _, gb := range pp.bufs {
		gb.placed = false
	}
	var scratch []*gbuf
	for k, i := range order {
		gb := pp.bufs[i]
		scratch = pp.placeOne(gb, scratch[:0])
		if gb.endHint() > size {
			size, topPos = gb.endHint(), k
		}
	}
	return size, topPos
}

func (pp *poolProblem) placeOne(gb *gbuf, placed []*gbuf) []*gbuf {
	for _, j := range gb.conflicts {
		if x := pp.bufs[j]; x.placed {
			placed = append(placed, x)
		}
	}
	slices.SortFunc(placed, func(a, b *gbuf) int {
		if c := cmp.Compare(a.offHint, b.offHint); c != 0 {
			return c
		}
		return cmp.Compare(a.b.ID, b.b.ID)
	})
	gb.placed = true
	// Best fit: the smallest gap at the hints that is proven to fit.
	var best *gbuf // the buffer whose end starts the gap; nil is offset 0
	bestGap := int64(-1)
	found := false
	var below *gbuf
	var topHint int64
	for k := 0; k <= len(placed); k++ {
		next := int64(1 << 62)
		if k < len(placed) {
			next = placed[k].offHint
		}
		if gap := next - topHint; gap >= gb.hint && k < len(placed) && (!found || gap < bestGap) {
			if pp.fitsAt(gb, below, placed) {
				best, bestGap, found = below, gap, true
			}
		}
		if k < len(placed) && placed[k].endHint() > topHint {
			topHint, below = placed[k].endHint(), placed[k]
		}
	}
	switch {
	case found && best == nil:
		gb.setOffset(nil, pp.ctx.zeroSpan(), 0, 0)
	case found:
		gb.setOffset([]*gbuf{best}, best.endBounds, best.endHint(), best.endProbe())
	default:
		pp.placeAbove(gb, placed)
	}
	return placed
}

// fitsAt proves that gb placed at the end of below (or at 0) overlaps no
// placed conflict for any symbol value: each ends before it or starts after.
func (pp *poolProblem) fitsAt(gb *gbuf, below *gbuf, placed []*gbuf) bool {
	start := pp.ctx.zeroSpan()
	if below != nil {
		start = below.endBounds
	}
	end := addSpan(start, gb.sizeBounds)
	if !end.ok {
		return false
	}
	for _, x := range placed {
		if x == below {
			continue
		}
		if !pp.ctx.spanLeq(x.endBounds, start) && !pp.ctx.spanLeq(end, x.offBounds) {
			return false
		}
	}
	return true
}

// placeAbove puts gb at the maximum end of its placed conflicts: correct for
// every symbol value by construction.
func (pp *poolProblem) placeAbove(gb *gbuf, placed []*gbuf) {
	if len(placed) == 0 {
		gb.setOffset(nil, pp.ctx.zeroSpan(), 0, 0)
		return
	}
	gb.setOffset(maxEnd(pp.ctx, placed))
}

// maxEnd is the buffers of xs whose ends make up the largest end, its bounds
// and its values at the hints and at the probe point (-1: unknown). Ends
// provably below a kept one are dropped; taking them largest first keeps
// this linear in practice.
func maxEnd(ctx *boundsCtx, xs []*gbuf) ([]*gbuf, span, int64, int64) {
	// Scratch slices of ctx: maxEnd runs for most buffers of every
	// placement tried, and allocating was much of its cost.
	sorted := append(ctx.sorted[:0], xs...)
	slices.SortStableFunc(sorted, func(a, b *gbuf) int { return cmp.Compare(b.endHint(), a.endHint()) })
	keep := ctx.keep[:0]
	defer func() { ctx.sorted, ctx.keep = sorted[:0], keep[:0] }()
	for _, x := range sorted {
		dominated := false
		for _, y := range keep {
			if ctx.spanLeq(x.endBounds, y.endBounds) || (!ctx.cheap && !(x.endBounds.exact() && y.endBounds.exact()) && sameValues(x, y) && (sameMake(x, y) || ctx.same(x.endExpr(ctx), y.endExpr(ctx)))) {
				// Equal expressions with exact bounds have equal bounds, which
				// spanLeq already proved; only inexact ones need the text, and
				// only when their values at the hints and the probe agree.
				dominated = true
				break
			}
		}
		if !dominated {
			keep = append(keep, x)
		}
	}
	hint := sorted[0].endHint()
	probe := int64(0)
	for _, x := range keep {
		if x.endProbe() < 0 {
			probe = -1
			break
		}
		probe = max(probe, x.endProbe())
	}
	out := append([]*gbuf(nil), keep...) // kept as the offset's sources
	if len(out) == 1 {
		return out, out[0].endBounds, hint, probe
	}
	spans := make([]span, len(out))
	for i, x := range out {
		spans[i] = x.endBounds
	}
	return out, maxSpan(spans, 0), hint, probe
}

// sameMake reports whether x's and y's ends are made the same way, so are
// the same expression: the same size, above the same buffers.
func sameMake(x, y *gbuf) bool {
	if x.sizeKey != y.sizeKey || len(x.offFrom) != len(y.offFrom) {
		return false
	}
	for i := range x.offFrom {
		if x.offFrom[i] != y.offFrom[i] {
			return false
		}
	}
	return true
}

// sameValues reports whether x's and y's ends may be the same expression:
// equal expressions have equal values at the hints and at the probe point.
func sameValues(x, y *gbuf) bool {
	if x.endHint() != y.endHint() {
		return false
	}
	px, py := x.endProbe(), y.endProbe()
	return px < 0 || py < 0 || px == py
}

// finish puts the buffers in pool at their offsets and sets its size.
func (pp *poolProblem) finish(pool *Pool, placed *placement) {
	var nonEmpty []*gbuf
	for _, gb := range pp.bufs {
		if !gb.placed {
			gb.setOffset(nil, pp.ctx.zeroSpan(), 0, 0)
		}
		placed.put(gb.b, pool, gb.offExpr(pp.ctx))
		if c, ok := gb.b.Size.IsConst(); !(ok && c == 0) {
			nonEmpty = append(nonEmpty, gb)
		}
	}
	if len(nonEmpty) == 0 {
		pool.Size = expr.Const(0)
		return
	}
	// The pool holds every end; unaligned last sizes need no padding, but
	// aligned ones keep the pool a multiple of the alignment.
	tops, topB, _, _ := maxEnd(pp.ctx, nonEmpty)
	top := &gbuf{offFrom: tops, offBounds: topB}
	pool.Size = top.offExpr(pp.ctx)
}
