package onnx

import (
	"fmt"
	"math"
	"math/big"
	"slices"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// Rules for ops that move data without computing on it (Shape, Gather,
// Reshape, Slice, Concat…): they are evaluated at import time when their
// inputs are known, become views where they only reinterpret a contiguous
// storage, and kernels otherwise.

// constantAttrTypes are the types of Constant's value attributes.
var constantAttrTypes = map[string]int64{"value": attrTensor, "value_float": attrFloat, "value_floats": attrFloats, "value_int": attrInt, "value_ints": attrInts}

func constantNode(c *nodeCtx) error {
	if len(c.n.attrs) != 1 {
		return fmt.Errorf("a Constant needs exactly one value attribute, found %d", len(c.n.attrs))
	}
	a := c.n.attrs[0]
	if want, ok := constantAttrTypes[a.name]; ok && c.typedAttr(a.name, want) == nil {
		return nil // refused by its type
	}
	switch a.name {
	case "value":
		if a.t == nil {
			return fmt.Errorf("attribute value holds no tensor")
		}
		v, err := tensorValue(a.t)
		if err != nil {
			return err
		}
		s, _ := concrete(v.shape)
		c.setKnown(0, v.dtype, s, v.ints, v.floats).raw = v.raw
	case "value_float":
		c.setKnown(0, "f32", nil, nil, []float64{a.f})
	case "value_floats":
		c.setKnown(0, "f32", []int64{int64(len(a.floats))}, nil, a.floats)
	case "value_int":
		c.setKnown(0, "i64", nil, []expr.Expr{expr.Const(a.i)}, nil)
	case "value_ints":
		c.setKnown(0, "i64", []int64{int64(len(a.ints))}, consts(a.ints), nil)
	default:
		return unsup("Constant attribute %q", a.name)
	}
	return nil
}

func shapeOp(c *nodeCtx) error {
	x := c.input(0)
	r := int64(len(x.shape))
	clampAxis := func(a int64) int64 {
		if a < 0 {
			a += r
		}
		return min(max(a, 0), r)
	}
	start, end := clampAxis(c.attrInt("start", 0)), clampAxis(c.attrInt("end", r))
	dims := []expr.Expr{}
	if start < end {
		dims = x.shape[start:end]
	}
	c.setKnown(0, "i64", []int64{int64(len(dims))}, dims, nil)
	return nil
}

func sizeOp(c *nodeCtx) error {
	x := c.input(0)
	out := c.setKnown(0, "i64", nil, []expr.Expr{expr.Mul(x.shape...)}, nil)
	if len(x.shape) == 0 {
		out.ints = []expr.Expr{expr.Const(1)}
	}
	return nil
}

func identity(c *nodeCtx) error {
	x := c.input(0)
	return c.reshaped(x, x.shape)
}

// reshaped sets output 0 to x's contents under a new shape: known when x
// is, else a view (the importer makes a kernel call when it cannot).
func (c *nodeCtx) reshaped(x *value, shape []expr.Expr) error {
	if x.known {
		if s, ok := concrete(shape); ok {
			c.setKnown(0, x.dtype, s, x.ints, x.floats).raw = x.raw
			return nil
		}
	}
	c.setOut(0, x.dtype, shape)
	c.view = true
	return nil
}

func dropout(c *nodeCtx) error {
	x := c.input(0)
	training := c.attrInt("is_test", 1) == 0 && c.im.opset < 7
	if t := c.opt(2); t != nil {
		if !t.known || len(t.ints) != 1 {
			return unsup("input 2 (training_mode) %q is computed at run time; wrapgen needs it at import time", t.name)
		}
		c.attrInputs[2] = true
		v, _ := t.ints[0].IsConst()
		training = v != 0
	}
	wantMask := len(c.n.outputs) > 1 && c.n.outputs[1] != ""
	if !training && !wantMask {
		// Inference: the identity, whatever the ratio (which may be
		// computed at run time).
		if c.opt(1) != nil {
			c.attrInputs[1] = true
		}
		return c.reshaped(x, x.shape)
	}
	ratio := c.attrFloat("ratio", 0.5)
	if r, ok, err := c.scalarFloat(1, "ratio"); err != nil {
		return err
	} else if ok {
		ratio = r
	}
	c.emitFloat("ratio", ratio)
	c.emitBool("training_mode", training)
	c.emitInt("seed", c.attrInt("seed", 0))
	c.setOut(0, x.dtype, x.shape)
	c.setOut(1, "bool", x.shape)
	return nil
}

// axesOf reads the axes of Squeeze/Unsqueeze/Reduce*: an attribute before
// the opset that made it an input (checkAttributes refuses the attribute
// after).
func (c *nodeCtx) axesOf(inputIndex int, inputSince int64) ([]int64, bool, error) {
	if c.im.opset >= inputSince {
		if c.opt(inputIndex) == nil {
			return nil, false, nil
		}
		a, err := c.constInts(inputIndex, "axes")
		return a, true, err
	}
	a, ok := c.attrInts("axes")
	return a, ok, nil
}

func unsqueeze(c *nodeCtx) error {
	x := c.input(0)
	axes, ok, err := c.axesOf(1, 13)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("axes are required")
	}
	r := len(x.shape) + len(axes)
	ins := make([]bool, r)
	for _, a := range axes {
		k, err := normAxis(a, r)
		if err != nil {
			return err
		}
		if ins[k] {
			return fmt.Errorf("axis %d is given twice", a)
		}
		ins[k] = true
	}
	shape := make([]expr.Expr, 0, r)
	j := 0
	for k := range r {
		if ins[k] {
			shape = append(shape, expr.Const(1))
		} else {
			shape = append(shape, x.shape[j])
			j++
		}
	}
	c.emitInts("axes", sortedAxes(ins))
	return c.reshaped(x, shape)
}

