package wgref

import (
	"fmt"
	"iter"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Kernels that move elements without computing on them: every dtype, by
// element size.

func init() {
	for _, name := range []string{"Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze"} {
		register(name, copyAs)
	}
	register("Dropout", dropout)
	register("Expand", func(c *wgrt.Call) error {
		if err := need(c, 1, 1, 1); err != nil {
			return err
		}
		return copyBroadcast(c, c.Outputs[0], c.Inputs[0])
	})
	register("Transpose", transpose)
	register("Slice", sliceKernel)
	register("Concat", concat)
	register("Split", split)
	register("Tile", tile)
	register("Pad", pad)
	register("DepthToSpace", depthToSpace)
	register("SpaceToDepth", spaceToDepth)
}

// indices yields every multi-index of shape, in row-major order (the
// slice is reused: copy it to keep it). Ranged over, it inlines and its
// index stays on the stack: a kernel walking a tensor allocates nothing.
// A rank beyond maxRank yields nothing (Call refuses such tensors).
func indices(shape []int) iter.Seq[[]int] {
	return func(yield func([]int) bool) {
		if len(shape) > maxRank {
			return
		}
		for _, d := range shape {
			if d == 0 {
				return
			}
		}
		var buf [maxRank]int
		idx := buf[:len(shape)]
		for yield(idx) {
			d := len(shape) - 1
			for ; d >= 0; d-- {
				if idx[d]++; idx[d] < shape[d] {
					break
				}
				idx[d] = 0
			}
			if d < 0 {
				return
			}
		}
	}
}

func offsetOf(idx, strides []int) int {
	o := 0
	for i, x := range idx {
		o += x * strides[i]
	}
	return o
}

// copyAs copies the input's elements, in row-major order, into the output
// of the same count (a reshape that is a graph output, an identity).
func copyAs(c *wgrt.Call) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	if out.DType != x.DType || out.NumElements() != x.NumElements() {
		return fmt.Errorf("%s: cannot copy %s %v into %s %v", c.Kernel, x.DType, x.Shape, out.DType, out.Shape)
	}
	if x.Contiguous() && out.Contiguous() {
		n := x.NumElements() * x.DType.Size()
		copy(out.Data[:n], x.Data[:n])
		return nil
	}
	// Both walked in row-major order at once: out by indices, x by an
	// index of its own stepped after each element.
	size := x.DType.Size()
	var xiBuf [maxRank]int
	xi := xiBuf[:len(x.Shape)]
	for idx := range indices(out.Shape) {
		o, s := offsetOf(idx, out.Strides), offsetOf(xi, x.Strides)
		copy(out.Data[o*size:o*size+size], x.Data[s*size:s*size+size])
		for d := len(xi) - 1; d >= 0; d-- {
			if xi[d]++; xi[d] < x.Shape[d] {
				break
			}
			xi[d] = 0
		}
	}
	return nil
}

// dropout at inference is the identity; its mask, when asked for, is all
// true.
func dropout(c *wgrt.Call) error {
	if len(c.Outputs) < 1 || len(c.Inputs) < 1 {
		return fmt.Errorf("%s: needs an input and an output", c.Kernel)
	}
	a := attrsOf(c)
	if a.Has("training_mode") && a.Bool("training_mode") && a.FloatOr("ratio", 0.5) != 0 {
		return fmt.Errorf("%s: training mode drops random elements; the reference kernel runs inference only", c.Kernel)
	}
	if a.err != nil {
		return a.err
	}
	if err := copyAs(&wgrt.Call{Kernel: c.Kernel, Outputs: c.Outputs[:1], Inputs: c.Inputs[:1], Threads: c.Threads}); err != nil {
		return err
	}
	if len(c.Outputs) > 1 {
		m := c.Outputs[1]
		for idx := range indices(m.Shape) {
			m.Data[offsetOf(idx, m.Strides)] = 1
		}
	}
	return nil
}

func transpose(c *wgrt.Call) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	a := attrsOf(c)
	perm := a.Ints("perm")
	if a.err != nil {
		return a.err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	if len(perm) != len(x.Shape) || len(out.Shape) != len(x.Shape) {
		return fmt.Errorf("%s: perm %v for rank %d", c.Kernel, perm, len(x.Shape))
	}
	var srcBuf [maxRank]int
	src := srcBuf[:len(perm)]
	for d, p := range perm {
		if p < 0 || p >= len(x.Shape) || out.Shape[d] != x.Shape[p] {
			return fmt.Errorf("%s: perm %v does not map %v to %v", c.Kernel, perm, x.Shape, out.Shape)
		}
		src[d] = x.Strides[p]
	}
	copyStrided(out.Shape, out, out.Strides, 0, x, src, 0, threadsOf(c))
	return nil
}

