package onnx

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// broadcast is numpy-style multidirectional broadcasting of symbolic shapes.
func (c *nodeCtx) broadcast(shapes ...[]expr.Expr) ([]expr.Expr, error) {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	out := make([]expr.Expr, rank)
	for k := range rank {
		var dim expr.Expr
		set := false
		for _, s := range shapes {
			i := k - (rank - len(s))
			if i < 0 {
				continue
			}
			d := s[i]
			if one, ok := d.IsConst(); ok && one == 1 {
				if !set {
					dim = d
				}
				continue
			}
			if !set {
				dim, set = d, true
				continue
			}
			if one, ok := dim.IsConst(); ok && one == 1 {
				dim = d
				continue
			}
			if !expr.Equal(dim, d) {
				// A run-time size the shapes require to equal a size.
				// The shapes are substituted in place: broadcast again.
				if c.im.unifyRunTime(dim, d, true) || c.im.unifyRunTime(d, dim, true) {
					return c.broadcast(shapes...)
				}
				c.narrowFor(dim, d) // holding at multiples of a size: imported again (narrow.go)
				return nil, fmt.Errorf("cannot broadcast size %s with %s at dimension %d%s", dim, d, k, c.im.unifyHint(dim, d))
			}
		}
		if dim.IsZeroValue() && !set {
			dim = expr.Const(1)
		}
		out[k] = dim
	}
	return out, nil
}

// broadcastIndex maps an output element index to an input's, for concrete
// shapes.
func broadcastIndex(outShape, inShape []int64, idx int64) int64 {
	var in, stride int64 = 0, 1
	for k := len(outShape) - 1; k >= 0; k-- {
		pos := idx % outShape[k]
		idx /= outShape[k]
		j := k - (len(outShape) - len(inShape))
		if j < 0 {
			break
		}
		if inShape[j] != 1 {
			in += pos * stride
		}
		stride *= inShape[j]
	}
	return in
}

type unaryAttr struct {
	name string
	def  float64
}

// unary is an elementwise op: output 0 has input 0's shape and dtype (or
// outDType). Its float attributes are passed with their defaults.
func unary(outDType graph.DType, attrs ...unaryAttr) rule {
	return func(c *nodeCtx) error {
		x := c.input(0)
		d := x.dtype
		if outDType != "" {
			d = outDType
		}
		for _, a := range attrs {
			c.emitFloat(a.name, c.attrFloat(a.name, a.def))
		}
		c.setOut(0, d, x.shape)
		if c.n.opType == "Neg" || c.n.opType == "Abs" || c.n.opType == "Not" {
			foldUnaryInts(c, x, d)
		}
		return nil
	}
}

func foldUnaryInts(c *nodeCtx, x *value, d graph.DType) {
	s, ok := concrete(x.shape)
	if !x.known || x.ints == nil || !ok {
		return
	}
	out := make([]expr.Expr, len(x.ints))
	for i, e := range x.ints {
		switch c.n.opType {
		case "Neg":
			out[i] = expr.Scale(e, -1)
		case "Abs":
			if !expr.NonNeg(e, c.im.bounds) {
				v, ok := e.IsConst()
				if !ok {
					return
				}
				e = expr.Const(-v)
			}
			out[i] = e
		case "Not":
			v, ok := e.IsConst()
			if !ok {
				return
			}
			out[i] = expr.Const(1 - v)
		}
	}
	c.setKnown(0, d, s, out, nil)
}

// binary ops fold integer contents; these compute one entry.
type intFold func(c *nodeCtx, a, b expr.Expr) (expr.Expr, bool)