func sortedAxes(mark []bool) []int64 {
	var out []int64
	for k, m := range mark {
		if m {
			out = append(out, int64(k))
		}
	}
	return out
}

func squeeze(c *nodeCtx) error {
	x := c.input(0)
	axes, ok, err := c.axesOf(1, 13)
	if err != nil {
		return err
	}
	drop := make([]bool, len(x.shape))
	if ok {
		for _, a := range axes {
			k, err := normAxis(a, len(x.shape))
			if err != nil {
				return err
			}
			if s, ok := x.shape[k].IsConst(); !ok || s != 1 {
				return fmt.Errorf("cannot squeeze dimension %d of size %s", k, x.shape[k])
			}
			drop[k] = true
		}
	} else {
		for k, s := range x.shape {
			if v, ok := s.IsConst(); ok && v == 1 {
				drop[k] = true
			} else if !ok {
				return unsup("Squeeze without axes on the symbolic dimension %s (it may or may not be 1)", s)
			}
		}
	}
	var shape []expr.Expr
	for k, s := range x.shape {
		if !drop[k] {
			shape = append(shape, s)
		}
	}
	if shape == nil {
		shape = []expr.Expr{}
	}
	c.emitInts("axes", sortedAxes(drop))
	return c.reshaped(x, shape)
}

func flatten(c *nodeCtx) error {
	x := c.input(0)
	r := len(x.shape)
	axis := c.attrInt("axis", 1)
	if axis < 0 {
		axis += int64(r)
	}
	if axis < 0 || axis > int64(r) {
		return fmt.Errorf("axis %d is out of range for rank %d", c.attrInt("axis", 1), r)
	}
	outer := expr.Const(1)
	inner := expr.Const(1)
	for k, s := range x.shape {
		if int64(k) < axis {
			outer = expr.Mul(outer, s)
		} else {
			inner = expr.Mul(inner, s)
		}
	}
	c.emitInt("axis", axis)
	return c.reshaped(x, []expr.Expr{outer, inner})
}

func reshape(c *nodeCtx) error {
	x := c.input(0)
	var target []expr.Expr
	var err error
	if c.im.opset < 5 {
		s, _ := c.attrInts("shape")
		target = consts(s)
	} else if target, err = c.intsInput(1, "shape"); err != nil {
		return err
	}
	allowZero := c.attrInt("allowzero", 0) != 0
	shape := make([]expr.Expr, len(target))
	infer := -1
	known := expr.Const(1)
	for k, t := range target {
		v, isConst := t.IsConst()
		switch {
		case isConst && v == 0 && !allowZero:
			if k >= len(x.shape) {
				return fmt.Errorf("shape entry %d is 0 (copy) but the input has rank %d", k, len(x.shape))
			}
			shape[k] = x.shape[k]
		case isConst && v == -1:
			if infer >= 0 {
				return fmt.Errorf("shape has two -1 entries")
			}
			infer = k
			continue
		case isConst && v < 0:
			return fmt.Errorf("shape entry %d is %d", k, v)
		default:
			shape[k] = t
		}
		known = expr.Mul(known, shape[k])
	}
	total := expr.Mul(x.shape...)
	if infer >= 0 {
		q, ok := exactDiv(total, known)
		if !ok {
			c.narrowWhere([]expr.Expr{total, known}, func(at func(expr.Expr) expr.Expr) bool {
				_, ok := exactDiv(at(total), at(known))
				return ok
			})
			return unsup("cannot prove that %s elements divide into shape %s with one size inferred", total, shapeText(target))
		}
		shape[infer] = q
	} else if !expr.Equal(total, known) && !c.im.unifyCount(total, known) {
		c.narrowFor(total, known)
		return fmt.Errorf("cannot reshape %s (%s elements) to %s", shapeText(x.shape), total, shapeText(shape))
	}
	c.emitExprs("shape", shape)
	return c.reshaped(x, shape)
}

