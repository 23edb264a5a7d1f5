package onnx

import (
	"github.com/wrapgen/wrapgen/graph/expr"
)

// Sizes computed at run time from other sizes. GeneralizedRCNNTransform
// resizes an image to floor(h * min(320 / min(h, w), 640 / max(h, w))):
// float arithmetic (a reciprocal, a product of two sizes' floats) that
// foldFloatSizes cannot fold into an integer expression. The importer
// follows such a computation as a tree over the symbolic sizes (a
// sizeExpr per element of a small value), so that an op whose shape input
// it is (Resize's sizes) can make each computed size a run-time size
// bounded by what the tree can reach over the symbols' ranges (sizeBound).

// sizeKind is the operation of a sizeExpr node.
type sizeKind int

const (
	sizeExact sizeKind = iota // an exact integer, leaf
	sizeConst                 // a float constant, c
	sizeAdd
	sizeSub
	sizeMul
	sizeDiv
	sizeMin
	sizeMax
	sizeFloor
	sizeCeil
	sizeTrunc // a cast to an integer type
	sizeRound // Round, to the nearest integer
	sizeFloat // a rounding to a float type: the value, within its precision
	sizeData  // a value computed from tensor data, leaf: within [least, most]
)

// sizeExpr is one element of a value computed from sizes: an exact
// integer expression of the symbols, a constant, or an operation on
// others.
type sizeExpr struct {
	op    sizeKind
	exact expr.Expr
	c     float64
	args  []*sizeExpr
	// most and least bound a sizeData leaf (valueBound, valueLeast).
	most, least       expr.Expr
	hasMost, hasLeast bool
	// sym is the symbol an exact leaf is, when it is one, and isConst
	// says it is the constant c: their ranges are read without interval
	// arithmetic.
	sym     string
	isConst bool
	// neg is -exact (-least for a sizeData leaf) once negMade: eval's lower
	// bound, made once rather than at every box the bound search tries.
	neg     expr.Expr
	negMade bool
}

// negation is -exact, or -least for a sizeData leaf.
func (s *sizeExpr) negation() expr.Expr {
	if !s.negMade {
		if s.op == sizeData {
			s.neg = expr.Scale(s.least, -1)
		} else {
			s.neg = expr.Scale(s.exact, -1)
		}
		s.negMade = true
	}
	return s.neg
}

// evalCost is the work of one eval of s, in the units of maxBoundWork: a
// node each, and for a leaf whose range is an expression's bound, more by
// the expression's length (the bound is a proof over its terms).
func (s *sizeExpr) evalCost() int64 {
	n := int64(1)
	switch {
	case s.op == sizeExact && !s.isConst && s.sym == "":
		n += int64(len(s.exact.String())) / 4
	case s.op == sizeData:
		if s.hasMost {
			n += 1 + int64(len(s.most.String()))/4
		}
		if s.hasLeast {
			n += 1 + int64(len(s.least.String()))/4
		}
	}
	for _, a := range s.args {
		n += a.evalCost()
	}
	return n
}

// maxSizeElems is the most elements of a value followed as sizeExprs:
// shape computations are small.
const maxSizeElems = 64

// maxSizeNodes bounds a sizeExpr's nodes, so that evaluating it stays cheap.
const maxSizeNodes = 256

func exactSize(e expr.Expr) *sizeExpr {
	s := &sizeExpr{op: sizeExact, exact: e}
	if v, ok := e.IsConst(); ok && v <= 1<<53 && v >= -(1<<53) {
		s.isConst, s.c = true, float64(v)
	} else if syms := e.Symbols(); len(syms) == 1 && expr.Equal(e, expr.Sym(syms[0])) {
		s.sym = syms[0]
	}
	return s
}

func (s *sizeExpr) nodes() int {
	n := 1
	for _, a := range s.args {
		n += a.nodes()
	}
	return n
}

// symbols are the symbols the exact leaves of s use, each once.
func (s *sizeExpr) symbols() []string {
	seen := map[string]bool{}
	var out []string
	var walk func(*sizeExpr)
	walk = func(s *sizeExpr) {
		var es []expr.Expr
		switch {
		case s.op == sizeExact:
			es = append(es, s.exact)
		case s.op == sizeData:
			es = append(es, s.most, s.least)
		}
		for _, e := range es {
			for _, n := range e.Symbols() {
				if !seen[n] {
					seen[n] = true
					out = append(out, n)
				}
			}
		}
		for _, a := range s.args {
			walk(a)
		}
	}
	walk(s)
	return out
}

