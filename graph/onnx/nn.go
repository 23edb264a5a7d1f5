package onnx

import (
	"fmt"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// Rules for the neural-network operators: convolution, pooling,
// normalisation, matrix products, reductions.

// window is the geometry of a sliding-window op over the spatial axes.
type window struct {
	kernel, strides, dilations []int64
	pads                       []expr.Expr // begins then ends
}

// windowAttrs reads kernel_shape (or takes it from the weights), strides,
// dilations, pads and auto_pad, and resolves auto_pad to explicit pads.
func (c *nodeCtx) windowAttrs(spatial []expr.Expr, kernel []int64, ceil bool) (window, []expr.Expr, error) {
	n := len(spatial)
	w := window{kernel: kernel}
	ones := func() []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = 1
		}
		return out
	}
	var ok bool
	if w.strides, ok = c.attrInts("strides"); !ok {
		w.strides = ones()
	}
	if w.dilations, ok = c.attrInts("dilations"); !ok {
		w.dilations = ones()
	}
	if len(w.kernel) != n || len(w.strides) != n || len(w.dilations) != n {
		return w, nil, fmt.Errorf("kernel_shape, strides and dilations must have %d entries", n)
	}
	for k := range n {
		if w.strides[k] < 1 || w.dilations[k] < 1 {
			return w, nil, fmt.Errorf("strides and dilations must be positive")
		}
	}
	out := make([]expr.Expr, n)
	autoPad := c.attrString("auto_pad", "NOTSET")
	w.pads = make([]expr.Expr, 2*n)
	switch autoPad {
	case "NOTSET", "VALID":
		p, ok := c.attrInts("pads")
		if autoPad == "VALID" || !ok {
			p = make([]int64, 2*n)
		}
		if len(p) != 2*n {
			return w, nil, fmt.Errorf("pads must have %d entries", 2*n)
		}
		for k := range p {
			w.pads[k] = expr.Const(p[k])
		}
		for k := range n {
			ext := (w.kernel[k]-1)*w.dilations[k] + 1
			span := expr.Sub(expr.Add(spatial[k], w.pads[k], w.pads[n+k]), expr.Const(ext))
			if ceil {
				span = expr.Add(span, expr.Const(w.strides[k]-1))
			}
			q, _ := expr.FloorDiv(span, expr.Const(w.strides[k]))
			out[k] = expr.Add(q, expr.Const(1))
			if ceil {
				// The last window must start inside the input or the
				// begin padding.
				if o, ok := out[k].IsConst(); ok {
					if in, ok := expr.Add(spatial[k], w.pads[k]).IsConst(); ok && (o-1)*w.strides[k] >= in {
						out[k] = expr.Const(o - 1)
					}
				}
			}
			if err := c.im.atLeast(out[k], 1, "output size"); err != nil {
				return w, nil, err
			}
		}
	case "SAME_UPPER", "SAME_LOWER":
		for k := range n {
			s := w.strides[k]
			o, _ := expr.FloorDiv(expr.Add(spatial[k], expr.Const(s-1)), expr.Const(s))
			out[k] = o
			ext := (w.kernel[k]-1)*w.dilations[k] + 1
			total := expr.MaxIn(c.im.bounds, expr.Sub(expr.Add(expr.Scale(expr.Sub(o, expr.Const(1)), s), expr.Const(ext)), spatial[k]), expr.Const(0))
			half, _ := expr.FloorDiv(total, expr.Const(2))
			if autoPad == "SAME_UPPER" {
				w.pads[k], w.pads[n+k] = half, expr.Sub(total, half)
			} else {
				w.pads[k], w.pads[n+k] = expr.Sub(total, half), half
			}
		}
	default:
		return w, nil, fmt.Errorf("unknown auto_pad %q", autoPad)
	}
	return w, out, nil
}

func (c *nodeCtx) emitWindow(w window) {
	c.emitInts("kernel_shape", w.kernel)
	c.emitInts("strides", w.strides)
	c.emitExprs("pads", w.pads)
	c.emitInts("dilations", w.dilations)
}