// exactDiv divides symbolic integers when the quotient is exact.
func exactDiv(a, b expr.Expr) (expr.Expr, bool) {
	if bc, ok := b.IsConst(); ok {
		if bc == 0 {
			return expr.Expr{}, false
		}
		q, ok := expr.FloorDiv(a, b)
		return q, ok && expr.Equal(expr.Mul(q, b), a)
	}
	if q, ok := expr.DivideMonomial(a, b); ok {
		return q, true
	}
	if k, ok := constMultiple(a, b); ok {
		return expr.Const(k), true
	}
	// Cancel a symbolic divisor factor by factor: a / (c*s) where a = k*s*…
	for _, s := range b.Symbols() {
		// Try dividing out each symbol once; repeat through recursion.
		qa, ok := divSym(a, s)
		qb, ok2 := divSym(b, s)
		if ok && ok2 {
			return exactDiv(qa, qb)
		}
	}
	return expr.Expr{}, false
}

// constMultiple finds a constant k with a = k*b, b a sum (4 anchors for
// each of 15*p + 30*q positions): k is a/b at one value of the symbols,
// checked by multiplying back.
func constMultiple(a, b expr.Expr) (int64, bool) {
	env := expr.Env{}
	for _, s := range append(a.Symbols(), b.Symbols()...) {
		env[s] = 1000003
	}
	av, err1 := a.Eval(env)
	bv, err2 := b.Eval(env)
	if err1 != nil || err2 != nil || bv == 0 || av%bv != 0 {
		return 0, false
	}
	k := av / bv
	return k, expr.Equal(expr.Scale(b, k), a)
}

// divSym divides e by symbol s when e is linear in s with no constant
// part: e = q*s, q = e(s=1) - e(s=0), checked by multiplying back.
func divSym(e expr.Expr, s string) (expr.Expr, bool) {
	q := expr.Sub(expr.Substitute(e, s, expr.Const(1)), expr.Substitute(e, s, expr.Const(0)))
	if !expr.Equal(expr.Mul(q, expr.Sym(s)), e) {
		return expr.Expr{}, false
	}
	return q, true
}

func concat(c *nodeCtx) error {
	first := c.input(0)
	r := len(first.shape)
	a := c.typedAttr("axis", attrInt)
	if a == nil {
		return fmt.Errorf("attribute axis is required")
	}
	axis, err := normAxis(a.i, r)
	if err != nil {
		return err
	}
	shape := append([]expr.Expr{}, first.shape...)
	sum := expr.Const(0)
	allKnown := true
	for i, v := range c.ins {
		if len(v.shape) != r {
			return fmt.Errorf("input %d has rank %d, input 0 has %d", i, len(v.shape), r)
		}
		for k := range r {
			if k != axis && !expr.Equal(v.shape[k], shape[k]) {
				c.narrowFor(v.shape[k], shape[k]) // holding at multiples of a size: imported again (narrow.go)
				return fmt.Errorf("input %d has size %s at dimension %d, input 0 has %s", i, v.shape[k], k, shape[k])
			}
		}
		sum = expr.Add(sum, v.shape[axis])
		allKnown = allKnown && v.known && (v.ints != nil || numelOf(v) == 0)
	}
	shape[axis] = sum
	c.emitInt("axis", int64(axis))
	c.setOut(0, first.dtype, shape)
	outShape, ok := concrete(shape)
	if !allKnown || !ok || numel(outShape) > maxKnownElems {
		return nil
	}
	// Fold: interleave the inputs' blocks along axis.
	outer := numel(outShape[:axis])
	var out []expr.Expr
	for o := range outer {
		for _, v := range c.ins {
			s, _ := concrete(v.shape)
			block := numel(s[axis:])
			out = append(out, v.ints[o*block:(o+1)*block]...)
		}
	}
	c.setKnown(0, first.dtype, outShape, out, nil)
	return nil
}

