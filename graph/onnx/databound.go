package onnx

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/wrapgen/wrapgen/graph"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// Upper bounds of values computed from tensor data. A size the data
// decides (a Range whose limit is torch.max(lengths)) is a run-time size,
// and the plan needs its bound: what the computation can reach. Each value
// computed at run time may carry one, proven from how it is computed: a
// constant or a shape it is clamped by (Min, Clip), carried through the
// ops that only move, select or reduce elements to their largest (Cast,
// Reshape, Gather, ReduceMax, Max...). A graph input has none: nothing in
// the model bounds its data.

// valueBound is an upper bound of every element of v, or false when none
// is proven.
func (im *importer) valueBound(v *value) (expr.Expr, bool) {
	if v == nil {
		return expr.Expr{}, false
	}
	if v.hasMost {
		return v.most, true
	}
	if !v.known {
		return expr.Expr{}, false
	}
	switch {
	case v.ints != nil:
		if len(v.ints) == 0 {
			return expr.Expr{}, false
		}
		return expr.MaxIn(im.bounds, v.ints...), true
	case v.floats != nil:
		if len(v.floats) == 0 {
			return expr.Expr{}, false
		}
		hi := math.Inf(-1)
		for _, f := range v.floats {
			if f != f {
				return expr.Expr{}, false // NaN bounds nothing
			}
			hi = max(hi, f)
		}
		if hi > 1<<53 || hi < -(1<<53) {
			return expr.Expr{}, false
		}
		return expr.Const(int64(math.Ceil(hi))), true
	}
	return expr.Expr{}, false
}

// valueLeast is a lower bound of every element of v (an integer), or
// false when none is proven.
func (im *importer) valueLeast(v *value) (expr.Expr, bool) {
	if v == nil {
		return expr.Expr{}, false
	}
	if v.hasLeast {
		return v.least, true
	}
	if !v.known {
		return expr.Expr{}, false
	}
	switch {
	case v.ints != nil:
		if len(v.ints) == 0 {
			return expr.Expr{}, false
		}
		lo := v.ints[0]
		for _, e := range v.ints[1:] {
			lo = expr.Min(lo, e)
		}
		return lo, true
	case v.floats != nil:
		if len(v.floats) == 0 {
			return expr.Expr{}, false
		}
		lo := math.Inf(1)
		for _, f := range v.floats {
			if f != f {
				return expr.Expr{}, false
			}
			lo = min(lo, f)
		}
		if lo > 1<<53 || lo < -(1<<53) {
			return expr.Expr{}, false
		}
		return expr.Const(int64(math.Floor(lo))), true
	}
	return expr.Expr{}, false
}

// trackLeast sets the lower bound of c's output computed at run time from
// its inputs', where the op's meaning proves one: what keeps a box's
// width at least 1 (widths.clamp(min=1)) or a coordinate at least 0
// (torch.max(x, 0)) through the ops after it.
func (im *importer) trackLeast(c *nodeCtx) {
	out := c.outs[0]
	least := func(i int) (expr.Expr, bool) {
		if i >= len(c.ins) {
			return expr.Expr{}, false
		}
		return im.valueLeast(c.ins[i])
	}
	set := func(e expr.Expr) {
		if !e.Overflowed() {
			out.least, out.hasLeast = e, true
		}
	}
	switch op := c.n.opType; {
	case boundedOps[op] && op != "ReduceMax":
		// Each moves or selects elements, or rounds them: a truncation
		// or rounding of x >= L is at least floor(L) = L, an integer.
		if l, ok := least(0); ok && (op != "Cast" || castKeepsBound(c.ins[0].dtype, out.dtype, expr.Scale(l, -1), im.bounds) && castKeepsBound(c.ins[0].dtype, out.dtype, l, im.bounds)) {
			set(l)
		}
	case op == "Max":
		// The largest is above any input's bound: the largest proven.
		var ls []expr.Expr
		for i := range c.ins {
			if l, ok := least(i); ok {
				ls = append(ls, l)
			}
		}
		if len(ls) > 0 {
			set(expr.MaxIn(im.bounds, ls...))
		}
	case op == "Min" || op == "Concat" || op == "ReduceMin" || op == "Where":
		first := 0
		if op == "Where" {
			first = 1
		}
		var ls []expr.Expr
		for i := first; i < len(c.ins); i++ {
			l, ok := least(i)
			if !ok {
				return
			}
			ls = append(ls, l)
		}
		if len(ls) > 0 {
			set(expr.Min(ls...))
		}
	case op == "Relu":
		set(expr.Const(0))
	case op == "Clip":
		if l, ok := least(1); ok {
			set(l)
		}
	case op == "Add":
		a, ok1 := least(0)
		b, ok2 := least(1)
		if ok1 && ok2 {
			set(expr.Add(a, b))
		}
	case op == "Sub":
		a, ok1 := least(0)
		b, ok2 := im.valueBound(c.ins[1])
		if ok1 && ok2 {
			set(expr.Sub(a, b))
		}
	}
}