// sizeElems is v's elements as sizeExprs: those foldFloatSizes and
// trackSizeExprs follow, or its contents when known; false otherwise.
func sizeElems(v *value) ([]*sizeExpr, bool) {
	if v == nil {
		return nil, false
	}
	if v.sizeExprs != nil {
		return v.sizeExprs, true
	}
	if v.ratios != nil {
		out := make([]*sizeExpr, len(v.ratios))
		for i, r := range v.ratios {
			out[i] = exactSize(r.num)
			if r.den != 1 {
				out[i] = &sizeExpr{op: sizeDiv, args: []*sizeExpr{out[i], {op: sizeConst, c: float64(r.den)}}}
			}
		}
		return out, true
	}
	if !v.known && v.hasMost && numelOf(v) >= 0 && numelOf(v) <= maxSizeElems {
		// Computed from data, bounded (a box's width, clamped): the
		// same bounds for each element.
		out := make([]*sizeExpr, numelOf(v))
		for i := range out {
			out[i] = &sizeExpr{op: sizeData, most: v.most, hasMost: true, least: v.least, hasLeast: v.hasLeast}
		}
		return out, true
	}
	if !v.known || numelOf(v) > maxSizeElems {
		return nil, false
	}
	switch {
	case v.ints != nil:
		out := make([]*sizeExpr, len(v.ints))
		for i, e := range v.ints {
			out[i] = exactSize(e)
		}
		return out, true
	case v.floats != nil:
		out := make([]*sizeExpr, len(v.floats))
		for i, f := range v.floats {
			out[i] = &sizeExpr{op: sizeConst, c: f}
			if f == float64(int64(f)) && f < 1<<53 && f > -(1<<53) {
				out[i] = exactSize(expr.Const(int64(f)))
			}
		}
		return out, true
	}
	return nil, false
}

// sizeElemOps are the elementwise operations trackSizeExprs follows.
var sizeElemOps = map[string]sizeKind{
	"Add": sizeAdd, "Sub": sizeSub, "Mul": sizeMul, "Div": sizeDiv, "Min": sizeMin, "Max": sizeMax,
	"Floor": sizeFloor, "Ceil": sizeCeil, "Round": sizeRound,
}