func gather(c *nodeCtx) error {
	data := c.input(0)
	idx := c.input(1)
	if !isIntDType(idx.dtype) || idx.dtype == "bool" {
		return fmt.Errorf("indices have dtype %s", idx.dtype)
	}
	axis, err := normAxis(c.attrInt("axis", 0), len(data.shape))
	if err != nil {
		return err
	}
	var shape []expr.Expr
	shape = append(shape, data.shape[:axis]...)
	shape = append(shape, idx.shape...)
	shape = append(shape, data.shape[axis+1:]...)
	if shape == nil {
		shape = []expr.Expr{}
	}
	c.emitInt("axis", int64(axis))
	c.setOut(0, data.dtype, shape)
	ds, ok1 := concrete(data.shape)
	is, ok2 := concrete(idx.shape)
	if !data.known || !idx.known || data.ints == nil || !ok1 || !ok2 || numel(ds) > maxKnownElems {
		return nil
	}
	outShape, _ := concrete(shape)
	outer := numel(ds[:axis])
	inner := numel(ds[axis+1:])
	var out []expr.Expr
	for o := range outer {
		for _, ie := range idx.ints {
			i, ok := ie.IsConst()
			if !ok {
				return nil
			}
			given := i
			if i < 0 {
				i += ds[axis]
			}
			if i < 0 || i >= ds[axis] {
				return fmt.Errorf("index %d is out of range for size %d (want %d to %d)", given, ds[axis], -ds[axis], ds[axis]-1)
			}
			base := (o*ds[axis] + i) * inner
			out = append(out, data.ints[base:base+inner]...)
		}
	}
	_ = is
	c.setKnown(0, data.dtype, outShape, out, nil)
	return nil
}

// sliceDim is one axis of a Slice after clamping: the first index, the
// step and the number of elements taken.
type sliceDim struct {
	start, step, count expr.Expr
}

// huge is where a Slice bound means "to the end": exporters write INT_MAX
// or INT64_MAX.
const huge = math.MaxInt32

// provenNonNeg reports whether e >= 0 at every symbol value in range: by
// proof, or by trying every point when the ranges are small.
func (c *nodeCtx) provenNonNeg(e expr.Expr) bool {
	if expr.NonNeg(e, c.im.bounds) {
		return true
	}
	return expr.NewDecider(c.im.bounds).Decide(e).Verdict == expr.Proven
}

func (c *nodeCtx) clampSlice(d, start, end expr.Expr, step int64) (sliceDim, error) {
	b := c.im.bounds
	if step > 0 {
		clamp := func(x expr.Expr) (expr.Expr, error) {
			if v, ok := x.IsConst(); ok {
				switch {
				case v >= huge:
					return d, nil
				case v <= -huge:
					return expr.Const(0), nil
				case v < 0:
					return expr.MaxIn(b, expr.Add(d, x), expr.Const(0)), nil
				}
			} else if !c.provenNonNeg(x) {
				if !c.provenNonNeg(expr.Sub(expr.Const(-1), x)) {
					return expr.Expr{}, unsup("slice bound %s may be negative or not, which ONNX reads differently (counted from the end when negative); wrapgen needs its sign at import time: give its symbols a range (-min, -max) over which the sign is the same", x)
				}
				// Negative over every value in range: counted from the end.
				x = expr.MaxIn(b, expr.Add(d, x), expr.Const(0))
			}
			if expr.LessEq(x, d, b) {
				return x, nil
			}
			if expr.LessEq(d, x, b) {
				return d, nil
			}
			return expr.Min(x, d), nil
		}
		s, err := clamp(start)
		if err != nil {
			return sliceDim{}, err
		}
		e, err := clamp(end)
		if err != nil {
			return sliceDim{}, err
		}
		n, _ := expr.FloorDiv(expr.Add(expr.Sub(e, s), expr.Const(step-1)), expr.Const(step))
		return sliceDim{s, expr.Const(step), expr.MaxIn(b, n, expr.Const(0))}, nil
	}
	dv, ok1 := d.IsConst()
	sv, ok2 := start.IsConst()
	ev, ok3 := end.IsConst()
	if !ok1 || !ok2 || !ok3 {
		return sliceDim{}, unsup("negative slice step over a symbolic size or bound")
	}
	if sv < 0 {
		sv += dv
	}
	if ev < 0 && ev > -huge {
		ev += dv
	}
	sv = min(max(sv, -1), dv-1)
	ev = min(max(ev, -1), dv-1)
	n := int64(0)
	if sv > ev {
		n = (sv - ev - step - 1) / -step
	}
	return sliceDim{expr.Const(sv), expr.Const(step), expr.Const(n)}, nil
}

