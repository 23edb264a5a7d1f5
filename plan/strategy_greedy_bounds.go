package plan

import (
	"encoding/binary"
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
	// sums remembers offset + size: both take few distinct values.
	sums map[string]map[string]expr.Expr
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

// sum is expr.Add(a, b), remembered by the operands' canonical text.
func (c *boundsCtx) sum(a, b expr.Expr) expr.Expr {
	byB := c.sums[a.String()]
	if e, ok := byB[b.String()]; ok {
		return e
	}
	if byB == nil {
		if c.sums == nil {
			c.sums = map[string]map[string]expr.Expr{}
		}
		byB = map[string]expr.Expr{}
		c.sums[a.String()] = byB
	}
	e := expr.Add(a, b)
	byB[b.String()] = e
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
	c := &boundsCtx{align: req.align, bounds: req.bounds}
	for name := range req.hints {
		c.syms = append(c.syms, name)
	}
	sort.Strings(c.syms)
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
