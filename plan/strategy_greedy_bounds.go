package plan

import (
	"encoding/binary"
	"slices"
	"sort"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// lin is an affine form c[0] + sum(c[i+1] * symbol_i), the symbols being
// the graph's, all >= their minimum >= 0 (expr.Lin: its arithmetic and
// overflow rules live in graph/expr).
type lin = expr.Lin

// span bounds an expression for every symbol value: lo <= value <= hi.
// Proofs on spans are integer arithmetic, cheap enough to run for every
// candidate gap of every buffer; ok is false when no affine bounds are known.
type span struct {
	lo, hi lin
	ok     bool
}

// exact reports whether the span pins the value down: lo and hi are equal.
func (s span) exact() bool {
	if !s.ok {
		return false
	}
	for i := range s.lo {
		if s.lo[i] != s.hi[i] {
			return false
		}
	}
	return true
}

// boundsCtx knows the symbols and their minimums.
type boundsCtx struct {
	syms  []string
	mins  []int64
	align int64
	// linear remembers expressions made from exact bounds: offsets take
	// few distinct values (multiples of a layer's sizes).
	linear map[string]expr.Expr
	key    []byte
	// Offsets and ends are made again for every order a search tries,
	// mostly the same ones: expressions get ids (equal text, equal id), and
	// sums and maxima are remembered by their operands' ids. Each is made
	// once, so what a search costs is its placements, not its expressions.
	ids    map[expr.Expr]int32 // by identity, the fast path
	byText map[string]int32
	canon  []expr.Expr // by id: the first expression of that text
	sums   map[[2]int32]expr.Expr
	maxes  map[string]expr.Expr // by the sorted ids of the operands
	idKey  []int32
	// bounds are the symbols' ranges, for dropping the arguments of a max
	// that another dominates (without them max(128*q + 128, 64*q + 64)
	// with q = (58*(5%n) + 2)//64 stays whole, as n might be 0, and nested
	// maxima grow exponentially).
	bounds expr.Bounds
	// probe is a second point of the symbols' ranges, besides the hints,
	// at which the greedy strategies evaluate sizes and offsets (nil: none).
	probe expr.Env
	// cheap skips comparing ends by their expressions in maxEnd: offsets
	// then keep ends equal to others (still correct, less tight), and
	// placing builds no expression until the pool is finished.
	cheap bool
	// sorted and keep are maxEnd's scratch.
	sorted, keep []*gbuf
}

// id is e's number: equal for expressions of equal text.
func (c *boundsCtx) id(e expr.Expr) int32 {
	if id, ok := c.ids[e]; ok {
		return id
	}
	if c.ids == nil {
		c.ids, c.byText = map[expr.Expr]int32{}, map[string]int32{}
	}
	id, ok := c.byText[e.String()]
	if !ok {
		id = int32(len(c.canon))
		c.byText[e.String()] = id
		c.canon = append(c.canon, e)
	}
	c.ids[e] = id
	return id
}

// same reports whether a and b are the same expression.
func (c *boundsCtx) same(a, b expr.Expr) bool { return a == b || c.id(a) == c.id(b) }

// sum is expr.Add(a, b), remembered by the operands' ids.
func (c *boundsCtx) sum(a, b expr.Expr) expr.Expr {
	k := [2]int32{c.id(a), c.id(b)}
	if e, ok := c.sums[k]; ok {
		return e
	}
	if c.sums == nil {
		c.sums = map[[2]int32]expr.Expr{}
	}
	e := c.canon[c.id(expr.Add(a, b))]
	c.sums[k] = e
	return e
}

// maxOf is expr.MaxIn over the bounds, remembered by the operands' ids.
func (c *boundsCtx) maxOf(xs []expr.Expr) expr.Expr {
	ids := c.idKey[:0]
	for _, x := range xs {
		ids = append(ids, c.id(x))
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	c.idKey = ids
	c.key = c.key[:0]
	for _, id := range ids {
		c.key = binary.LittleEndian.AppendUint32(c.key, uint32(id))
	}
	if e, ok := c.maxes[string(c.key)]; ok {
		return e
	}
	if c.maxes == nil {
		c.maxes = map[string]expr.Expr{}
	}
	key := string(c.key)
	e := c.canon[c.id(expr.MaxIn(c.bounds, xs...))]
	c.maxes[key] = e
	return e
}

// linearExpr is the expression of an exact bound l.
func (c *boundsCtx) linearExpr(l lin) expr.Expr {
	c.key = c.key[:0]
	for _, v := range l {
		c.key = binary.LittleEndian.AppendUint64(c.key, uint64(v))
	}
	if e, ok := c.linear[string(c.key)]; ok {
		return e
	}
	e := expr.Linear(l[0], l[1:], c.syms)
	if c.linear == nil {
		c.linear = map[string]expr.Expr{}
	}
	c.linear[string(c.key)] = e
	return e
}

func newBoundsCtx(req *request) *boundsCtx {
	c := &boundsCtx{align: req.align, bounds: req.bounds, syms: sizeSymbols(req.buffers)}
	for _, s := range c.syms {
		m := int64(0)
		if r, ok := req.bounds[s]; ok {
			m = r.Min
		}
		c.mins = append(c.mins, m)
	}
	c.probe = probePoint(req.hints, req.bounds)
	return c
}

// sizeSymbols are the symbols the buffers' sizes use, sorted: the only
// ones a span can depend on. A graph with thousands of run-time sizes
// (planned at their bounds, so in no size) would otherwise make every span
// that long, and placing quadratic in the graph.
func sizeSymbols(buffers []*Buffer) []string {
	seen := map[string]bool{}
	var syms []string
	for _, b := range buffers {
		for _, name := range b.Size.Symbols() {
			if !seen[name] {
				seen[name] = true
				syms = append(syms, name)
			}
		}
	}
	sort.Strings(syms)
	return syms
}

// probePoint is a point of the symbols' ranges other than the hints where
// it can be: each symbol about twice its hint (below it at its max), by
// different amounts so that sums of symbols differ too.
func probePoint(hints expr.Env, bounds expr.Bounds) expr.Env {
	names := make([]string, 0, len(hints))
	for name := range hints {
		names = append(names, name)
	}
	sort.Strings(names)
	env := expr.Env{}
	for i, name := range names {
		v := 2*hints[name] + 5 + 3*int64(i)
		if r, ok := bounds[name]; ok {
			if r.Max >= 0 && v > r.Max { // Max -1: none
				v = max(r.Min, r.Max-1-int64(i))
			}
			v = max(v, r.Min)
		}
		env[name] = v
	}
	return env
}

func (c *boundsCtx) zero() lin { return make(lin, len(c.syms)+1) }

func (c *boundsCtx) zeroSpan() span { return span{lo: c.zero(), hi: c.zero(), ok: true} }

// alignedSpan bounds AlignUp(size): exactly size when provably aligned,
// else [size, size + align - 1].
func (c *boundsCtx) alignedSpan(size expr.Expr) span {
	lo, ok := expr.AffineLin(size, c.syms)
	if !ok {
		return span{}
	}
	hi := append(lin(nil), lo...)
	if !expr.MultipleOf(size, c.align) {
		hi[0] += c.align - 1
	}
	return span{lo: lo, hi: hi, ok: true}
}

func addSpan(a, b span) span {
	if !a.ok || !b.ok {
		return span{}
	}
	lo, ok1 := expr.AddLin(a.lo, b.lo)
	hi, ok2 := expr.AddLin(a.hi, b.hi)
	return span{lo, hi, ok1 && ok2}
}

// spanLeq proves the value bounded by a is <= the value bounded by b.
func (c *boundsCtx) spanLeq(a, b span) bool { return a.ok && b.ok && expr.LinLeq(a.hi, b.lo, c.mins) }

// maxSpan bounds max(xs): the lower bound of any one, and the componentwise
// maximum of the upper bounds (valid because symbols are non-negative).
func maxSpan(xs []span, loFrom int) span {
	if len(xs) == 0 {
		return span{}
	}
	out := span{lo: xs[loFrom].lo, hi: append(lin(nil), xs[0].hi...), ok: true}
	for _, x := range xs {
		if !x.ok {
			return span{}
		}
		for i := range out.hi {
			out.hi[i] = max(out.hi[i], x.hi[i])
		}
	}
	return out
}