func slice(c *nodeCtx) error {
	x := c.input(0)
	r := len(x.shape)
	var starts, ends []expr.Expr
	var axes, steps []int64
	var err error
	if c.im.opset < 10 {
		s, _ := c.attrInts("starts")
		e, _ := c.attrInts("ends")
		starts, ends = consts(s), consts(e)
		axes, _ = c.attrInts("axes")
	} else {
		if starts, err = c.intsInput(1, "starts"); err != nil {
			return err
		}
		if ends, err = c.intsInput(2, "ends"); err != nil {
			return err
		}
		if c.opt(3) != nil {
			if axes, err = c.constInts(3, "axes"); err != nil {
				return err
			}
		}
		if c.opt(4) != nil {
			if steps, err = c.constInts(4, "steps"); err != nil {
				return err
			}
		}
	}
	if len(starts) != len(ends) {
		return fmt.Errorf("%d starts but %d ends", len(starts), len(ends))
	}
	if axes == nil {
		for k := range starts {
			axes = append(axes, int64(k))
		}
	}
	if steps == nil {
		steps = make([]int64, len(starts))
		for k := range steps {
			steps[k] = 1
		}
	}
	if len(axes) != len(starts) || len(steps) != len(starts) {
		return fmt.Errorf("starts, ends, axes and steps differ in length")
	}
	dims := make([]sliceDim, r)
	for k := range dims {
		dims[k] = sliceDim{expr.Const(0), expr.Const(1), x.shape[k]}
	}
	seen := make([]bool, r)
	for i, a := range axes {
		k, err := normAxis(a, r)
		if err != nil {
			return err
		}
		if seen[k] {
			return fmt.Errorf("axis %d is sliced twice", a)
		}
		seen[k] = true
		if steps[i] == 0 {
			return fmt.Errorf("step %d is 0", i)
		}
		if dims[k], err = c.clampSlice(x.shape[k], starts[i], ends[i], steps[i]); err != nil {
			return err
		}
	}
	shape := make([]expr.Expr, r)
	var st, sp []expr.Expr
	for k, d := range dims {
		shape[k] = d.count
		st = append(st, d.start)
		sp = append(sp, d.step)
	}
	c.emitExprs("starts", st)
	c.emitExprs("steps", sp)
	c.setOut(0, x.dtype, shape)
	// Fold a known integer tensor.
	xs, ok1 := concrete(x.shape)
	outShape, ok2 := concrete(shape)
	if !x.known || x.ints == nil || !ok1 || !ok2 {
		return nil
	}
	n := numel(outShape)
	out := make([]expr.Expr, 0, n)
	idx := make([]int64, r)
	for range n {
		src := int64(0)
		for k := range r {
			s0, _ := dims[k].start.IsConst()
			s1, _ := dims[k].step.IsConst()
			src = src*xs[k] + s0 + idx[k]*s1
		}
		out = append(out, x.ints[src])
		for k := r - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < outShape[k] {
				break
			}
			idx[k] = 0
		}
	}
	c.setKnown(0, x.dtype, outShape, out, nil)
	return nil
}

func constantOfShape(c *nodeCtx) error {
	computed, isComputed := sizeElems(c.input(0))
	isComputed = isComputed && !c.input(0).known
	var shape []expr.Expr
	if !isComputed {
		var err error
		if shape, err = c.intsInput(0, "shape"); err != nil {
			return err
		}
	}
	d := graph.DType("f32")
	var fill float64
	var fillInt int64
	if a := c.typedAttr("value", attrTensor); a != nil && a.t != nil {
		v, err := tensorValue(a.t)
		if err != nil {
			return err
		}
		d = v.dtype
		switch {
		case len(v.floats) == 1:
			fill = v.floats[0]
		case len(v.ints) == 1:
			fillInt, _ = v.ints[0].IsConst()
			fill = float64(fillInt)
		default:
			return unsup("ConstantOfShape value of dtype %s", d)
		}
	}
	if isComputed {
		return constantOfShapeToSizes(c, computed, d, fill)
	}
	c.emitExprs("shape", shape)
	c.emitFloat("value", fill)
	c.setOut(0, d, shape)
	s, ok := concrete(shape)
	if !ok || numel(s) > maxKnownElems {
		return nil
	}
	n := numel(s)
	if isIntDType(d) {
		out := make([]expr.Expr, n)
		for i := range out {
			out[i] = expr.Const(fillInt)
		}
		c.setKnown(0, d, s, out, nil)
	} else if isFloatDType(d) {
		out := make([]float64, n)
		for i := range out {
			out[i] = fill
		}
		c.setKnown(0, d, s, nil, out)
	}
	return nil
}