func conv(c *nodeCtx) error {
	x := c.input(0)
	wt := c.input(1)
	if len(x.shape) < 3 || len(wt.shape) != len(x.shape) {
		return fmt.Errorf("input rank %d and weight rank %d: want equal ranks of at least 3", len(x.shape), len(wt.shape))
	}
	ks, ok := concrete(wt.shape[2:])
	if !ok {
		return unsup("symbolic kernel size %s", shapeText(wt.shape))
	}
	if k, ok := c.attrInts("kernel_shape"); ok {
		ks = k
	}
	w, spatial, err := c.windowAttrs(x.shape[2:], ks, false)
	if err != nil {
		return err
	}
	group := c.attrInt("group", 1)
	if group < 1 {
		return fmt.Errorf("group %d", group)
	}
	if !expr.Equal(expr.Scale(wt.shape[1], group), x.shape[1]) {
		return fmt.Errorf("input has %s channels, weight expects %s × group %d", x.shape[1], wt.shape[1], group)
	}
	if trimmed, nw, ok := c.trimDeadTaps(w, wt, x.shape[2:]); ok {
		w, c.ins[1] = trimmed, nw
	}
	c.emitWindow(w)
	c.emitInt("group", group)
	shape := append([]expr.Expr{x.shape[0], wt.shape[0]}, spatial...)
	c.setOut(0, x.dtype, shape)
	return nil
}

func convTranspose(c *nodeCtx) error {
	x := c.input(0)
	wt := c.input(1)
	if len(x.shape) < 3 || len(wt.shape) != len(x.shape) {
		return fmt.Errorf("input rank %d and weight rank %d: want equal ranks of at least 3", len(x.shape), len(wt.shape))
	}
	n := len(x.shape) - 2
	ks, ok := concrete(wt.shape[2:])
	if !ok {
		return unsup("symbolic kernel size")
	}
	if k, ok := c.attrInts("kernel_shape"); ok {
		ks = k
	}
	group := c.attrInt("group", 1)
	one := func(name string, def int64) []int64 {
		v, ok := c.attrInts(name)
		if !ok {
			v = make([]int64, n)
			for i := range v {
				v[i] = def
			}
		}
		return v
	}
	strides, dil, outPad := one("strides", 1), one("dilations", 1), one("output_padding", 0)
	pads := one("pads", 0)
	if _, ok := c.attrInts("pads"); !ok {
		pads = make([]int64, 2*n)
	}
	if len(ks) != n || len(strides) != n || len(dil) != n || len(outPad) != n || len(pads) != 2*n {
		return fmt.Errorf("attribute lengths do not match %d spatial dimensions", n)
	}
	spatial := make([]expr.Expr, n)
	if os, ok := c.attrInts("output_shape"); ok {
		if len(os) != n {
			return fmt.Errorf("output_shape must have %d entries", n)
		}
		spatial = consts(os)
	} else {
		switch ap := c.attrString("auto_pad", "NOTSET"); ap {
		case "SAME_UPPER", "SAME_LOWER":
			// The output is input × stride: its padding, stride × (input - 1)
			// + output_padding + extent - input × stride, depends on no size.
			// Explicit pads win, as in ONNX's reference implementation.
			if _, given := c.attrInts("pads"); given {
				break
			}
			for k := range n {
				total := outPad[k] + (ks[k]-1)*dil[k] + 1 - strides[k]
				half := total / 2
				if total < 0 && total%2 != 0 {
					half-- // floor, as the reference's total // 2
				}
				if ap == "SAME_UPPER" {
					pads[k], pads[n+k] = half, total-half
				} else {
					pads[k], pads[n+k] = total-half, half
				}
			}
		case "NOTSET", "VALID":
		default:
			return fmt.Errorf("unknown auto_pad %q", ap)
		}
		for k := range n {
			spatial[k] = expr.Add(expr.Scale(expr.Sub(x.shape[2+k], expr.Const(1)), strides[k]),
				expr.Const(outPad[k]+(ks[k]-1)*dil[k]+1-pads[k]-pads[n+k]))
		}
	}
	c.emitInts("kernel_shape", ks)
	c.emitInts("strides", strides)
	c.emitInts("pads", pads)
	c.emitInts("dilations", dil)
	c.emitInts("output_padding", outPad)
	c.emitInt("group", group)
	shape := append([]expr.Expr{x.shape[0], expr.Scale(wt.shape[1], group)}, spatial...)
	c.setOut(0, x.dtype, shape)
	return nil
}

