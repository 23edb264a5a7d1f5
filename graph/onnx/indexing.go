package onnx

import (
	"fmt"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// gatherND: each index tuple (the last dimension of indices, k long)
// selects a slice of data after the first batch_dims dimensions: the
// output is indices.shape[:-1] + data.shape[batch_dims+k:].
func gatherND(c *nodeCtx) error {
	data := c.input(0)
	idx := c.input(1)
	if idx.dtype != "i64" {
		return fmt.Errorf("indices have dtype %s, want i64", idx.dtype)
	}
	b := c.attrInt("batch_dims", 0)
	q, r := len(idx.shape), len(data.shape)
	if q < 1 || b < 0 || int(b) >= min(q, r) {
		return fmt.Errorf("batch_dims %d for data %s and indices %s", b, shapeText(data.shape), shapeText(idx.shape))
	}
	k, ok := idx.shape[q-1].IsConst()
	if !ok {
		return unsup("the index tuple length %s must be a constant", idx.shape[q-1])
	}
	if k < 1 || int(b)+int(k) > r {
		return fmt.Errorf("index tuples of %d for data of rank %d after %d batch dimensions", k, r, b)
	}
	shape := append(append([]expr.Expr{}, idx.shape[:q-1]...), data.shape[int(b)+int(k):]...)
	c.emitInt("batch_dims", b)
	c.setOut(0, data.dtype, shape)
	return nil
}

// oneHot: the output has indices' shape with depth inserted at axis; the
// values input ([off, on]) stays a kernel input.
func oneHot(c *nodeCtx) error {
	idx := c.input(0)
	var depths []expr.Expr
	var err error
	if d := c.opt(1); d != nil && d.known && len(d.floats) > 0 {
		c.attrInputs[1] = true // a float depth: ONNX casts it to an integer
		for _, f := range d.floats {
			depths = append(depths, expr.Const(int64(f)))
		}
	} else if depths, err = c.intsInput(1, "depth"); err != nil {
		return err
	}
	values := c.input(2)
	if len(depths) != 1 {
		return fmt.Errorf("depth has %d values, want 1", len(depths))
	}
	depth := depths[0]
	if !expr.NonNeg(expr.Sub(depth, expr.Const(1)), c.im.bounds) {
		return unsup("depth %s may be below 1", depth)
	}
	r := len(idx.shape) + 1
	axis, err := normAxis(c.attrInt("axis", -1), r)
	if err != nil {
		return err
	}
	shape := append(append(append([]expr.Expr{}, idx.shape[:axis]...), depth), idx.shape[axis:]...)
	c.emitInt("axis", int64(axis))
	c.setOut(0, values.dtype, shape)
	return nil
}

// quantizeLinear: y = saturate(round(x / scale) + zero_point), per tensor
// or per axis; y's dtype is the zero point's (u8 without one).
func quantizeLinear(c *nodeCtx) error {
	x := c.input(0)
	dtype := "u8"
	if zp := c.opt(2); zp != nil {
		dtype = string(zp.dtype)
	}
	switch dtype {
	case "u8", "i8":
	default:
		return unsup("quantizing to %s", dtype)
	}
	if c.attrInt("saturate", 1) != 1 {
		return unsup("saturate=0")
	}
	c.emitInt("axis", c.attrInt("axis", 1))
	c.setOut(0, graph.DType(dtype), x.shape)
	return nil
}

// dequantizeLinear: y = (x - zero_point) * scale, as the scale's dtype.
func dequantizeLinear(c *nodeCtx) error {
	x := c.input(0)
	scale := c.input(1)
	c.emitInt("axis", c.attrInt("axis", 1))
	c.setOut(0, scale.dtype, x.shape)
	return nil
}

// dynamicQuantizeLinear: y (u8), its scale (f32 scalar) and zero point
// (u8 scalar), from x's range widened to include 0.
func dynamicQuantizeLinear(c *nodeCtx) error {
	x := c.input(0)
	if x.dtype != "f32" {
		return fmt.Errorf("x has dtype %s, want f32", x.dtype)
	}
	c.setOut(0, "u8", x.shape)
	c.setOut(1, "f32", []expr.Expr{})
	c.setOut(2, "u8", []expr.Expr{})
	return nil
}

// meanVarianceNormalization keeps x's shape; the kernel normalizes over
// "axes" (default 0, 2, 3), which it gets non-negative.
func meanVarianceNormalization(c *nodeCtx) error {
	x := c.input(0)
	axes, ok := c.attrInts("axes")
	if !ok {
		axes = []int64{0, 2, 3}
	}
	norm := make([]int64, len(axes))
	for i, a := range axes {
		k, err := normAxis(a, len(x.shape))
		if err != nil {
			return err
		}
		norm[i] = int64(k)
	}
	c.emitInts("axes", norm)
	c.setOut(0, x.dtype, x.shape)
	return nil
}

// reverseSequence keeps the input's shape; sequence_lens stays a kernel
// input.
func reverseSequence(c *nodeCtx) error {
	x := c.input(0)
	b, err := normAxis(c.attrInt("batch_axis", 1), len(x.shape))
	if err != nil {
		return err
	}
	t, err := normAxis(c.attrInt("time_axis", 0), len(x.shape))
	if err != nil {
		return err
	}
	if b == t {
		return fmt.Errorf("batch_axis and time_axis are both %d", b)
	}
	c.emitInt("batch_axis", int64(b))
	c.emitInt("time_axis", int64(t))
	c.setOut(0, x.dtype, x.shape)
	return nil
}

// lossOp is NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: the
// loss has the target's shape with reduction "none", else it is a scalar;
// SoftmaxCrossEntropyLoss's optional second output, the log-probabilities,
// has the scores' shape.
func lossOp(c *nodeCtx) error {
	x := c.input(0)
	target := c.input(1)
	if len(x.shape) < 2 || len(target.shape) != len(x.shape)-1 {
		return fmt.Errorf("input %s and target %s: want [N, C, ...] and [N, ...]", shapeText(x.shape), shapeText(target.shape))
	}
	if !isIntDType(target.dtype) || target.dtype == "bool" {
		return fmt.Errorf("target has dtype %s, want an integer type", target.dtype)
	}
	reduction := c.attrString("reduction", "mean")
	out := []expr.Expr{}
	switch reduction {
	case "none":
		out = target.shape
	case "sum", "mean":
	default:
		return fmt.Errorf("reduction %q is not none, sum or mean", reduction)
	}
	c.emitString("reduction", reduction)
	c.emitInt("ignore_index", c.attrInt("ignore_index", 0))
	c.emitBool("has_ignore_index", c.typedAttr("ignore_index", attrInt) != nil)
	c.setOut(0, x.dtype, out)
	if c.n.opType == "SoftmaxCrossEntropyLoss" {
		c.setOut(1, x.dtype, x.shape)
	}
	return nil
}

// gridSample: the output is [N, C] of X by the grid's [H_out, W_out]
// (2-D sampling, as opset 16 defines it).
func gridSample(c *nodeCtx) error {
	x := c.input(0)
	grid := c.input(1)
	if len(x.shape) != 4 || len(grid.shape) != 4 {
		return unsup("GridSample of X %s by grid %s: only 2-D sampling ([N, C, H, W] by [N, H_out, W_out, 2])", shapeText(x.shape), shapeText(grid.shape))
	}
	c.emitString("mode", c.attrString("mode", "bilinear"))
	c.emitString("padding_mode", c.attrString("padding_mode", "zeros"))
	c.emitInt("align_corners", c.attrInt("align_corners", 0))
	c.setOut(0, x.dtype, []expr.Expr{x.shape[0], x.shape[1], grid.shape[1], grid.shape[2]})
	return nil
}

// det: the determinant of each square matrix of the last two dimensions.
func det(c *nodeCtx) error {
	x := c.input(0)
	r := len(x.shape)
	if r < 2 || !expr.Equal(x.shape[r-1], x.shape[r-2]) {
		return fmt.Errorf("input %s: want square matrices", shapeText(x.shape))
	}
	c.setOut(0, x.dtype, append([]expr.Expr{}, x.shape[:r-2]...))
	return nil
}

// maxUnpool: the output is output_shape when given (known at import),
// else each spatial size (in - 1)*stride + kernel - pads.
func maxUnpool(c *nodeCtx) error {
	x := c.input(0)
	n := len(x.shape) - 2
	kernel, _ := c.attrInts("kernel_shape")
	if n < 1 || len(kernel) != n {
		return fmt.Errorf("input %s and kernel_shape %v do not fit", shapeText(x.shape), kernel)
	}
	strides, ok := c.attrInts("strides")
	if !ok {
		strides = make([]int64, n)
		for i := range strides {
			strides[i] = 1
		}
	}
	pads, ok := c.attrInts("pads")
	if !ok {
		pads = make([]int64, 2*n)
	}
	c.emitInts("kernel_shape", kernel)
	c.emitInts("strides", strides)
	c.emitInts("pads", pads)
	var shape []expr.Expr
	if c.opt(2) != nil {
		var err error
		if shape, err = c.intsInput(2, "output_shape"); err != nil {
			return err
		}
	} else {
		shape = append(shape, x.shape[0], x.shape[1])
		for i := range n {
			shape = append(shape, expr.Add(expr.Scale(expr.Sub(x.shape[2+i], expr.Const(1)), strides[i]), expr.Const(kernel[i]-pads[i]-pads[n+i])))
		}
	}
	c.setOut(0, x.dtype, shape)
	return nil
}

// roiAlign: one [C, output_height, output_width] map per region of
// interest.
func roiAlign(c *nodeCtx) error {
	x := c.input(0)
	rois := c.input(1)
	if len(x.shape) != 4 || len(rois.shape) != 2 {
		return fmt.Errorf("X %s and rois %s: want [N, C, H, W] and [R, 4]", shapeText(x.shape), shapeText(rois.shape))
	}
	mode := c.attrString("coordinate_transformation_mode", "half_pixel")
	if c.im.opset < 16 {
		mode = "output_half_pixel"
	}
	oh, ow := c.attrInt("output_height", 1), c.attrInt("output_width", 1)
	c.emitString("coordinate_transformation_mode", mode)
	c.emitString("mode", c.attrString("mode", "avg"))
	c.emitInt("output_height", oh)
	c.emitInt("output_width", ow)
	c.emitInt("sampling_ratio", c.attrInt("sampling_ratio", 0))
	c.emitFloat("spatial_scale", c.attrFloat("spatial_scale", 1))
	c.setOut(0, x.dtype, []expr.Expr{rois.shape[0], x.shape[1], expr.Const(oh), expr.Const(ow)})
	return nil
}

// dft: the output has the input's shape with the transformed axis of
// dft_length (or the input's length; n/2 + 1 one-sided) and a last
// dimension of 2 (real, imaginary).
func dft(c *nodeCtx) error {
	x := c.input(0)
	r := len(x.shape)
	if r < 3 {
		return fmt.Errorf("input %s: want [batch, ..., 1 or 2]", shapeText(x.shape))
	}
	last, ok := x.shape[r-1].IsConst()
	if !ok || (last != 1 && last != 2) {
		return fmt.Errorf("input %s: the last dimension must be 1 (real) or 2 (complex)", shapeText(x.shape))
	}
	axis, err := normAxis(c.attrInt("axis", 1), r-1)
	if err != nil {
		return err
	}
	if axis == 0 {
		return fmt.Errorf("axis 0 is the batch")
	}
	n := x.shape[axis]
	if c.opt(1) != nil {
		ls, err := c.intsInput(1, "dft_length")
		if err != nil {
			return err
		}
		if len(ls) != 1 {
			return fmt.Errorf("dft_length has %d values", len(ls))
		}
		n = ls[0]
	}
	onesided := c.attrInt("onesided", 0) != 0
	inverse := c.attrInt("inverse", 0) != 0
	if onesided && (last == 2 || inverse) {
		return unsup("a one-sided DFT of complex input or an inverse one")
	}
	shape := append([]expr.Expr{}, x.shape...)
	shape[axis], shape[r-1] = n, expr.Const(2)
	if onesided {
		h, _ := expr.FloorDiv(n, expr.Const(2))
		shape[axis] = expr.Add(h, expr.Const(1))
	}
	c.emitInt("axis", int64(axis))
	c.emitExpr("length", n)
	c.emitBool("inverse", inverse)
	c.emitBool("onesided", onesided)
	c.setOut(0, x.dtype, shape)
	return nil
}

// stft: frames of frame_length samples every frame_step, each windowed (the
// window input stays a kernel input) and transformed: [batch, frames,
// bins, 2], bins frame_length/2 + 1 one-sided.
func stft(c *nodeCtx) error {
	x := c.input(0)
	if len(x.shape) != 3 {
		return fmt.Errorf("signal %s: want [batch, length, 1 or 2]", shapeText(x.shape))
	}
	steps, err := c.intsInput(1, "frame_step")
	if err != nil {
		return err
	}
	var length expr.Expr
	window := c.opt(2)
	switch {
	case c.opt(3) != nil:
		ls, err := c.intsInput(3, "frame_length")
		if err != nil {
			return err
		}
		if len(ls) != 1 {
			return fmt.Errorf("frame_length has %d values", len(ls))
		}
		length = ls[0]
	case window != nil:
		if len(window.shape) != 1 {
			return fmt.Errorf("window %s: want one dimension", shapeText(window.shape))
		}
		length = window.shape[0]
	default:
		return fmt.Errorf("neither a window nor frame_length gives the frame length")
	}
	if len(steps) != 1 {
		return fmt.Errorf("frame_step has %d values", len(steps))
	}
	step := steps[0]
	st, ok := step.IsConst()
	if !ok || st < 1 {
		return unsup("frame_step %s must be a positive constant", step)
	}
	frames, _ := expr.FloorDiv(expr.Sub(x.shape[1], length), step)
	frames = expr.Add(frames, expr.Const(1))
	if err := c.im.atLeast(frames, 1, "frame count"); err != nil {
		return err
	}
	onesided := c.attrInt("onesided", 1) != 0
	bins := length
	if onesided {
		h, _ := expr.FloorDiv(length, expr.Const(2))
		bins = expr.Add(h, expr.Const(1))
	}
	c.emitExpr("frame_step", step)
	c.emitExpr("frame_length", length)
	c.emitBool("onesided", onesided)
	c.emitBool("has_window", window != nil)
	c.setOut(0, x.dtype, []expr.Expr{x.shape[0], frames, bins, expr.Const(2)})
	return nil
}