func expand(c *nodeCtx) error {
	x := c.input(0)
	if t := c.input(1); !t.known {
		if elems, ok := sizeElems(t); ok {
			return expandToSizes(c, elems)
		}
	}
	target, err := c.intsInput(1, "shape")
	if err != nil {
		return err
	}
	shape, err := c.broadcast(x.shape, target)
	if err != nil {
		return err
	}
	c.emitExprs("shape", shape)
	c.setOut(0, x.dtype, shape)
	xs, ok1 := concrete(x.shape)
	outShape, ok2 := concrete(shape)
	if !x.known || x.ints == nil || !ok1 || !ok2 || numel(outShape) > maxKnownElems {
		return nil
	}
	out := make([]expr.Expr, numel(outShape))
	for i := range out {
		out[i] = x.ints[broadcastIndex(outShape, xs, int64(i))]
	}
	c.setKnown(0, x.dtype, outShape, out, nil)
	return nil
}

// rangeLengthFits reports whether Range(start, limit, delta) has a length
// that int64 holds, limit - start included (the sums that compute it).
func rangeLengthFits(start, limit, delta int64) bool {
	diff := new(big.Int).Sub(big.NewInt(limit), big.NewInt(start))
	if !diff.IsInt64() {
		return false
	}
	// The length expression adds |delta|-1 to the difference first.
	abs := new(big.Int).Abs(big.NewInt(delta))
	return new(big.Int).Add(new(big.Int).Abs(diff), abs).IsInt64()
}

func rangeOp(c *nodeCtx) error {
	if !c.input(1).known {
		return rangeOfData(c)
	}
	var args [3]*value
	for i := range args {
		v := c.input(i)
		if !v.known {
			return unsup("input %d %q of Range is computed from tensor data at run time (wrapgen imports a Range whose limit only is)", i, v.name)
		}
		c.attrInputs[i] = true
		args[i] = v
	}
	d := args[0].dtype
	if isFloatDType(d) && len(args[1].ints) == 1 {
		// torch.arange(seq, dtype=float): a limit cast from a size. Whole
		// start and step make it the integer Range, stored as floats.
		return floatRangeOfSize(c, args, d)
	}
	if isFloatDType(d) {
		if len(args[0].floats) != 1 || len(args[1].floats) != 1 || len(args[2].floats) != 1 {
			return unsup("Range over %s needs scalar inputs", d)
		}
		s, l, st := args[0].floats[0], args[1].floats[0], args[2].floats[0]
		n := int64(math.Max(math.Ceil((l-s)/st), 0))
		if n > maxKnownElems {
			return unsup("Range of %d elements", n)
		}
		out := make([]float64, n)
		for i := range out {
			out[i] = s + float64(i)*st
			if d == "f32" {
				out[i] = float64(float32(out[i]))
			}
		}
		c.setKnown(0, d, []int64{n}, nil, out)
		return nil
	}
	if len(args[0].ints) != 1 || len(args[1].ints) != 1 || len(args[2].ints) != 1 {
		return fmt.Errorf("Range inputs must be scalars")
	}
	start, limit := args[0].ints[0], args[1].ints[0]
	delta, ok := args[2].ints[0].IsConst()
	if !ok || delta == 0 {
		return unsup("Range with a symbolic or zero delta")
	}
	if s, ok := start.IsConst(); ok {
		if l, ok := limit.IsConst(); ok && !rangeLengthFits(s, l, delta) {
			return fmt.Errorf("Range(start %d, limit %d, delta %d): its length, ceil((limit - start) / delta), overflows int64", s, l, delta)
		}
	}
	var n expr.Expr
	if delta > 0 {
		n, _ = expr.FloorDiv(expr.Add(expr.Sub(limit, start), expr.Const(delta-1)), expr.Const(delta))
	} else {
		n, _ = expr.FloorDiv(expr.Add(expr.Sub(start, limit), expr.Const(-delta-1)), expr.Const(-delta))
	}
	n = expr.MaxIn(c.im.bounds, n, expr.Const(0))
	c.emitExpr("start", start)
	c.emitExpr("limit", limit)
	c.emitInt("delta", delta)
	c.setOut(0, d, []expr.Expr{n})
	if nc, ok := n.IsConst(); ok && nc <= maxKnownElems {
		out := make([]expr.Expr, nc)
		for i := range out {
			out[i] = expr.Add(start, expr.Const(int64(i)*delta))
		}
		c.setKnown(0, d, []int64{nc}, out, nil)
	}
	return nil
}

