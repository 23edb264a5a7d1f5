package wgref

import (
	"fmt"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Kernels that read or write at positions another tensor holds. Indices
// may be i32 or i64 and negative (counting from the end); one out of range
// is an error, never a read outside the tensor.

func init() {
	register("Gather", gather)
	register("GatherElements", gatherElements)
	register("ScatterElements", scatterElements)
	register("ScatterND", scatterND)
}

// index reads element off of an index tensor and resolves it against a
// dimension of size n.
func index(c *wgrt.Call, t wgrt.Tensor, off, n int) (int, error) {
	if t.DType != wgrt.I32 && t.DType != wgrt.I64 {
		return 0, fmt.Errorf("%s: indices of dtype %s (want i32 or i64)", c.Kernel, t.DType)
	}
	i := int(loadI(t, off))
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return 0, fmt.Errorf("%s: index %d is outside [-%d, %d)", c.Kernel, int(loadI(t, off)), n, n)
	}
	return i, nil
}

// gather: out[i..., j..., k...] = x[i..., idx[j...], k...] along axis.
func gather(c *wgrt.Call) error {
	if err := need(c, 1, 2, 2); err != nil {
		return err
	}
	out, x, idx := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	axis, err := axisAttr(c, len(x.Shape))
	if err != nil {
		return err
	}
	if len(out.Shape) != len(x.Shape)-1+len(idx.Shape) {
		return fmt.Errorf("%s: output rank %d for data rank %d and indices rank %d", c.Kernel, len(out.Shape), len(x.Shape), len(idx.Shape))
	}
	if x.Contiguous() && out.Contiguous() && idx.Contiguous() {
		return gatherBlocks(c, out, x, idx, axis)
	}
	var srcBuf [maxRank]int
	src := srcBuf[:len(x.Shape)]
	var jiBuf [maxRank]int
	ji := jiBuf[:len(idx.Shape)]
	for o := range indices(out.Shape) {
		copy(src[:axis], o[:axis])
		copy(ji, o[axis:axis+len(idx.Shape)])
		copy(src[axis+1:], o[axis+len(idx.Shape):])
		var i int
		if i, err = index(c, idx, offsetOf(ji, idx.Strides), x.Shape[axis]); err != nil {
			return err
		}
		src[axis] = i
		copyElem(out, offsetOf(o, out.Strides), x, offsetOf(src, x.Strides))
	}
	return nil
}

// gatherBlocks is gather over contiguous tensors: for each index of the
// dimensions before axis and each index in idx, one block of the
// dimensions after axis (an embedding row, say) copied whole.
func gatherBlocks(c *wgrt.Call, out, x, idx wgrt.Tensor, axis int) error {
	size := x.DType.Size()
	outer, block := numElements(x.Shape[:axis]), numElements(x.Shape[axis+1:])*size
	n, count := x.Shape[axis], idx.NumElements()
	if out.DType != x.DType || out.NumElements()*size != outer*count*block {
		return fmt.Errorf("%s: output %s %v for data %s %v and %d indices along axis %d", c.Kernel, out.DType, out.Shape, x.DType, x.Shape, count, axis)
	}
	// Every index is checked first, so that the copy, which the workers
	// may share, cannot fail half way.
	for j := 0; j < count; j++ {
		if _, err := index(c, idx, j, n); err != nil {
			return err
		}
	}
	rows := gatherRows{out: out.Data, x: x.Data, idx: idx, n: n, count: count, block: block}
	if units := outer * count; shares(threadsOf(c), units, units*block/size) {
		pooledGather = rows
		workers.runRange(units, &pooledGather)
		pooledGather = gatherRows{}
		workers.mu.Unlock()
		return nil
	}
	rows.doRange(0, outer*count)
	return nil
}

// gatherRows is gatherBlocks' copy, its indices checked: block u of the
// output (u = o·count + j) is block o·n + idx[j] of x, block bytes each.
type gatherRows struct {
	out, x          []byte
	idx             wgrt.Tensor
	n, count, block int
}

var pooledGather gatherRows

func (g *gatherRows) doRange(from, to int) {
	for u := from; u < to; u++ {
		o, j := u/g.count, u%g.count
		i := int(loadI(g.idx, j))
		if i < 0 {
			i += g.n
		}
		src := (o*g.n + i) * g.block
		copy(g.out[u*g.block:(u+1)*g.block], g.x[src:src+g.block])
	}
}

