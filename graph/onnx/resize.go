package onnx

import (
	"fmt"
	"math"
	"math/big"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// resize is Resize (and Upsample, its opset-7..9 form): every output size is
// floor(input size × scale), or the sizes given. Scales are float32; each
// is passed to the kernel exactly, as an integer ratio (scale_num[i] /
// scale_den[i], the float's own binary fraction), so that sizes stay exact
// expressions of the symbols; given sizes pass as size / input size,
// which the kernel divides at run time as ONNX does. roi (for
// tf_crop_and_resize) passes the same way.
func resize(c *nodeCtx) error {
	x := c.input(0)
	r := len(x.shape)
	mode, coord, nearest, roiIn, scalesIn, sizesIn, err := resizeModes(c)
	if err != nil {
		return err
	}
	// axes (opset 18): the scales or sizes given are for these axes only.
	axes := make([]int, r)
	for k := range axes {
		axes[k] = k
	}
	if a, ok := c.attrInts("axes"); ok {
		axes = axes[:0]
		for _, ax := range a {
			k, err := normAxis(ax, r)
			if err != nil {
				return err
			}
			axes = append(axes, k)
		}
	}

	num, den := make([]expr.Expr, r), make([]expr.Expr, r)
	shape := make([]expr.Expr, r)
	for k := range r {
		num[k], den[k], shape[k] = expr.Const(1), expr.Const(1), x.shape[k]
	}
	scales, err := c.knownFloats(scalesIn, "scales")
	if err != nil {
		return err
	}
	var sizes []expr.Expr // may be symbolic: computed from the input's shape
	if sizesIn >= 0 && c.opt(sizesIn) != nil {
		if v := c.opt(sizesIn); !v.known && len(scales) == 0 {
			if elems, ok := sizeElems(v); ok {
				return resizeToRunTimeSizes(c, mode, coord, nearest, roiIn, axes, elems)
			}
		}
		if sizes, err = c.intsInput(sizesIn, "sizes"); err != nil {
			return err
		}
	}
	switch {
	case len(scales) > 0 && len(sizes) > 0:
		return fmt.Errorf("scales and sizes are both given")
	case len(scales) > 0:
		if len(scales) != len(axes) {
			return fmt.Errorf("%d scales for %d axes", len(scales), len(axes))
		}
		for i, k := range axes {
			n, d, ok := exactRatio(scales[i])
			if !ok || scales[i] <= 0 {
				return unsup("scale %g", scales[i])
			}
			num[k], den[k] = expr.Const(n), expr.Const(d)
			q, _ := expr.FloorDiv(expr.Scale(x.shape[k], n), expr.Const(d))
			shape[k] = q
		}
	case len(sizes) > 0:
		if len(sizes) != len(axes) {
			return fmt.Errorf("%d sizes for %d axes", len(sizes), len(axes))
		}
		for i, k := range axes {
			if !expr.NonNeg(sizes[i], c.im.bounds) {
				return unsup("size %s may be negative", sizes[i])
			}
			num[k], den[k], shape[k] = sizes[i], x.shape[k], sizes[i]
		}
	default:
		return fmt.Errorf("neither scales nor sizes is given")
	}
	roiNum, roiDen, err := resizeROI(c, coord, roiIn, axes)
	if err != nil {
		return err
	}
	if sizesIn >= 0 && c.opt(sizesIn) != nil {
		c.attrInputs[sizesIn] = true
	}
	c.kernel = "Resize"
	emitResizeAttrs(c, mode, coord, nearest)
	c.emitExprs("scale_num", num)
	c.emitExprs("scale_den", den)
	c.emitExprs("roi_num", roiNum)
	c.emitExprs("roi_den", roiDen)
	c.setOut(0, x.dtype, shape)
	return nil
}

// resizeModes reads Resize's (or Upsample's) mode attributes and which
// inputs hold roi, scales and sizes (-1: none).
func resizeModes(c *nodeCtx) (mode, coord, nearest string, roiIn, scalesIn, sizesIn int, err error) {
	mode = c.attrString("mode", "nearest")
	coord = c.attrString("coordinate_transformation_mode", "half_pixel")
	nearest = c.attrString("nearest_mode", "round_prefer_floor")
	roiIn, scalesIn, sizesIn = -1, -1, -1
	switch {
	case c.n.opType == "Upsample" || c.im.opset < 11:
		// Upsample and Resize-10: (X, scales), asymmetric coordinates,
		// nearest rounds down.
		scalesIn, coord, nearest = 1, "asymmetric", "floor"
		if c.n.opType == "Upsample" && c.im.opset < 9 {
			return "", "", "", 0, 0, 0, unsup("Upsample before opset 9 (scales as an attribute)")
		}
	default:
		roiIn, scalesIn, sizesIn = 1, 2, 3
	}
	switch mode {
	case "nearest", "linear", "cubic", "bilinear", "trilinear":
	default:
		return "", "", "", 0, 0, 0, fmt.Errorf("mode %q is not one of nearest, linear, cubic", mode)
	}
	if mode == "bilinear" || mode == "trilinear" { // Upsample's names
		mode = "linear"
	}
	if c.attrInt("antialias", 0) != 0 {
		return "", "", "", 0, 0, 0, unsup("antialias")
	}
	if p := c.attrString("keep_aspect_ratio_policy", "stretch"); p != "stretch" {
		return "", "", "", 0, 0, 0, unsup("keep_aspect_ratio_policy %q", p)
	}
	return mode, coord, nearest, roiIn, scalesIn, sizesIn, nil
}

// emitResizeAttrs passes the attributes every Resize kernel takes first.
func emitResizeAttrs(c *nodeCtx, mode, coord, nearest string) {
	c.emitString("mode", mode)
	c.emitString("coordinate_transformation_mode", coord)
	c.emitString("nearest_mode", nearest)
	c.emitFloat("cubic_coeff_a", c.attrFloat("cubic_coeff_a", -0.75))
	c.emitInt("exclude_outside", c.attrInt("exclude_outside", 0))
	c.emitFloat("extrapolation_value", c.attrFloat("extrapolation_value", 0))
}

// resizeROI is tf_crop_and_resize's roi as exact ratios per axis of the
// input (start ends then stop ends); none for other modes.
func resizeROI(c *nodeCtx, coord string, roiIn int, axes []int) (roiNum, roiDen []expr.Expr, err error) {
	r := len(c.input(0).shape)
	if coord == "tf_crop_and_resize" {
		roi, err := c.knownFloats(roiIn, "roi")
		if err != nil {
			return nil, nil, err
		}
		if len(roi) != 2*len(axes) {
			return nil, nil, fmt.Errorf("roi has %d values for %d axes", len(roi), len(axes))
		}
		roiNum, roiDen = make([]expr.Expr, 2*r), make([]expr.Expr, 2*r)
		for k := range r {
			roiNum[k], roiDen[k], roiNum[r+k], roiDen[r+k] = expr.Const(0), expr.Const(1), expr.Const(1), expr.Const(1)
		}
		for i, k := range axes {
			for j, at := range [2]int{k, r + k} {
				n, d, ok := exactRatio(roi[j*len(axes)+i])
				if !ok {
					return nil, nil, unsup("roi value %g", roi[j*len(axes)+i])
				}
				roiNum[at], roiDen[at] = expr.Const(n), expr.Const(d)
			}
		}
	} else if roiIn >= 0 && c.opt(roiIn) != nil {
		c.attrInputs[roiIn] = true // read only by tf_crop_and_resize
	}
	return roiNum, roiDen, nil
}

// knownFloats reads input i (omitted or empty: nil) as floats known at
// import time; it becomes an attribute.
func (c *nodeCtx) knownFloats(i int, what string) ([]float64, error) {
	if i < 0 {
		return nil, nil
	}
	v := c.opt(i)
	if v == nil {
		return nil, nil
	}
	if !v.known {
		return nil, neededAtImport(i, what, v)
	}
	c.attrInputs[i] = true
	if len(v.floats) == 0 && numelOf(v) > 0 {
		return nil, unsup("input %d (%s) is not a float tensor", i, what)
	}
	return v.floats, nil
}

// exactRatio is f as num/den exactly (den a power of two), when both fit
// comfortably in int64.
func exactRatio(f float64) (num, den int64, ok bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, 0, false
	}
	r := new(big.Rat).SetFloat64(f)
	if r == nil || !r.Num().IsInt64() || !r.Denom().IsInt64() {
		return 0, 0, false
	}
	num, den = r.Num().Int64(), r.Denom().Int64()
	if num > 1<<40 || num < -(1<<40) || den > 1<<40 {
		return 0, 0, false
	}
	return num, den, true
}

