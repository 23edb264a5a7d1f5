package onnx

import (
	"fmt"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// Shape inputs computed at run time from sizes (or bounded data), as
// Resize's sizes are (resizeToRunTimeSizes): ConstantOfShape's shape and
// Expand's target. Each element that is no exact expression is a run-time
// size, the part above its least value, bounded over the symbols' ranges;
// the kernel, <Op>ToSizes<N>, reads the shape from its input, writes the
// output row-major at it, and reports each run-time size less its least
// (attributes axes and least), one i64 output each.

// noteInexact notes why the shape input v, computed in float from sizes,
// did not fold (so a run-time size stands for it), when foldFloatSizes
// says: a -max that would fold it.
func (c *nodeCtx) noteInexact(v *value) {
	if v.inexact != "" {
		c.im.noteOnce("", fmt.Sprintf("%q is a shape computed at run time: %s", v.name, v.inexact))
	}
}

// runTimeDim is the size of an output axis given by a computed element
// e: its exact expression, or a new run-time size above its least value
// (rangeOf's, sizeRange when nil), appended to reported and least. The
// run-time size is the part above the least so that shapes computed from
// it (a stride, image size // feature size) are seen to stay positive.
func (c *nodeCtx) runTimeDim(e *sizeExpr, axis int, what string, rangeOf func(*sizeExpr) (int64, int64, error), reported, least *[]int64) (expr.Expr, error) {
	if e.op == sizeExact {
		if !expr.NonNeg(e.exact, c.im.bounds) {
			return expr.Expr{}, unsup("%s %s may be negative", what, e.exact)
		}
		return e.exact, nil
	}
	if rangeOf == nil {
		rangeOf = c.im.sizeRange
	}
	lo, hi, err := rangeOf(e)
	if err != nil {
		return expr.Expr{}, unsup("%s on axis %d is computed at run time, and %v", what, axis, err)
	}
	lo = max(lo, 0)
	s, err := c.runTimeSize(expr.Const(max(hi-lo, 0)))
	if err != nil {
		return expr.Expr{}, err
	}
	c.im.runTimeFrom[s.Symbols()[0]] = e.symbols()
	*reported = append(*reported, int64(axis))
	*least = append(*least, lo)
	return expr.Add(expr.Const(lo), s), nil
}

// constantOfShapeToSizes is ConstantOfShape of a shape computed at run
// time (elems), filled with fill of dtype d.
func constantOfShapeToSizes(c *nodeCtx, elems []*sizeExpr, d graph.DType, fill float64) error {
	var reported, least []int64
	shape := make([]expr.Expr, len(elems))
	for k, e := range elems {
		var err error
		if shape[k], err = c.runTimeDim(e, k, "the size", nil, &reported, &least); err != nil {
			return err
		}
	}
	c.noteInexact(c.input(0))
	c.kernel = fmt.Sprintf("ConstantOfShapeToSizes%d", len(reported))
	c.emitFloat("value", fill)
	c.emitInts("axes", reported)
	c.emitInts("least", least)
	c.setOut(0, d, shape)
	return nil
}

// expandToSizes is Expand of x to a target computed at run time (elems):
// the shapes broadcast, so an axis where x has a size other than 1 keeps
// it (the kernel checks that the target allows it), and one where x has
// size 1 or no axis takes the target's, a run-time size unless exact.
func expandToSizes(c *nodeCtx, elems []*sizeExpr) error {
	x := c.input(0)
	r := max(len(x.shape), len(elems))
	var reported, least []int64
	shape := make([]expr.Expr, r)
	for k := range r {
		var xd *expr.Expr
		if i := k - (r - len(x.shape)); i >= 0 {
			xd = &x.shape[i]
		}
		var e *sizeExpr
		if i := k - (r - len(elems)); i >= 0 {
			e = elems[i]
		}
		switch {
		case e == nil:
			shape[k] = *xd
		case e.op == sizeExact && (xd == nil || isOne(*xd)):
			if !expr.NonNeg(e.exact, c.im.bounds) {
				return unsup("the target's size %s may be negative", e.exact)
			}
			shape[k] = e.exact
		case e.op == sizeExact:
			if !isOne(e.exact) && !expr.Equal(e.exact, *xd) {
				return unsup("Expand of %s to a size %s on axis %d, which may differ from %s", shapeText(x.shape), e.exact, k, *xd)
			}
			shape[k] = *xd
		case xd != nil && !isOne(*xd):
			if _, ok := xd.IsConst(); !ok && !expr.LessEq(expr.Const(2), *xd, c.im.bounds) {
				return unsup("Expand of %s to a shape computed at run time: its size %s on axis %d may be 1 or not", shapeText(x.shape), *xd, k)
			}
			shape[k] = *xd // the target's size must be 1 or this one
		default:
			var err error
			if shape[k], err = c.runTimeDim(e, k, "the target's size", nil, &reported, &least); err != nil {
				return err
			}
		}
	}
	c.noteInexact(c.input(1))
	c.kernel = fmt.Sprintf("ExpandToSizes%d", len(reported))
	c.emitInts("axes", reported)
	c.emitInts("least", least)
	c.setOut(0, x.dtype, shape)
	return nil
}

func isOne(e expr.Expr) bool {
	v, ok := e.IsConst()
	return ok && v == 1
}