// sliceKernel copies x[starts + i*steps] per dimension; the output's shape
// says how many (the importer resolved ends, clamping and negative axes).
func sliceKernel(c *wgrt.Call) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	a := attrsOf(c)
	starts, steps := a.Ints("starts"), a.Ints("steps")
	if a.err != nil {
		return a.err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	if len(starts) != len(x.Shape) || len(steps) != len(x.Shape) {
		return fmt.Errorf("%s: %d starts and %d steps for rank %d", c.Kernel, len(starts), len(steps), len(x.Shape))
	}
	off := 0
	var stridesBuf [maxRank]int
	strides := stridesBuf[:len(x.Shape)]
	for d := range x.Shape {
		if out.Shape[d] > 0 {
			last := starts[d] + (out.Shape[d]-1)*steps[d]
			if starts[d] < 0 || starts[d] >= x.Shape[d] || last < 0 || last >= x.Shape[d] {
				return fmt.Errorf("%s: dimension %d: elements %d to %d are outside [0, %d)", c.Kernel, d, starts[d], last, x.Shape[d])
			}
		}
		off += starts[d] * x.Strides[d]
		strides[d] = steps[d] * x.Strides[d]
	}
	copyStrided(out.Shape, out, out.Strides, 0, x, strides, off, threadsOf(c))
	return nil
}

func axisAttr(c *wgrt.Call, rank int) (int, error) {
	a := attrsOf(c)
	axis := a.Int("axis")
	if a.err != nil {
		return 0, a.err
	}
	given := axis
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= max(rank, 1) {
		return 0, fmt.Errorf("%s: axis %d for rank %d", c.Kernel, given, rank)
	}
	return axis, nil
}

func concat(c *wgrt.Call) error {
	if err := need(c, 1, 1, -1); err != nil {
		return err
	}
	out := c.Outputs[0]
	axis, err := axisAttr(c, len(out.Shape))
	if err != nil {
		return err
	}
	at := 0
	for _, x := range c.Inputs {
		if x.DType != out.DType || len(x.Shape) != len(out.Shape) {
			return fmt.Errorf("%s: input %s %v does not fit output %s %v", c.Kernel, x.DType, x.Shape, out.DType, out.Shape)
		}
		if at+x.Shape[axis] > out.Shape[axis] {
			return fmt.Errorf("%s: inputs are longer than the output along axis %d", c.Kernel, axis)
		}
		copyStrided(x.Shape, out, out.Strides, at*out.Strides[axis], x, x.Strides, 0, threadsOf(c))
		at += x.Shape[axis]
	}
	return nil
}

func split(c *wgrt.Call) error {
	if len(c.Inputs) < 1 {
		return fmt.Errorf("%s: no input", c.Kernel)
	}
	x := c.Inputs[0]
	axis, err := axisAttr(c, len(x.Shape))
	if err != nil {
		return err
	}
	at := 0
	for _, out := range c.Outputs {
		if at+out.Shape[axis] > x.Shape[axis] {
			return fmt.Errorf("%s: outputs are longer than the input along axis %d", c.Kernel, axis)
		}
		copyStrided(out.Shape, out, out.Strides, 0, x, x.Strides, at*x.Strides[axis], threadsOf(c))
		at += out.Shape[axis]
	}
	return nil
}

func tile(c *wgrt.Call) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	if len(out.Shape) != len(x.Shape) {
		return fmt.Errorf("%s: rank %d to %d", c.Kernel, len(x.Shape), len(out.Shape))
	}
	var srcBuf [maxRank]int
	src := srcBuf[:len(x.Shape)]
	for idx := range indices(out.Shape) {
		for d, i := range idx {
			src[d] = i % x.Shape[d]
		}
		copyElem(out, offsetOf(idx, out.Strides), x, offsetOf(src, x.Strides))
	}
	return nil
}

