package wgref

import (
	"fmt"

	"github.com/wrapgen/wrapgen/wrapper/golang/wgrt"
)

// Kernels that make tensors from their attributes and shapes.

func init() {
	register("Constant", constant)
	register("ConstantOfShape", constantOfShape)
	register("Range", rangeKernel)
	register("EyeLike", eyeLike)
	register("Trilu", trilu)
}

// constant writes the int list attribute "value", one per element.
func constant(c *wgrt.Call) error {
	if err := need(c, 1, 0, 0); err != nil {
		return err
	}
	a := attrsOf(c)
	vals := a.Ints("value")
	if a.err != nil {
		return a.err
	}
	out := c.Outputs[0]
	if len(vals) != out.NumElements() {
		return fmt.Errorf("%s: %d values for %d elements", c.Kernel, len(vals), out.NumElements())
	}
	i := 0
	for idx := range indices(out.Shape) {
		storeI(out, offsetOf(idx, out.Strides), int64(vals[i]))
		i++
	}
	return nil
}

func constantOfShape(c *wgrt.Call) error {
	if len(c.Outputs) != 1 {
		return fmt.Errorf("%s: %d outputs, want 1", c.Kernel, len(c.Outputs))
	}
	a := attrsOf(c)
	v := a.FloatOr("value", 0)
	if a.err != nil {
		return a.err
	}
	out := c.Outputs[0]
	for idx := range indices(out.Shape) {
		storeF(out, offsetOf(idx, out.Strides), v)
	}
	return nil
}

func rangeKernel(c *wgrt.Call) error {
	if len(c.Outputs) != 1 {
		return fmt.Errorf("%s: %d outputs, want 1", c.Kernel, len(c.Outputs))
	}
	a := attrsOf(c)
	start, delta := a.Int("start"), a.Int("delta")
	if a.err != nil {
		return a.err
	}
	out := c.Outputs[0]
	for i := 0; i < out.NumElements(); i++ {
		storeI(out, i*out.Strides[0], int64(start+i*delta))
	}
	return nil
}

// eyeLike writes ones on the k-th diagonal of a 2-D output.
func eyeLike(c *wgrt.Call) error {
	if len(c.Outputs) != 1 {
		return fmt.Errorf("%s: %d outputs, want 1", c.Kernel, len(c.Outputs))
	}
	a := attrsOf(c)
	k := a.IntOr("k", 0)
	if a.err != nil {
		return a.err
	}
	out := c.Outputs[0]
	if len(out.Shape) != 2 {
		return fmt.Errorf("%s: output rank %d, want 2", c.Kernel, len(out.Shape))
	}
	for idx := range indices(out.Shape) {
		v := 0.0
		if idx[1]-idx[0] == k {
			v = 1
		}
		storeF(out, offsetOf(idx, out.Strides), v)
	}
	return nil
}

// trilu keeps the upper (j - i >= k) or lower (j - i <= k) triangle of the
// last two dimensions and zeroes the rest.
func trilu(c *wgrt.Call) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	a := attrsOf(c)
	k, upper := a.IntOr("k", 0), a.IntOr("upper", 1) != 0
	if a.err != nil {
		return a.err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	r := len(x.Shape)
	if r < 2 || !sameShape(out.Shape, x.Shape) {
		return fmt.Errorf("%s: want a rank 2 or more input of the output's shape", c.Kernel)
	}
	for idx := range indices(x.Shape) {
		d := idx[r-1] - idx[r-2]
		o := offsetOf(idx, out.Strides)
		if (upper && d >= k) || (!upper && d <= k) {
			copyElem(out, o, x, offsetOf(idx, x.Strides))
		} else {
			storeI(out, o, 0)
		}
	}
	return nil
}