func pool(c *nodeCtx) error {
	x := c.input(0)
	if len(x.shape) < 3 {
		return fmt.Errorf("input rank %d: want at least 3", len(x.shape))
	}
	ks, ok := c.attrInts("kernel_shape")
	if !ok {
		return fmt.Errorf("attribute kernel_shape is required")
	}
	ceil := c.attrInt("ceil_mode", 0) != 0
	w, spatial, err := c.windowAttrs(x.shape[2:], ks, ceil)
	if err != nil {
		return err
	}
	c.emitWindow(w)
	c.emitInt("ceil_mode", b2i(ceil))
	switch c.n.opType {
	case "AveragePool":
		c.emitInt("count_include_pad", c.attrInt("count_include_pad", 0))
	case "MaxPool":
		c.emitInt("storage_order", c.attrInt("storage_order", 0))
	case "LpPool":
		c.emitInt("p", c.attrInt("p", 2))
	}
	shape := append([]expr.Expr{x.shape[0], x.shape[1]}, spatial...)
	c.setOut(0, x.dtype, shape)
	if len(c.outs) > 1 {
		c.setOut(1, "i64", shape)
	}
	return nil
}

func globalPool(c *nodeCtx) error {
	x := c.input(0)
	if len(x.shape) < 2 {
		return fmt.Errorf("input rank %d: want at least 2", len(x.shape))
	}
	shape := []expr.Expr{x.shape[0], x.shape[1]}
	for range x.shape[2:] {
		shape = append(shape, expr.Const(1))
	}
	if c.n.opType == "GlobalLpPool" {
		c.emitInt("p", c.attrInt("p", 2))
	}
	c.setOut(0, x.dtype, shape)
	return nil
}

func batchNorm(c *nodeCtx) error {
	x := c.input(0)
	c.emitFloat("epsilon", c.attrFloat("epsilon", 1e-5))
	c.emitFloat("momentum", c.attrFloat("momentum", 0.9))
	training := c.attrInt("training_mode", 0)
	c.emitInt("training_mode", training)
	c.setOut(0, x.dtype, x.shape)
	if len(x.shape) < 2 {
		return fmt.Errorf("input rank %d: want at least 2", len(x.shape))
	}
	for k := 1; k < len(c.outs) && k < 3; k++ {
		c.setOut(k, c.ins[3].dtype, []expr.Expr{x.shape[1]})
	}
	if len(c.outs) > 3 {
		return unsup("BatchNormalization with saved mean/variance outputs (opset < 14)")
	}
	return nil
}

func layerNorm(c *nodeCtx) error {
	x := c.input(0)
	axis, err := normAxis(c.attrInt("axis", -1), len(x.shape))
	if err != nil {
		return err
	}
	c.emitInt("axis", int64(axis))
	c.emitFloat("epsilon", c.attrFloat("epsilon", 1e-5))
	c.setOut(0, x.dtype, x.shape)
	stat := append([]expr.Expr{}, x.shape[:axis]...)
	for range x.shape[axis:] {
		stat = append(stat, expr.Const(1))
	}
	stash, err := dtypeOf(c.attrInt("stash_type", 1))
	if err != nil {
		return err
	}
	c.setOut(1, stash, stat)
	c.setOut(2, stash, stat)
	return nil
}

func gemm(c *nodeCtx) error {
	a := c.input(0)
	b := c.input(1)
	if len(a.shape) != 2 || len(b.shape) != 2 {
		return fmt.Errorf("Gemm needs 2-D inputs, got %s and %s", shapeText(a.shape), shapeText(b.shape))
	}
	ta, tb := c.attrInt("transA", 0) != 0, c.attrInt("transB", 0) != 0
	m, k := a.shape[0], a.shape[1]
	if ta {
		m, k = k, m
	}
	k2, n := b.shape[0], b.shape[1]
	if tb {
		k2, n = n, k2
	}
	if !expr.Equal(k, k2) {
		return fmt.Errorf("inner sizes %s and %s differ", k, k2)
	}
	if cv := c.opt(2); cv != nil {
		if _, err := c.broadcast([]expr.Expr{m, n}, cv.shape); err != nil {
			return fmt.Errorf("C: %v", err)
		}
	}
	c.emitFloat("alpha", c.attrFloat("alpha", 1))
	c.emitFloat("beta", c.attrFloat("beta", 1))
	c.emitInt("transA", b2i(ta))
	c.emitInt("transB", b2i(tb))
	c.setOut(0, a.dtype, []expr.Expr{m, n})
	return nil
}

