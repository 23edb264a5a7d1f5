package wgref

import (
	"fmt"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
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
	if len(c.Inputs) == 1 {
		return rangeOfData(c)
	}
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

// rangeOfData is a Range whose limit, its input (an integer scalar), is
// computed from data: start + i*delta for i below
// max(ceil((limit - start) / delta), 0), delta > 0. The length is a
// run-time size: the output comes laid out at its bound, and the length
// goes to the last output (see datadep.go), unless attribute length gives
// the size the importer made it equal (then a limit giving another is an
// error). With exact set the importer has taken the limit for start +
// length: a limit below start is refused, as PyTorch's arange refuses it.
func rangeOfData(c *wgrt.Call) error {
	if err := need(c, 2, 1, 1); err != nil {
		return err
	}
	a := attrsOf(c)
	start, delta, exact := a.Int("start"), a.Int("delta"), a.Bool("exact")
	length := -1
	if a.Has("length") {
		length = a.Int("length")
	}
	if a.err != nil {
		return a.err
	}
	out, lim := c.Outputs[0], c.Inputs[0]
	count, err := countOutput(c)
	if err != nil {
		return err
	}
	if familyOf(lim.DType) != famInt && familyOf(lim.DType) != famUint || lim.NumElements() != 1 {
		return fmt.Errorf("%s: the limit is %s %v, want an integer scalar", c.Kernel, lim.DType, lim.Shape)
	}
	if delta <= 0 {
		return fmt.Errorf("%s: delta %d, want a positive one", c.Kernel, delta)
	}
	limit := loadI(lim, 0)
	if exact && limit < int64(start) {
		return fmt.Errorf("%s: the limit %d is below the start %d", c.Kernel, limit, start)
	}
	n := 0
	if limit > int64(start) {
		n = int((limit - int64(start) + int64(delta) - 1) / int64(delta))
	}
	if length >= 0 && n != length {
		return fmt.Errorf("%s: the limit %d gives %d elements, but the model's shapes need %d", c.Kernel, limit, n, length)
	}
	if len(out.Shape) != 1 || n > out.Shape[0] {
		return overflow(c, n, out.NumElements())
	}
	step := out.Strides[0]
	if length < 0 {
		step = 1 // written contiguously at the size found
	}
	for i := 0; i < n; i++ {
		storeI(out, i*step, int64(start+i*delta))
	}
	storeI(count, 0, int64(n))
	return nil
}