// boundedOps carry their first input's bound to their output: they move,
// select, or (ReduceMax) reduce elements to the largest, and Cast to an
// integer type truncates toward zero, which never exceeds an integer
// bound above the value (trunc(x) <= ceil(x) <= B). Ceil and Floor keep an
// integer bound too.
var boundedOps = map[string]bool{
	"Cast": true, "Identity": true, "Reshape": true, "Unsqueeze": true, "Squeeze": true,
	"Flatten": true, "Expand": true, "Transpose": true, "Gather": true, "GatherElements": true,
	"GatherND": true, "Slice": true, "ReduceMax": true, "Tile": true, "Ceil": true, "Floor": true,
	"Round": true,
}

// trackBound sets the bounds of c's outputs computed at run time from the
// bounds of its inputs, where the op's meaning proves one.
func (im *importer) trackBound(c *nodeCtx) {
	if len(c.outs) == 0 || c.outs[0] == nil || c.outs[0].known || c.n.domain != "" {
		return
	}
	out := c.outs[0]
	if !isIntDType(out.dtype) && !isFloatDType(out.dtype) && out.dtype != "f16" {
		return
	}
	if out.dtype == "bool" {
		return
	}
	bound := func(i int) (expr.Expr, bool) {
		if i >= len(c.ins) {
			return expr.Expr{}, false
		}
		return im.valueBound(c.ins[i])
	}
	set := func(e expr.Expr) {
		if !e.Overflowed() {
			out.most, out.hasMost = e, true
		}
	}
	im.trackLeast(c)
	op := c.n.opType
	switch {
	case boundedOps[op]:
		b, ok := bound(0)
		if !ok || op == "Cast" && !castKeepsBound(c.ins[0].dtype, out.dtype, b, im.bounds) {
			return
		}
		set(b)
	case op == "Min":
		// The smallest is below any input's bound: the tightest proven.
		var bs []expr.Expr
		for i := range c.ins {
			if b, ok := bound(i); ok {
				bs = append(bs, b)
			}
		}
		if len(bs) > 0 {
			set(expr.Min(bs...))
		}
	case op == "Max" || op == "Concat" || op == "Sum":
		var bs []expr.Expr
		for i := range c.ins {
			b, ok := bound(i)
			if !ok {
				return
			}
			bs = append(bs, b)
		}
		if op == "Sum" {
			set(expr.Add(bs...))
		} else {
			set(expr.MaxIn(im.bounds, bs...))
		}
	case op == "Add":
		a, ok1 := bound(0)
		b, ok2 := bound(1)
		if ok1 && ok2 {
			set(expr.Add(a, b))
		}
	case op == "Sub":
		// A box's width: its right edge, clipped to the image, less its
		// left edge, at least 0.
		a, ok1 := bound(0)
		b, ok2 := im.valueLeast(c.ins[1])
		if ok1 && ok2 {
			set(expr.Sub(a, b))
		}
	case op == "Clip":
		// Clip's max input clamps; without one the input's bound holds.
		if b, ok := bound(2); ok {
			if a, ok := bound(0); ok {
				b = expr.Min(a, b)
			}
			set(b)
		} else if a, ok := bound(0); ok {
			set(a)
		}
	case op == "Relu":
		if a, ok := bound(0); ok {
			set(expr.MaxIn(im.bounds, a, expr.Const(0)))
		}
	case op == "Where":
		a, ok1 := bound(1)
		b, ok2 := bound(2)
		if ok1 && ok2 {
			set(expr.MaxIn(im.bounds, a, b))
		}
	}
}