func matmul(c *nodeCtx) error {
	a := c.input(0)
	b := c.input(1)
	as, bs := a.shape, b.shape
	if len(as) == 0 || len(bs) == 0 {
		return fmt.Errorf("MatMul of a scalar")
	}
	aVec, bVec := len(as) == 1, len(bs) == 1
	if aVec {
		as = []expr.Expr{expr.Const(1), as[0]}
	}
	if bVec {
		bs = []expr.Expr{bs[0], expr.Const(1)}
	}
	if !expr.Equal(as[len(as)-1], bs[len(bs)-2]) {
		return fmt.Errorf("inner sizes %s and %s differ", as[len(as)-1], bs[len(bs)-2])
	}
	batch, err := c.broadcast(as[:len(as)-2], bs[:len(bs)-2])
	if err != nil {
		return err
	}
	shape := append([]expr.Expr{}, batch...)
	if !aVec {
		shape = append(shape, as[len(as)-2])
	}
	if !bVec {
		shape = append(shape, bs[len(bs)-1])
	}
	if shape == nil {
		shape = []expr.Expr{}
	}
	c.setOut(0, a.dtype, shape)
	return nil
}

func softmax(c *nodeCtx) error {
	x := c.input(0)
	def := int64(-1)
	if c.im.opset < 13 {
		def = 1
	}
	axis, err := normAxis(c.attrInt("axis", def), len(x.shape))
	if err != nil {
		return err
	}
	c.emitInt("axis", int64(axis))
	c.emitBool("coerce_2d", c.im.opset < 13)
	c.setOut(0, x.dtype, x.shape)
	return nil
}

// reduceAxesSince is the opset in which each reduction's axes became an
// input.
func reduceAxesSince(op string) int64 {
	if op == "ReduceSum" {
		return 13
	}
	return 18
}

func reduce(c *nodeCtx) error {
	x := c.input(0)
	axes, ok, err := c.axesOf(1, reduceAxesSince(c.n.opType))
	if err != nil {
		return err
	}
	r := len(x.shape)
	keep := c.attrInt("keepdims", 1) != 0
	mark := make([]bool, r)
	if !ok || len(axes) == 0 {
		if c.attrInt("noop_with_empty_axes", 0) != 0 {
			c.emitInts("axes", nil)
			c.emitInt("keepdims", b2i(keep))
			c.setOut(0, x.dtype, x.shape)
			return nil
		}
		for k := range mark {
			mark[k] = true
		}
	}
	for _, a := range axes {
		k, err := normAxis(a, r)
		if err != nil {
			return err
		}
		mark[k] = true
	}
	shape := []expr.Expr{}
	for k, s := range x.shape {
		switch {
		case !mark[k]:
			shape = append(shape, s)
		case keep:
			shape = append(shape, expr.Const(1))
		}
	}
	c.emitInts("axes", sortedAxes(mark))
	c.emitInt("keepdims", b2i(keep))
	if v, ok := reduceKnown(c.n.opType, x, mark); ok {
		out, _ := concrete(shape)
		c.setKnown(0, x.dtype, out, []expr.Expr{v}, nil)
		return nil
	}
	c.setOut(0, x.dtype, shape)
	return nil
}