// floatRangeOfSize is a float Range whose limit is a size (a symbolic
// integer cast to float) and whose start and step are whole numbers: its
// length and elements are the integer Range's, each exact in float32 up
// to 2^24, as ONNX's start + i*delta computes them. Other starts and steps
// are refused, naming them.
func floatRangeOfSize(c *nodeCtx, args [3]*value, d graph.DType) error {
	var whole [2]int64
	for k, i := range []int{0, 2} {
		v := args[i]
		switch {
		case len(v.ints) == 1:
			n, ok := v.ints[0].IsConst()
			if !ok {
				return unsup("Range over %s with a symbolic %s", d, []string{"start", "delta"}[k])
			}
			whole[k] = n
		case len(v.floats) == 1 && v.floats[0] == math.Trunc(v.floats[0]) && math.Abs(v.floats[0]) < 1<<24:
			whole[k] = int64(v.floats[0])
		default:
			return unsup("Range over %s with a limit computed from sizes needs a whole start and delta (has %v and %v)", d, args[0].floats, args[2].floats)
		}
	}
	start, delta, limit := whole[0], whole[1], args[1].ints[0]
	if delta == 0 {
		return fmt.Errorf("Range with delta 0")
	}
	var n expr.Expr
	if delta > 0 {
		n, _ = expr.FloorDiv(expr.Add(expr.Sub(limit, expr.Const(start)), expr.Const(delta-1)), expr.Const(delta))
	} else {
		n, _ = expr.FloorDiv(expr.Add(expr.Sub(expr.Const(start), limit), expr.Const(-delta-1)), expr.Const(-delta))
	}
	n = expr.MaxIn(c.im.bounds, n, expr.Const(0))
	c.emitExpr("start", expr.Const(start))
	c.emitExpr("limit", limit)
	c.emitInt("delta", delta)
	c.setOut(0, d, []expr.Expr{n})
	if nc, ok := n.IsConst(); ok && nc <= maxKnownElems {
		out := make([]float64, nc)
		for i := range out {
			out[i] = float64(start + int64(i)*delta)
		}
		c.setKnown(0, d, []int64{nc}, nil, out)
	}
	return nil
}

func tile(c *nodeCtx) error {
	x := c.input(0)
	reps, err := c.intsInput(1, "repeats")
	if err != nil {
		return err
	}
	if len(reps) != len(x.shape) {
		return fmt.Errorf("%d repeats for rank %d", len(reps), len(x.shape))
	}
	shape := make([]expr.Expr, len(reps))
	for k := range reps {
		shape[k] = expr.Mul(x.shape[k], reps[k])
	}
	c.emitExprs("repeats", reps)
	c.setOut(0, x.dtype, shape)
	return nil
}

func transpose(c *nodeCtx) error {
	x := c.input(0)
	r := len(x.shape)
	perm, ok := c.attrInts("perm")
	if !ok {
		for k := r - 1; k >= 0; k-- {
			perm = append(perm, int64(k))
		}
	}
	if len(perm) != r {
		return fmt.Errorf("perm has %d entries for rank %d", len(perm), r)
	}
	shape := make([]expr.Expr, r)
	seen := make([]bool, r)
	for k, p := range perm {
		a, err := normAxis(p, r)
		if err != nil {
			return err
		}
		if seen[a] && int64(a) != p {
			return fmt.Errorf("perm repeats axis %d (given as %d)", a, p)
		} else if seen[a] {
			return fmt.Errorf("perm repeats axis %d", a)
		}
		seen[a] = true
		perm[k] = int64(a)
		shape[k] = x.shape[a]
	}
	c.emitInts("perm", perm)
	c.setOut(0, x.dtype, shape)
	if dims, ok := concrete(x.shape); ok && x.known && x.ints != nil {
		// A shape computation (torchvision's padding of images to a
		// multiple of 32 transposes its pads): the permuted contents.
		ints := make([]expr.Expr, len(x.ints))
		out := make([]int, r)
		for i := range x.ints {
			// i's index in the output, then its offset in the input.
			rem, off := i, 0
			for k := r - 1; k >= 0; k-- {
				n := int(dims[perm[k]])
				out[k], rem = rem%n, rem/n
			}
			stride := 1
			for a := r - 1; a >= 0; a-- {
				k := slices.Index(perm, int64(a))
				off += out[k] * stride
				stride *= int(dims[a])
			}
			ints[i] = x.ints[off]
		}
		c.outs[0].known, c.outs[0].ints = true, ints
	}
	return nil
}