// rangeOfData is a Range whose limit is computed from tensor data
// (torch.arange(torch.max(lengths))): its length is a run-time size,
// bounded by what the limit can reach (valueBound), or by -max on the
// size's symbol when nothing in the model bounds it. Start and delta must
// be known at import time; the limit is the kernel's input.
//
// With delta 1 or -1 and the limit on its side of start, the limit is
// start + delta*length exactly: later shape computations that use it (the
// mask's Expand to [batch, max(lengths)]) see that size. The kernel
// refuses a limit on the other side (PyTorch's arange refuses it too),
// since the import relies on it (attribute exact).
func rangeOfData(c *nodeCtx) error {
	im := c.im
	start, limit, delta := c.input(0), c.input(1), c.input(2)
	for i, v := range []*value{start, delta} {
		if !v.known {
			return unsup("input %d %q of Range is computed from tensor data at run time (wrapgen imports a Range whose limit only is)", 2*i, v.name)
		}
	}
	if !isIntDType(limit.dtype) || limit.dtype == "bool" {
		return unsup("input 1 %q of Range is computed from tensor data at run time (wrapgen imports such a limit of an integer type, not %s)", limit.name, limit.dtype)
	}
	if len(start.ints) != 1 || len(delta.ints) != 1 {
		return fmt.Errorf("Range inputs must be scalars")
	}
	if s, ok := concrete(limit.shape); !ok || numel(s) != 1 {
		return fmt.Errorf("Range's limit %q has shape %s, want a scalar", limit.name, shapeText(limit.shape))
	}
	s0 := start.ints[0]
	d, ok := delta.ints[0].IsConst()
	if !ok || d == 0 {
		return unsup("Range with a symbolic or zero delta")
	}
	if d < 0 {
		return unsup("input 1 %q of Range is computed from tensor data at run time (wrapgen imports such a limit with a positive delta only, not %d)", limit.name, d)
	}
	name := im.nextRunTimeName("range")
	var bound expr.Expr
	if b, ok := im.valueBound(limit); ok {
		bound, _ = expr.FloorDiv(expr.Add(expr.Sub(b, s0), expr.Const(d-1)), expr.Const(d))
		bound = expr.MaxIn(im.bounds, bound, expr.Const(0))
	} else if most, given := im.opts.Max[name]; given {
		bound = expr.Const(most)
	} else {
		// Unbounded for now: later shapes may require it to equal a size
		// (unifyRunTime); else the import fails at its end.
		bound = expr.Sym(name)
		im.unbounded[name] = unboundedSize{
			place: fmt.Sprintf("nodes[%d] (op %q, name %q)", c.index, c.n.opType, c.n.name),
			msg:   fmt.Sprintf("unsupported: the length of Range, a size its limit %q sets at run time from tensor data, has no bound: nothing in the model bounds the limit (it comes from a graph input's values, not clamped by Min or Clip with a size), and no later shape requires it to equal a size; give the size %s a bound with -max %s=N", limit.name, name, name),
		}
	}
	n, err := c.runTimeSize(bound)
	if err != nil {
		return err
	}
	c.attrInputs[0], c.attrInputs[2] = true, true
	c.emitExpr("start", s0)
	c.emitInt("delta", d)
	c.emitBool("exact", d == 1)
	c.setOut(0, limit.dtype, []expr.Expr{n})
	if d == 1 {
		// The kernel refuses limit < start: limit = start + n from here on.
		exact := expr.Add(s0, n)
		limit.known, limit.ints, limit.hasMost = true, []expr.Expr{exact}, false
		if src := im.castSource(limit); src != nil {
			src.known, src.ints, src.hasMost = true, []expr.Expr{exact}, false
		}
	}
	return nil
}

// castSource is the integer value a Cast between integer types made v
// from (the same number), or nil.
func (im *importer) castSource(v *value) *value {
	if v.node < 0 || v.node >= len(im.m.graph.nodes) {
		return nil
	}
	n := im.m.graph.nodes[v.node]
	if n.opType != "Cast" || len(n.outputs) == 0 || n.outputs[0] != v.name || len(n.inputs) == 0 {
		return nil
	}
	src := im.vals[n.inputs[0]]
	if src == nil || src.known || !isIntDType(src.dtype) || src.dtype == "bool" {
		return nil
	}
	return src
}

// unboundedSize is a run-time size without a bound yet, and the error
// that reports it if the import ends so.
type unboundedSize struct{ place, msg string }

// checkBounded reports the run-time sizes still without a bound.
func (im *importer) checkBounded() error {
	var problems graph.ErrorList
	for _, name := range slices.Sorted(maps.Keys(im.unbounded)) {
		u := im.unbounded[name]
		problems = append(problems, graph.ErrorList{{File: im.file, Place: u.place, Msg: u.msg}}...)
	}
	if len(problems) > 0 {
		return problems
	}
	return nil
}

// castKeepsBound reports whether a Cast from one dtype to another keeps an
// upper bound b of the values: to i64 from integers or floats (truncation
// stays below an integer bound), to a float while b is one it holds
// exactly (rounding never passes a representable bound). Narrowing and
// unsigned targets, which wrap, do not.
func castKeepsBound(from, to graph.DType, b expr.Expr, bounds expr.Bounds) bool {
	fromOK := isFloatDType(from) || isIntDType(from) && from != "bool"
	switch to {
	case "i64":
		return fromOK
	case "f32":
		return fromOK && expr.LessEq(b, expr.Const(1<<24), bounds)
	case "f64":
		return fromOK && expr.LessEq(b, expr.Const(1<<53), bounds)
	}
	return from == to
}