// pad writes x surrounded by pads (begins then ends per dimension; negative
// ones crop): a constant value, or the edge, reflected or wrapped elements.
func pad(c *wgrt.Call) error {
	if err := need(c, 1, 1, 2); err != nil {
		return err
	}
	a := attrsOf(c)
	mode, pads, value := a.StringOr("mode", "constant"), a.Ints("pads"), a.FloatOr("value", 0)
	if a.err != nil {
		return a.err
	}
	next := 1
	value, err := scalarFromInput(c, a, "value", "value_from_input", value, &next)
	if err != nil {
		return err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	r := len(x.Shape)
	if len(pads) != 2*r {
		return fmt.Errorf("%s: %d pads for rank %d", c.Kernel, len(pads), r)
	}
	switch mode {
	case "constant", "edge", "reflect", "wrap":
	default:
		return fmt.Errorf("%s: unknown mode %q", c.Kernel, mode)
	}
	if mode == "constant" && x.DType == wgrt.F32 && out.DType == wgrt.F32 {
		padConstantF32(out, x, pads, float32(value), threadsOf(c))
		return nil
	}
	var srcBuf [maxRank]int
	src := srcBuf[:r]
	for idx := range indices(out.Shape) {
		inside := true
		for d, i := range idx {
			s, n := i-pads[d], x.Shape[d]
			if s < 0 || s >= n {
				switch mode {
				case "constant":
					inside = false
				case "edge":
					s = min(max(s, 0), n-1)
				case "reflect":
					if n == 1 {
						s = 0
					} else {
						period := 2 * (n - 1)
						s = ((s % period) + period) % period
						if s >= n {
							s = period - s
						}
					}
				case "wrap":
					s = ((s % n) + n) % n
				}
			}
			src[d] = s
		}
		o := offsetOf(idx, out.Strides)
		if inside {
			copyElem(out, o, x, offsetOf(src, x.Strides))
		} else {
			storeF(out, o, value)
		}
	}
	return nil
}

// padConstantF32 is constant padding as block copies: out filled with
// value, then the part of x the pads keep (negative pads crop) copied into
// place row by row.
func padConstantF32(out, x wgrt.Tensor, pads []int, value float32, threads int) {
	os := elems[float32](out)
	var it rowIter
	it.init(out.Shape)
	it.add(out.Strides, 0)
	it.coalesce()
	for it.next() {
		o := it.off[0]
		for k := 0; k < it.n; k++ {
			os[o] = value
			o += it.step[0]
		}
	}
	r := len(x.Shape)
	var shapeBuf [maxRank]int
	shape := shapeBuf[:r]
	dstOff, srcOff := 0, 0
	for d := 0; d < r; d++ {
		begin := pads[d]
		from, to := max(-begin, 0), max(begin, 0) // first element of x kept, and where it lands
		shape[d] = min(x.Shape[d]-from, out.Shape[d]-to)
		if shape[d] <= 0 {
			return
		}
		srcOff += from * x.Strides[d]
		dstOff += to * out.Strides[d]
	}
	copyStrided(shape, out, out.Strides, dstOff, x, x.Strides, srcOff, threads)
}

// depthToSpace moves blocks of channels into space: DCR takes the block
// index from the channel's high part, CRD from its low part.
func depthToSpace(c *wgrt.Call) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	a := attrsOf(c)
	b, mode := a.Int("blocksize"), a.StringOr("mode", "DCR")
	if a.err != nil {
		return a.err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	if len(x.Shape) != 4 || b <= 0 {
		return fmt.Errorf("%s: want a 4-D input and a positive blocksize", c.Kernel)
	}
	oc := out.Shape[1]
	for idx := range indices(out.Shape) {
		n, ch, h, w := idx[0], idx[1], idx[2], idx[3]
		bh, bw := h%b, w%b
		var sc int
		if mode == "CRD" {
			sc = ch*b*b + bh*b + bw
		} else {
			sc = (bh*b+bw)*oc + ch
		}
		copyElem(out, offsetOf(idx, out.Strides), x, n*x.Strides[0]+sc*x.Strides[1]+(h/b)*x.Strides[2]+(w/b)*x.Strides[3])
	}
	return nil
}

func spaceToDepth(c *wgrt.Call) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	a := attrsOf(c)
	b := a.Int("blocksize")
	if a.err != nil {
		return a.err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	if len(x.Shape) != 4 || b <= 0 {
		return fmt.Errorf("%s: want a 4-D input and a positive blocksize", c.Kernel)
	}
	ic := x.Shape[1]
	for idx := range indices(out.Shape) {
		n, ch, h, w := idx[0], idx[1], idx[2], idx[3]
		blk, sc := ch/ic, ch%ic
		bh, bw := blk/b, blk%b
		copyElem(out, offsetOf(idx, out.Strides), x, n*x.Strides[0]+sc*x.Strides[1]+(h*b+bh)*x.Strides[2]+(w*b+bw)*x.Strides[3])
	}
	return nil
}
