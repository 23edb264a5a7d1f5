package wgref

import (
	"fmt"
	"slices"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Ops whose shape input the importer could not compute (its sizes are
// computed at run time from other sizes or from bounded data):
// ConstantOfShapeToSizes<N> and ExpandToSizes<N> read the shape from
// their input, write the output row-major and contiguous at it, and
// report the sizes of the N axes attribute axes lists, each less its
// least value (attribute least), one i64 scalar output each, as the
// kernels of datadep.go do. ResizeToSizes<N> (resize.go) is another.

func init() {
	for n := 0; n <= maxRank; n++ {
		register(fmt.Sprintf("ConstantOfShapeToSizes%d", n), constantOfShapeToSizes)
		register(fmt.Sprintf("ExpandToSizes%d", n), expandToSizes)
	}
}

// readShape reads an i64 shape tensor of rank 1.
func readShape(c *wgrt.Call, t wgrt.Tensor, into *[maxRank]int) ([]int, error) {
	if t.DType != wgrt.I64 || len(t.Shape) != 1 || t.Shape[0] > maxRank {
		return nil, fmt.Errorf("%s: the shape is %s %v, want i64 [rank <= %d]", c.Kernel, t.DType, t.Shape, maxRank)
	}
	for i := range t.Shape[0] {
		n := loadI(t, i*t.Strides[0])
		if n < 0 || n > 1<<40 {
			return nil, fmt.Errorf("%s: size %d at %d of the shape", c.Kernel, n, i)
		}
		into[i] = int(n)
	}
	return into[:t.Shape[0]], nil
}

// compactAt checks that shape fits out (its capacity) and agrees with it
// on the axes not reported, stores the reported sizes (less their least)
// in counts, and returns out laid out row-major at shape.
func compactAt(c *wgrt.Call, out wgrt.Tensor, shape []int, counts []wgrt.Tensor, strides *[maxRank]int) (wgrt.Tensor, error) {
	a := attrsOf(c)
	axes, least := a.Ints("axes"), a.Ints("least")
	if a.err != nil {
		return out, a.err
	}
	if len(out.Shape) != len(shape) || len(axes) != len(counts) || len(least) != len(axes) {
		return out, fmt.Errorf("%s: a shape of rank %d for output %v, %d sizes reported for axes %v", c.Kernel, len(shape), out.Shape, len(counts), axes)
	}
	reported := [maxRank]bool{}
	for j, k := range axes {
		if k < 0 || k >= len(shape) {
			return out, fmt.Errorf("%s: axis %d of an output of rank %d", c.Kernel, k, len(shape))
		}
		if t := counts[j]; t.DType != wgrt.I64 || t.NumElements() != 1 {
			return out, fmt.Errorf("%s: output %d (a size) is %s %v, want an i64 scalar", c.Kernel, j+1, t.DType, t.Shape)
		}
		if shape[k] < least[j] {
			return out, fmt.Errorf("%s: size %d on axis %d, below the least the import derived, %d", c.Kernel, shape[k], k, least[j])
		}
		reported[k] = true
	}
	n := 1
	for k := range shape {
		if !reported[k] && shape[k] != out.Shape[k] {
			// A copy of shape in the message: shape itself is the caller's
			// array, which would move to the heap on every call.
			return out, fmt.Errorf("%s: the shape is %v, but the output is %v", c.Kernel, slices.Clone(shape), out.Shape)
		}
		n *= shape[k]
	}
	if capacity := out.NumElements(); n > capacity {
		return out, overflow(c, n, capacity)
	}
	for j, k := range axes {
		storeI(counts[j], 0, int64(shape[k]-least[j]))
	}
	step := 1
	for k := len(shape) - 1; k >= 0; k-- {
		strides[k] = step
		step *= shape[k]
	}
	// A new tensor, not out: the messages above format out.Shape, and
	// escape analysis, blind to the order of statements, would send
	// shape and strides to the heap with it.
	laid := out
	laid.Shape, laid.Strides = shape, strides[:len(shape)]
	return laid, nil
}

// constantOfShapeToSizes fills the shape its input holds with attribute
// value.
func constantOfShapeToSizes(c *wgrt.Call) error {
	if len(c.Inputs) != 1 || len(c.Outputs) < 1 {
		return fmt.Errorf("%s: %d inputs and %d outputs, want 1 and at least 1", c.Kernel, len(c.Inputs), len(c.Outputs))
	}
	a := attrsOf(c)
	v := a.FloatOr("value", 0)
	if a.err != nil {
		return a.err
	}
	var dims, strides [maxRank]int
	shape, err := readShape(c, c.Inputs[0], &dims)
	if err != nil {
		return err
	}
	out, err := compactAt(c, c.Outputs[0], shape, c.Outputs[1:], &strides)
	if err != nil {
		return err
	}
	for idx := range indices(out.Shape) {
		storeF(out, offsetOf(idx, out.Strides), v)
	}
	return nil
}

// expandToSizes broadcasts its first input to the shape its second holds
// (ONNX Expand: the two shapes broadcast against each other).
func expandToSizes(c *wgrt.Call) error {
	if len(c.Inputs) != 2 || len(c.Outputs) < 1 {
		return fmt.Errorf("%s: %d inputs and %d outputs, want 2 and at least 1", c.Kernel, len(c.Inputs), len(c.Outputs))
	}
	x := c.Inputs[0]
	var dims, strides [maxRank]int
	target, err := readShape(c, c.Inputs[1], &dims)
	if err != nil {
		return err
	}
	r := max(len(x.Shape), len(target))
	if r > maxRank {
		return fmt.Errorf("%s: rank %d", c.Kernel, r)
	}
	var shape [maxRank]int
	for k := range r {
		xd, td := 1, 1
		if i := k - (r - len(x.Shape)); i >= 0 {
			xd = x.Shape[i]
		}
		if i := k - (r - len(target)); i >= 0 {
			td = target[i]
		}
		switch {
		case xd == td || td == 1:
			shape[k] = xd
		case xd == 1:
			shape[k] = td
		default:
			return fmt.Errorf("%s: shape %v does not broadcast with %v", c.Kernel, x.Shape, slices.Clone(target))
		}
	}
	out, err := compactAt(c, c.Outputs[0], shape[:r], c.Outputs[1:], &strides)
	if err != nil {
		return err
	}
	return broadcastInto(c, out.Shape, out.Strides, c.Outputs[0], x)
}