var intFolds = map[string]intFold{
	"Add": func(_ *nodeCtx, a, b expr.Expr) (expr.Expr, bool) { return expr.Add(a, b), true },
	"Sub": func(_ *nodeCtx, a, b expr.Expr) (expr.Expr, bool) { return expr.Sub(a, b), true },
	"Mul": func(_ *nodeCtx, a, b expr.Expr) (expr.Expr, bool) { return expr.Mul(a, b), true },
	"Div": func(c *nodeCtx, a, b expr.Expr) (expr.Expr, bool) {
		// ONNX integer division truncates; it equals floor division when
		// both sides are non-negative.
		if x, ok := a.IsConst(); ok {
			if y, ok := b.IsConst(); ok && y != 0 {
				return expr.Const(x / y), true
			}
		}
		if expr.NonNeg(a, c.im.bounds) && expr.LessEq(expr.Const(1), b, c.im.bounds) {
			// An exact quotient first: RetinaNet divides its anchors'
			// count by its positions' (a sum over the feature levels)
			// to find the 9 anchors per position.
			if q, ok := exactDiv(a, b); ok {
				return q, true
			}
			return expr.FloorDiv(a, b)
		}
		return expr.Expr{}, false
	},
	"Mod": func(c *nodeCtx, a, b expr.Expr) (expr.Expr, bool) {
		if c.attrInt("fmod", 0) != 0 {
			x, ok1 := a.IsConst()
			y, ok2 := b.IsConst()
			if !ok1 || !ok2 || y == 0 {
				return expr.Expr{}, false
			}
			return expr.Const(x % y), true
		}
		return expr.Mod(a, b)
	},
	"Max":   func(_ *nodeCtx, a, b expr.Expr) (expr.Expr, bool) { return expr.Max(a, b), true },
	"Min":   func(_ *nodeCtx, a, b expr.Expr) (expr.Expr, bool) { return expr.Min(a, b), true },
	"Sum":   func(_ *nodeCtx, a, b expr.Expr) (expr.Expr, bool) { return expr.Add(a, b), true },
	"Equal": func(c *nodeCtx, a, b expr.Expr) (expr.Expr, bool) { return compare(c, a, b, "==") },
	"Less":  func(c *nodeCtx, a, b expr.Expr) (expr.Expr, bool) { return compare(c, a, b, "<") },
	"Greater": func(c *nodeCtx, a, b expr.Expr) (expr.Expr, bool) {
		return compare(c, b, a, "<")
	},
	"LessOrEqual":    func(c *nodeCtx, a, b expr.Expr) (expr.Expr, bool) { return compare(c, a, b, "<=") },
	"GreaterOrEqual": func(c *nodeCtx, a, b expr.Expr) (expr.Expr, bool) { return compare(c, b, a, "<=") },
	"And": func(_ *nodeCtx, a, b expr.Expr) (expr.Expr, bool) {
		x, ok1 := a.IsConst()
		y, ok2 := b.IsConst()
		return expr.Const(b2i(x != 0 && y != 0)), ok1 && ok2
	},
	"Or": func(_ *nodeCtx, a, b expr.Expr) (expr.Expr, bool) {
		x, ok1 := a.IsConst()
		y, ok2 := b.IsConst()
		return expr.Const(b2i(x != 0 || y != 0)), ok1 && ok2
	},
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// compare decides a relation between symbolic integers when the symbols'
// ranges prove it one way or the other.
func compare(c *nodeCtx, a, b expr.Expr, rel string) (expr.Expr, bool) {
	bd := c.im.bounds
	le := expr.LessEq(a, b, bd)
	lt := expr.LessEq(expr.Add(a, expr.Const(1)), b, bd)
	ge := expr.LessEq(b, a, bd)
	gt := expr.LessEq(expr.Add(b, expr.Const(1)), a, bd)
	switch rel {
	case "==":
		if le && ge {
			return expr.Const(1), true
		}
		if lt || gt {
			return expr.Const(0), true
		}
	case "<":
		if lt {
			return expr.Const(1), true
		}
		if ge {
			return expr.Const(0), true
		}
	case "<=":
		if le {
			return expr.Const(1), true
		}
		if gt {
			return expr.Const(0), true
		}
	}
	return expr.Expr{}, false
}

var floatFolds = map[string]func(a, b float64) float64{
	"Add": func(a, b float64) float64 { return a + b },
	"Sub": func(a, b float64) float64 { return a - b },
	"Mul": func(a, b float64) float64 { return a * b },
	"Div": func(a, b float64) float64 { return a / b },
	"Pow": math.Pow,
	"Max": math.Max,
	"Min": math.Min,
	"Sum": func(a, b float64) float64 { return a + b },
}

// nary is a broadcasting elementwise op over all its inputs (Add, Max,
// Sum, Equal…). outDType "" keeps input 0's dtype.
func nary(outDType graph.DType) rule {
	return func(c *nodeCtx) error {
		var shapes [][]expr.Expr
		for _, v := range c.ins {
			shapes = append(shapes, v.shape)
		}
		shape, err := c.broadcast(shapes...)
		if err != nil {
			return err
		}
		d := c.ins[0].dtype
		if outDType != "" {
			d = outDType
		}
		if c.n.opType == "Mod" {
			c.emitInt("fmod", c.attrInt("fmod", 0))
		}
		c.setOut(0, d, shape)
		foldNary(c, shape, d)
		return nil
	}
}

func foldNary(c *nodeCtx, shape []expr.Expr, d graph.DType) {
	outShape, ok := concrete(shape)
	if !ok {
		return
	}
	n := numel(outShape)
	if n > maxKnownElems {
		return
	}
	for _, v := range c.ins {
		if !v.known || (v.ints == nil && v.floats == nil && numelOf(v) > 0) {
			return
		}
	}
	intOp, floatOp := intFolds[c.n.opType], floatFolds[c.n.opType]
	allInts := true
	for _, v := range c.ins {
		allInts = allInts && (v.ints != nil || numelOf(v) == 0)
	}
	switch {
	case allInts && intOp != nil:
		if isFloatDType(d) && c.n.opType == "Div" {
			// A float quotient of sizes is no integer division: exact
			// quotients fold, others stay computed (trackSizeExprs).
			intOp = func(_ *nodeCtx, a, b expr.Expr) (expr.Expr, bool) { return exactDiv(a, b) }
		}
		out := make([]expr.Expr, n)
		for i := range n {
			var acc expr.Expr
			for k, v := range c.ins {
				s, _ := concrete(v.shape)
				e := v.ints[broadcastIndex(outShape, s, i)]
				if k == 0 {
					acc = e
					continue
				}
				r, ok := intOp(c, acc, e)
				if !ok {
					return
				}
				acc = r
			}
			out[i] = acc
		}
		c.setKnown(0, d, outShape, out, nil)
	case !allInts && floatOp != nil && isFloatDType(d):
		out := make([]float64, n)
		for i := range n {
			var acc float64
			for k, v := range c.ins {
				s, _ := concrete(v.shape)
				j := broadcastIndex(outShape, s, i)
				var x float64
				if v.floats != nil {
					x = v.floats[j]
				} else {
					cx, ok := v.ints[j].IsConst()
					if !ok {
						return
					}
					x = float64(cx)
				}
				if k == 0 {
					acc = x
				} else {
					acc = floatOp(acc, x)
				}
			}
			if d == "f32" {
				acc = float64(float32(acc))
			}
			out[i] = acc
		}
		c.setKnown(0, d, outShape, nil, out)
	}
}

// where is Where(cond, x, y): broadcasting over three inputs, folded when
// all three are known integers.
func where(c *nodeCtx) error {
	var vs [3]*value
	for i := range vs {
		vs[i] = c.input(i)
	}
	shape, err := c.broadcast(vs[0].shape, vs[1].shape, vs[2].shape)
	if err != nil {
		return err
	}
	c.setOut(0, vs[1].dtype, shape)
	outShape, ok := concrete(shape)
	if !ok || numel(outShape) > maxKnownElems {
		return nil
	}
	for _, v := range vs {
		if !v.known || v.ints == nil && numelOf(v) > 0 {
			return nil
		}
	}
	out := make([]expr.Expr, numel(outShape))
	s0, _ := concrete(vs[0].shape)
	s1, _ := concrete(vs[1].shape)
	s2, _ := concrete(vs[2].shape)
	for i := range out {
		cond, ok := vs[0].ints[broadcastIndex(outShape, s0, int64(i))].IsConst()
		if !ok {
			return nil
		}
		if cond != 0 {
			out[i] = vs[1].ints[broadcastIndex(outShape, s1, int64(i))]
		} else {
			out[i] = vs[2].ints[broadcastIndex(outShape, s2, int64(i))]
		}
	}
	c.setKnown(0, vs[1].dtype, outShape, out, nil)
	return nil
}

// cast converts dtype; known contents are converted too.
func cast(c *nodeCtx) error {
	x := c.input(0)
	var d graph.DType
	if c.n.opType == "CastLike" {
		d = c.input(1).dtype
	} else {
		a := c.typedAttr("to", attrInt)
		if a == nil {
			return fmt.Errorf("attribute \"to\" is required")
		}
		to, err := dtypeOf(a.i)
		if err != nil {
			return unsup("%v", err)
		}
		d = to
		c.emitString("to", string(d))
	}
	c.setOut(0, d, x.shape)
	s, ok := concrete(x.shape)
	if !x.known || !ok {
		return nil
	}
	switch {
	case x.ints != nil && isIntDType(d):
		out := x.ints
		if d == "bool" {
			out = make([]expr.Expr, len(x.ints))
			for i, e := range x.ints {
				v, ok := e.IsConst()
				if !ok {
					if !expr.LessEq(expr.Const(1), e, c.im.bounds) {
						return nil
					}
					v = 1
				}
				out[i] = expr.Const(b2i(v != 0))
			}
		}
		c.setKnown(0, d, s, out, nil)
	case x.ints != nil && isFloatDType(d):
		out := make([]float64, len(x.ints))
		for i, e := range x.ints {
			v, ok := e.IsConst()
			if !ok {
				return nil
			}
			out[i] = float64(v)
		}
		c.setKnown(0, d, s, nil, out)
	case x.floats != nil && isIntDType(d):
		out := make([]expr.Expr, len(x.floats))
		for i, f := range x.floats {
			if d == "bool" {
				out[i] = expr.Const(b2i(f != 0))
			} else {
				out[i] = expr.Const(int64(f))
			}
		}
		c.setKnown(0, d, s, out, nil)
	case x.floats != nil && isFloatDType(d):
		c.setKnown(0, d, s, nil, x.floats)
	}
	return nil
}

// clip takes its bounds from attributes (opset < 11) or known inputs.
func clip(c *nodeCtx) error {
	x := c.input(0)
	lo, hi := -math.MaxFloat64, math.MaxFloat64
	if c.im.opset < 11 {
		c.emitFloat("min", c.attrFloat("min", lo))
		c.emitBool("min_from_input", false)
		c.emitFloat("max", c.attrFloat("max", hi))
		c.emitBool("max_from_input", false)
	} else {
		if err := c.scalarAttr(1, "min", lo); err != nil {
			return err
		}
		if err := c.scalarAttr(2, "max", hi); err != nil {
			return err
		}
	}
	c.setOut(0, x.dtype, x.shape)
	return nil
}