// resizeRunTimeKernel is the kernel of a Resize whose sizes are computed
// at run time from other sizes (sizeElems): ResizeToSizes<N> reports the
// N sizes the importer could not compute, less their least values
// (attribute least), one i64 scalar output each, and writes
// the output row-major and contiguous at the sizes it read from its
// second input, as the kernels of datadep.go do.
const resizeRunTimeKernel = "ResizeToSizes"

// resizeToRunTimeSizes imports a Resize whose sizes input is computed at
// run time from other sizes, elems its elements: each an exact integer
// expression (the output's size on its axis) or a computation whose value
// the kernel reads, a run-time size bounded by what the computation can
// reach over its symbols' ranges (sizeBound).
func resizeToRunTimeSizes(c *nodeCtx, mode, coord, nearest string, roiIn int, axes []int, elems []*sizeExpr) error {
	x := c.input(0)
	if len(elems) != len(axes) {
		return fmt.Errorf("%d sizes for %d axes", len(elems), len(axes))
	}
	shape := append([]expr.Expr{}, x.shape...)
	var reported, least []int64
	for i, k := range axes {
		nonEmpty := func(e *sizeExpr) (int64, int64, error) {
			return c.im.nonEmptySizeRange(e, fmt.Sprintf("the size Resize %q computes on axis %d", firstOutput(c.n), k))
		}
		var err error
		if shape[k], err = c.runTimeDim(elems[i], k, "the size", nonEmpty, &reported, &least); err != nil {
			return err
		}
	}
	roiNum, roiDen, err := resizeROI(c, coord, roiIn, axes)
	if err != nil {
		return err
	}
	if s, ok := concrete(c.input(3).shape); !ok || len(s) != 1 || s[0] != int64(len(axes)) {
		return fmt.Errorf("input 3 (sizes) has shape %s, want [%d]", shapeText(c.input(3).shape), len(axes))
	}
	if c.nIn() > 2 && c.opt(2) != nil {
		c.attrInputs[2] = true // empty scales
	}
	c.noteInexact(c.input(3))
	c.kernel = fmt.Sprintf("%s%d", resizeRunTimeKernel, len(reported))
	sizeAxes := make([]int64, len(axes))
	for i, k := range axes {
		sizeAxes[i] = int64(k)
	}
	emitResizeAttrs(c, mode, coord, nearest)
	c.emitExprs("roi_num", roiNum)
	c.emitExprs("roi_den", roiDen)
	c.emitInts("size_axes", sizeAxes)
	c.emitInts("axes", reported)
	c.emitInts("least", least)
	c.setOut(0, x.dtype, shape)
	return nil
}