// reduceKnown reduces a shape computation's integers over every axis,
// symbolically: min(300, nonzero_1), as detection models cap a top-k by
// the number of candidates a threshold kept.
func reduceKnown(op string, x *value, mark []bool) (expr.Expr, bool) {
	if !x.known || x.ints == nil || len(x.ints) == 0 || !isIntDType(x.dtype) || x.dtype == "bool" {
		return expr.Expr{}, false
	}
	for _, m := range mark {
		if !m {
			return expr.Expr{}, false
		}
	}
	switch op {
	case "ReduceMin":
		return expr.Min(x.ints...), true
	case "ReduceMax":
		return expr.Max(x.ints...), true
	case "ReduceSum":
		return expr.Add(x.ints...), true
	case "ReduceProd":
		return expr.Mul(x.ints...), true
	}
	return expr.Expr{}, false
}

func argReduce(c *nodeCtx) error {
	x := c.input(0)
	axis, err := normAxis(c.attrInt("axis", 0), len(x.shape))
	if err != nil {
		return err
	}
	keep := c.attrInt("keepdims", 1) != 0
	shape := []expr.Expr{}
	for k, s := range x.shape {
		switch {
		case k != axis:
			shape = append(shape, s)
		case keep:
			shape = append(shape, expr.Const(1))
		}
	}
	c.emitInt("axis", int64(axis))
	c.emitInt("keepdims", b2i(keep))
	c.emitInt("select_last_index", c.attrInt("select_last_index", 0))
	c.setOut(0, "i64", shape)
	return nil
}

func topK(c *nodeCtx) error {
	x := c.input(0)
	var k expr.Expr
	if c.im.opset < 10 {
		k = expr.Const(c.attrInt("k", 0))
	} else {
		ks, err := c.intsInput(1, "K")
		if err != nil {
			return err
		}
		if len(ks) != 1 {
			return fmt.Errorf("K must hold one value")
		}
		k = ks[0]
	}
	axis, err := normAxis(c.attrInt("axis", -1), len(x.shape))
	if err != nil {
		return err
	}
	shape := append([]expr.Expr{}, x.shape...)
	shape[axis] = k
	c.emitExpr("k", k)
	c.emitInt("axis", int64(axis))
	c.emitInt("largest", c.attrInt("largest", 1))
	c.emitInt("sorted", c.attrInt("sorted", 1))
	c.setOut(0, x.dtype, shape)
	c.setOut(1, "i64", shape)
	return nil
}

func depthSpace(c *nodeCtx) error {
	x := c.input(0)
	if len(x.shape) != 4 {
		return fmt.Errorf("input rank %d: want 4", len(x.shape))
	}
	b := c.attrInt("blocksize", 0)
	if b < 1 {
		return fmt.Errorf("blocksize %d", b)
	}
	shape := append([]expr.Expr{}, x.shape...)
	if c.n.opType == "DepthToSpace" {
		q, ok := exactDiv(x.shape[1], expr.Const(b*b))
		if !ok {
			return fmt.Errorf("channels %s are not a multiple of %d", x.shape[1], b*b)
		}
		shape[1], shape[2], shape[3] = q, expr.Scale(x.shape[2], b), expr.Scale(x.shape[3], b)
		c.emitString("mode", c.attrString("mode", "DCR"))
	} else {
		h, ok1 := exactDiv(x.shape[2], expr.Const(b))
		w, ok2 := exactDiv(x.shape[3], expr.Const(b))
		if !ok1 || !ok2 {
			return fmt.Errorf("spatial sizes are not multiples of %d", b)
		}
		shape[1], shape[2], shape[3] = expr.Scale(x.shape[1], b*b), h, w
	}
	c.emitInt("blocksize", b)
	c.setOut(0, x.dtype, shape)
	return nil
}

func gatherElements(c *nodeCtx) error {
	x := c.input(0)
	idx := c.input(1)
	axis, err := normAxis(c.attrInt("axis", 0), len(x.shape))
	if err != nil {
		return err
	}
	c.emitInt("axis", int64(axis))
	c.setOut(0, x.dtype, idx.shape)
	return nil
}

func eyeLike(c *nodeCtx) error {
	x := c.input(0)
	d := x.dtype
	if a := c.typedAttr("dtype", attrInt); a != nil {
		var err error
		if d, err = dtypeOf(a.i); err != nil {
			return unsup("%v", err)
		}
	}
	c.emitInt("k", c.attrInt("k", 0))
	c.setOut(0, d, x.shape)
	return nil
}