// gatherElements: out[p] = x[p with p[axis] = idx[p]].
func gatherElements(c *wgrt.Call) error {
	if err := need(c, 1, 2, 2); err != nil {
		return err
	}
	out, x, idx := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	axis, err := axisAttr(c, len(x.Shape))
	if err != nil {
		return err
	}
	var srcBuf [maxRank]int
	src := srcBuf[:len(x.Shape)]
	for p := range indices(out.Shape) {
		copy(src, p)
		var i int
		if i, err = index(c, idx, offsetOf(p, idx.Strides), x.Shape[axis]); err != nil {
			return err
		}
		src[axis] = i
		copyElem(out, offsetOf(p, out.Strides), x, offsetOf(src, x.Strides))
	}
	return nil
}

// reducer combines an existing element with an update.
func reducer(c *wgrt.Call, name string) (func(old, upd float64) float64, error) {
	switch name {
	case "", "none":
		return nil, nil
	case "add":
		return func(o, u float64) float64 { return o + u }, nil
	case "mul":
		return func(o, u float64) float64 { return o * u }, nil
	case "max":
		return func(o, u float64) float64 { return max(o, u) }, nil
	case "min":
		return func(o, u float64) float64 { return min(o, u) }, nil
	}
	return nil, fmt.Errorf("%s: unknown reduction %q", c.Kernel, name)
}

// put writes update element uo into out element o, combined by red.
func put(out wgrt.Tensor, o int, upd wgrt.Tensor, uo int, red func(o, u float64) float64) {
	if red == nil {
		copyElem(out, o, upd, uo)
		return
	}
	if familyOf(out.DType) == famFloat {
		storeF(out, o, red(loadF(out, o), loadF(upd, uo)))
		return
	}
	storeI(out, o, int64(red(float64(loadI(out, o)), float64(loadI(upd, uo)))))
}

// scatterElements: out = x, then out[p with p[axis] = idx[p]] = upd[p].
func scatterElements(c *wgrt.Call) error {
	if err := need(c, 1, 3, 3); err != nil {
		return err
	}
	out, x, idx, upd := c.Outputs[0], c.Inputs[0], c.Inputs[1], c.Inputs[2]
	axis, err := axisAttr(c, len(x.Shape))
	if err != nil {
		return err
	}
	a := attrsOf(c)
	red, err := reducer(c, a.StringOr("reduction", "none"))
	if err != nil {
		return err
	}
	if err := copyBroadcast(c, out, x); err != nil {
		return err
	}
	var dstBuf [maxRank]int
	dst := dstBuf[:len(x.Shape)]
	for p := range indices(idx.Shape) {
		copy(dst, p)
		var i int
		if i, err = index(c, idx, offsetOf(p, idx.Strides), x.Shape[axis]); err != nil {
			return err
		}
		dst[axis] = i
		put(out, offsetOf(dst, out.Strides), upd, offsetOf(p, upd.Strides), red)
	}
	return nil
}

// scatterND: out = x, then each index tuple (the last dimension of idx)
// names a slice of out that takes the matching slice of upd.
func scatterND(c *wgrt.Call) error {
	if err := need(c, 1, 3, 3); err != nil {
		return err
	}
	out, x, idx, upd := c.Outputs[0], c.Inputs[0], c.Inputs[1], c.Inputs[2]
	a := attrsOf(c)
	red, err := reducer(c, a.StringOr("reduction", "none"))
	if err != nil {
		return err
	}
	if err := copyBroadcast(c, out, x); err != nil {
		return err
	}
	r := len(idx.Shape)
	if r == 0 {
		return fmt.Errorf("%s: indices must have rank 1 or more", c.Kernel)
	}
	k := idx.Shape[r-1]
	if k > len(x.Shape) {
		return fmt.Errorf("%s: index tuples of %d for data rank %d", c.Kernel, k, len(x.Shape))
	}
	sliceShape := x.Shape[k:]
	var dstBuf [maxRank]int
	dst := dstBuf[:len(x.Shape)]
	var tupleBuf [maxRank]int
	tuple := tupleBuf[:r]
	for p := range indices(idx.Shape[:r-1]) {
		copy(tuple, p)
		for j := 0; j < k; j++ {
			tuple[r-1] = j
			var i int
			if i, err = index(c, idx, offsetOf(tuple, idx.Strides), x.Shape[j]); err != nil {
				return err
			}
			dst[j] = i
		}
		for s := range indices(sliceShape) {
			copy(dst[k:], s)
			uo := offsetOf(p, upd.Strides[:r-1]) + offsetOf(s, upd.Strides[r-1:])
			put(out, offsetOf(dst, out.Strides), upd, uo, red)
		}
	}
	return nil
}