// maxRaisedMin is the largest minimum nonEmptySizeRange gives a symbol:
// a larger one would refuse images a user means to pass (their largest
// size is then too large: a -max is the fix, which the error at the op
// that needs the size says).
const maxRaisedMin = 64

// nonEmptySizeRange is sizeRange of a size a Resize computes, with the
// minima of the symbols it is computed from raised, where the user set
// none, until the size is at least 1 (noted): an empty resized image is
// no input for the layers after it (a convolution needs a row), and
// torchvision's transform gives 0 rows only to an image far wider than
// high (1 by 1000 pixels). what names the size in the note.
func (im *importer) nonEmptySizeRange(e *sizeExpr, what string) (lo, hi int64, err error) {
	lo, hi, err = im.sizeRange(e)
	if err != nil || lo >= 1 || e.fromData() {
		return lo, hi, err
	}
	var free []string
	for _, s := range e.symbols() {
		_, set := im.opts.Min[s]
		_, rt := im.runTime[s]
		if !set && !rt {
			free = append(free, s)
		}
	}
	if len(free) == 0 {
		return lo, hi, nil
	}
	orig := map[string]expr.Range{}
	for _, s := range free {
		orig[s] = im.bounds[s]
	}
	// leastWith is the size's least value with every free symbol's
	// minimum at least m; -1 when some symbol cannot be that large.
	leastWith := func(m int64) int64 {
		defer func() {
			for s, r := range orig {
				im.bounds[s] = r
			}
		}()
		for s, r := range orig {
			if r.Max >= 0 && m > r.Max {
				return -1
			}
			im.bounds[s] = expr.Range{Min: max(r.Min, m), Max: r.Max}
		}
		l, _, err := im.sizeRange(e)
		if err != nil {
			return -1
		}
		return l
	}
	if leastWith(maxRaisedMin) < 1 {
		return lo, hi, nil
	}
	top := int64(1)
	// At most maxRaisedMin, which gave a size of at least 1: once the
	// model's bound budget is spent, bounds are looser and a larger
	// minimum may no longer show it.
	for top < maxRaisedMin && leastWith(top) < 1 {
		top *= 2
	}
	low := top / 2
	for low < top {
		mid := low + (top-low)/2
		if leastWith(mid) >= 1 {
			top = mid
		} else {
			low = mid + 1
		}
	}
	for _, s := range free {
		if orig[s].Min < top {
			im.raiseMin(s, top, what+" is at least 1")
		}
	}
	return im.sizeRange(e)
}
