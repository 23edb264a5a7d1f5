package wgref

import (
	"fmt"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The kernels of an If whose condition is known only at run time
// (graph/onnx/controlflow.go): both branches have run, and Choose copies
// one branch's output. Choose1 … Choose<maxRank> also report the sizes of
// the axes whose size differs between the branches (attribute axes), one
// i64 scalar output each, and then write the output row-major and
// contiguous at the chosen sizes, as the kernels of datadep.go do.

func init() {
	register("Choose", choose)
	for n := 1; n <= maxRank; n++ {
		register(fmt.Sprintf("Choose%d", n), choose)
	}
}

func choose(c *wgrt.Call) error {
	if len(c.Inputs) != 3 || len(c.Outputs) < 1 {
		return fmt.Errorf("%s: %d inputs and %d outputs, want 3 and at least 1", c.Kernel, len(c.Inputs), len(c.Outputs))
	}
	cond, out := c.Inputs[0], c.Outputs[0]
	if cond.DType != wgrt.Bool || cond.NumElements() != 1 {
		return fmt.Errorf("%s: the condition is %s %v, want one bool", c.Kernel, cond.DType, cond.Shape)
	}
	src := c.Inputs[2]
	if loadU(cond, 0) != 0 {
		src = c.Inputs[1]
	}
	if src.DType != out.DType || len(src.Shape) != len(out.Shape) {
		return fmt.Errorf("%s: cannot copy %s %v into %s %v", c.Kernel, src.DType, src.Shape, out.DType, out.Shape)
	}
	counts := c.Outputs[1:]
	if len(counts) == 0 {
		if !sameShape(src.Shape, out.Shape) {
			return fmt.Errorf("%s: cannot copy %v into %v", c.Kernel, src.Shape, out.Shape)
		}
		copyStrided(out.Shape, out, out.Strides, 0, src, src.Strides, 0, threadsOf(c))
		return nil
	}
	a := attrsOf(c)
	axes := a.Ints("axes")
	if a.err != nil {
		return a.err
	}
	if len(axes) != len(counts) {
		return fmt.Errorf("%s: %d axes for %d sizes", c.Kernel, len(axes), len(counts))
	}
	// Every axis not reported has the output's size; the chosen tensor
	// fits in the output's capacity.
	reported := [maxRank]bool{}
	for _, ax := range axes {
		if ax < 0 || ax >= len(out.Shape) {
			return fmt.Errorf("%s: axis %d of an output of rank %d", c.Kernel, ax, len(out.Shape))
		}
		reported[ax] = true
	}
	for d := range out.Shape {
		if !reported[d] && src.Shape[d] != out.Shape[d] {
			return fmt.Errorf("%s: cannot copy %v into %v", c.Kernel, src.Shape, out.Shape)
		}
	}
	if n, capacity := src.NumElements(), out.NumElements(); n > capacity {
		return overflow(c, n, capacity)
	}
	for k, ax := range axes {
		if t := counts[k]; t.DType != wgrt.I64 || t.NumElements() != 1 {
			return fmt.Errorf("%s: output %d (a size) is %s %v, want an i64 scalar", c.Kernel, k+1, t.DType, t.Shape)
		}
		storeI(counts[k], 0, int64(src.Shape[ax]))
	}
	var strides [maxRank]int
	compact := strides[:len(src.Shape)]
	step := 1
	for d := len(src.Shape) - 1; d >= 0; d-- {
		compact[d] = step
		step *= src.Shape[d]
	}
	copyStrided(src.Shape, out, compact, 0, src, src.Strides, 0, threadsOf(c))
	return nil
}