// trackSizeExprs follows a small value computed at run time from sizes
// through node c: its output's elements as sizeExprs of its inputs'.
func (im *importer) trackSizeExprs(c *nodeCtx) {
	if len(c.outs) == 0 || c.outs[0] == nil || c.outs[0].known || c.outs[0].ratios != nil || c.n.domain != "" || len(c.ins) == 0 {
		return
	}
	out := c.outs[0]
	shape, ok := concrete(out.shape)
	if !ok || numel(shape) > maxSizeElems || out.dtype == "bool" || !isIntDType(out.dtype) && !isFloatDType(out.dtype) {
		return
	}
	n := int(numel(shape))
	isFloat := isFloatDType(out.dtype)
	var res []*sizeExpr
	op := c.n.opType
	switch op {
	case "Identity", "Reshape", "Squeeze", "Unsqueeze", "Flatten":
		xs, ok := sizeElems(c.ins[0])
		if !ok || len(xs) != n {
			return
		}
		res = xs
	case "Cast":
		xs, ok := sizeElems(c.ins[0])
		if !ok || len(xs) != n {
			return
		}
		res = make([]*sizeExpr, n)
		for i, x := range xs {
			res[i] = im.castSize(x, isFloat)
		}
	case "Concat":
		if len(shape) != 1 {
			return
		}
		for _, in := range c.ins {
			xs, ok := sizeElems(in)
			if !ok {
				return
			}
			res = append(res, xs...)
		}
	case "Gather":
		xs, ok := sizeElems(c.ins[0])
		idx := c.ins[1]
		if !ok || len(c.ins[0].shape) != 1 || !idx.known || len(idx.ints) != n {
			return
		}
		for _, e := range idx.ints {
			k, ok := e.IsConst()
			if k < 0 {
				k += int64(len(xs))
			}
			if !ok || k < 0 || k >= int64(len(xs)) {
				return
			}
			res = append(res, xs[k])
		}
	case "ReduceMin", "ReduceMax":
		xs, ok := sizeElems(c.ins[0])
		if !ok || n != 1 || len(xs) == 0 {
			return
		}
		o := sizeMin
		if op == "ReduceMax" {
			o = sizeMax
		}
		res = []*sizeExpr{{op: o, args: xs}}
		if len(xs) == 1 {
			res = xs
		}
	case "Reciprocal", "Neg", "Relu":
		xs, ok := sizeElems(c.ins[0])
		if !ok || len(xs) != n {
			return
		}
		for _, x := range xs {
			var e *sizeExpr
			switch op {
			case "Reciprocal":
				e = &sizeExpr{op: sizeDiv, args: []*sizeExpr{exactSize(expr.Const(1)), x}}
			case "Neg":
				e = &sizeExpr{op: sizeSub, args: []*sizeExpr{exactSize(expr.Const(0)), x}}
			default:
				e = &sizeExpr{op: sizeMax, args: []*sizeExpr{x, exactSize(expr.Const(0))}}
			}
			res = append(res, e)
		}
	default:
		o, ok := sizeElemOps[op]
		if !ok {
			return
		}
		var args [][]*sizeExpr
		for _, in := range c.ins {
			xs, ok := sizeElems(in)
			if !ok || len(xs) != n && len(xs) != 1 {
				return // broadcasts other than of a scalar are not followed
			}
			args = append(args, xs)
		}
		for i := range n {
			e := &sizeExpr{op: o}
			for _, xs := range args {
				e.args = append(e.args, xs[min(i, len(xs)-1)])
			}
			if o == sizeDiv && !isFloat {
				e = &sizeExpr{op: sizeTrunc, args: []*sizeExpr{e}} // integer division truncates
			}
			if isFloat && o != sizeMin && o != sizeMax && o != sizeFloor && o != sizeCeil && o != sizeRound {
				e = &sizeExpr{op: sizeFloat, args: []*sizeExpr{e}}
			}
			res = append(res, e)
		}
	}
	whole := true
	for i, e := range res {
		res[i] = im.simplifySize(e)
		if res[i].nodes() > maxSizeNodes {
			return
		}
		whole = whole && res[i].op == sizeExact
	}
	if whole {
		// Min, Max and Add of exact sizes are exact sizes: known, as
		// integers (on a float dtype too, as foldFloatSizes keeps them).
		ints := make([]expr.Expr, len(res))
		for i, e := range res {
			ints[i] = e.exact
		}
		out.known, out.ints = true, ints
		return
	}
	out.sizeExprs = res
}

// simplifySize folds the operations on exact integers whose result is an
// exact integer expression.
func (im *importer) simplifySize(e *sizeExpr) *sizeExpr {
	if e.op == sizeExact || e.op == sizeConst {
		return e
	}
	var xs []expr.Expr
	for _, a := range e.args {
		if a.op != sizeExact {
			return e
		}
		xs = append(xs, a.exact)
	}
	var r expr.Expr
	switch e.op {
	case sizeAdd:
		r = expr.Add(xs...)
	case sizeSub:
		r = expr.Sub(xs[0], xs[1])
	case sizeMul:
		r = expr.Mul(xs...)
	case sizeMin:
		r = expr.Min(xs...)
	case sizeMax:
		r = expr.MaxIn(im.bounds, xs...)
	case sizeFloor, sizeCeil, sizeRound, sizeTrunc:
		r = xs[0]
	case sizeFloat:
		if !expr.LessEq(xs[0], expr.Const(1<<24), im.bounds) || !expr.LessEq(expr.Const(-(1<<24)), xs[0], im.bounds) {
			return e
		}
		r = xs[0]
	default:
		return e
	}
	if r.Overflowed() {
		return e
	}
	return exactSize(r)
}

// castSize is x cast to a float (isFloat) or an integer type: an exact
// integer small enough stays exact, other values are rounded or truncated.
func (im *importer) castSize(x *sizeExpr, isFloat bool) *sizeExpr {
	if x.op == sizeExact {
		if !isFloat || expr.LessEq(x.exact, expr.Const(1<<24), im.bounds) && expr.LessEq(expr.Const(-(1<<24)), x.exact, im.bounds) {
			return x
		}
	}
	if isFloat {
		return &sizeExpr{op: sizeFloat, args: []*sizeExpr{x}}
	}
	return &sizeExpr{op: sizeTrunc, args: []*sizeExpr{x}}
}

// fromData reports whether s uses a value computed from tensor data.
func (s *sizeExpr) fromData() bool {
	if s.op == sizeData {
		return true
	}
	for _, a := range s.args {
		if a.fromData() {
			return true
		}
	}
	return false
}
