package wgref

import (
	"fmt"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The two kernels the ONNX importer adds for loops (graph/onnx/loop.go):
// they write into a tensor the op mutates, given after the op's inputs.

func init() {
	register("Assign", assign)
	register("AssignSlice", assignSlice)
}

// assign copies input 0 into input 1, of the same dtype and shape: a
// loop-carried value taking its new value at the end of an iteration.
func assign(c *wgrt.Call) error {
	if err := need(c, 0, 2, 2); err != nil {
		return err
	}
	src, dst := c.Inputs[0], c.Inputs[1]
	if src.DType != dst.DType || !sameShape(src.Shape, dst.Shape) {
		return fmt.Errorf("%s: cannot copy %s %v into %s %v", c.Kernel, src.DType, src.Shape, dst.DType, dst.Shape)
	}
	copyStrided(dst.Shape, dst, dst.Strides, 0, src, src.Strides, 0, threadsOf(c))
	return nil
}

// assignSlice copies input 0 into input 2 at the index input 1 holds along
// attribute axis: one iteration's slice of a scan output.
func assignSlice(c *wgrt.Call) error {
	if err := need(c, 0, 3, 3); err != nil {
		return err
	}
	a := attrsOf(c)
	axis := a.Int("axis")
	if a.err != nil {
		return a.err
	}
	src, at, dst := c.Inputs[0], c.Inputs[1], c.Inputs[2]
	if axis < 0 || axis >= len(dst.Shape) || len(src.Shape) != len(dst.Shape)-1 || src.DType != dst.DType {
		return fmt.Errorf("%s: cannot copy %s %v into %s %v along axis %d", c.Kernel, src.DType, src.Shape, dst.DType, dst.Shape, axis)
	}
	var strides [maxRank]int
	n := 0
	for d := range dst.Shape {
		if d == axis {
			continue
		}
		if dst.Shape[d] != src.Shape[n] {
			return fmt.Errorf("%s: cannot copy %v into %v along axis %d", c.Kernel, src.Shape, dst.Shape, axis)
		}
		strides[n] = dst.Strides[d]
		n++
	}
	if at.NumElements() != 1 || (at.DType != wgrt.I64 && at.DType != wgrt.I32) {
		return fmt.Errorf("%s: the index is %s %v, want one integer", c.Kernel, at.DType, at.Shape)
	}
	i := loadI(at, 0)
	if i < 0 || i >= int64(dst.Shape[axis]) {
		return fmt.Errorf("%s: index %d is outside [0, %d)", c.Kernel, i, dst.Shape[axis])
	}
	copyStrided(src.Shape, dst, strides[:n], int(i)*dst.Strides[axis], src, src.Strides, 0, threadsOf(c))
	return nil
}