func split(c *nodeCtx) error {
	x := c.input(0)
	axis, err := normAxis(c.attrInt("axis", 0), len(x.shape))
	if err != nil {
		return err
	}
	n := len(c.n.outputs)
	var sizes []expr.Expr
	if c.im.opset >= 13 && c.opt(1) != nil {
		if sizes, err = c.intsInput(1, "split"); err != nil {
			return err
		}
	} else if s, ok := c.attrInts("split"); ok && c.im.opset < 13 {
		sizes = consts(s)
	} else {
		if no := c.attrInt("num_outputs", 0); no > 0 {
			n = int(no)
		}
		d := x.shape[axis]
		q, ok := exactDiv(d, expr.Const(int64(n)))
		if ok {
			for range n {
				sizes = append(sizes, q)
			}
		} else {
			dv, isConst := d.IsConst()
			if !isConst {
				return unsup("splitting symbolic size %s into %d parts", d, n)
			}
			chunk := (dv + int64(n) - 1) / int64(n)
			for k := range n {
				sizes = append(sizes, expr.Const(min(chunk, max(dv-int64(k)*chunk, 0))))
			}
		}
	}
	if len(sizes) != len(c.n.outputs) {
		return fmt.Errorf("%d split sizes for %d outputs", len(sizes), len(c.n.outputs))
	}
	if !expr.Equal(expr.Add(sizes...), x.shape[axis]) {
		return fmt.Errorf("split sizes add up to %s, not %s", expr.Add(sizes...), x.shape[axis])
	}
	if len(sizes) == 1 {
		// One part is the whole input: a view, so that the kernel Split
		// keeps one signature (its output count) across the model.
		if c.opt(1) != nil {
			c.attrInputs[1] = true
		}
		return c.reshaped(x, x.shape)
	}
	c.emitInt("axis", int64(axis))
	c.emitExprs("split", sizes)
	for k, s := range sizes {
		shape := append([]expr.Expr{}, x.shape...)
		shape[axis] = s
		c.setOut(k, x.dtype, shape)
	}
	return nil
}

func pad(c *nodeCtx) error {
	x := c.input(0)
	r := len(x.shape)
	var pads []expr.Expr
	var err error
	value := 0.0
	if c.im.opset < 11 {
		p, _ := c.attrInts("pads")
		pads = consts(p)
		value = c.attrFloat("value", 0)
	} else {
		if pads, err = c.intsInput(1, "pads"); err != nil {
			return err
		}
	}
	axes := make([]int64, 0, r)
	if c.opt(3) != nil {
		if axes, err = c.constInts(3, "axes"); err != nil {
			return err
		}
	} else {
		for k := range r {
			axes = append(axes, int64(k))
		}
	}
	if len(pads) != 2*len(axes) {
		return fmt.Errorf("%d pads for %d axes", len(pads), len(axes))
	}
	full := make([]expr.Expr, 2*r)
	for k := range full {
		full[k] = expr.Const(0)
	}
	for i, a := range axes {
		k, err := normAxis(a, r)
		if err != nil {
			return err
		}
		full[k], full[r+k] = pads[i], pads[len(axes)+i]
	}
	shape := make([]expr.Expr, r)
	for k := range r {
		shape[k] = expr.Add(x.shape[k], full[k], full[r+k])
		if !expr.NonNeg(shape[k], c.im.bounds) {
			return unsup("padded size %s may be negative", shape[k])
		}
	}
	c.emitString("mode", c.attrString("mode", "constant"))
	c.emitExprs("pads", full)
	if c.im.opset < 11 {
		c.emitFloat("value", value)
		c.emitBool("value_from_input", false)
	} else if err := c.scalarAttr(2, "value", 0); err != nil {
		return err
	}
	c.setOut(0, x.dtype, shape)
	return nil
}

func scatterND(c *nodeCtx) error {
	x := c.input(0)
	c.emitString("reduction", c.attrString("reduction", "none"))
	c.setOut(0, x.dtype, x.shape)
	return nil
}

// sameAs gives output 0 input 0's shape and dtype, passing int attributes
// with defaults (Trilu, CumSum, GatherElements' data-shaped cousins…).
func sameAs(ints ...intAttr) rule {
	return func(c *nodeCtx) error {
		x := c.input(0)
		for _, a := range ints {
			c.emitInt(a.name, c.attrInt(a.name, a.def))
		}
		c.setOut(0, x.dtype, x.shape)
		return nil
	}
}

type intAttr struct {
	name string
	def  int64
}
