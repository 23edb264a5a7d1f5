package onnx

import (
	"encoding/binary"
	"math"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// Trimming a convolution's dead taps: with Options.FoldWeights, when a
// Conv's weight is a float32 constant and its input's spatial sizes and
// pads are constants, kernel taps that read only padding at every output
// position (a dilated convolution over a map smaller than its dilation,
// as DeepLab's atrous pyramid at 14x14 with dilations 24 and 36) add only
// zeros. The kernel is cut to the taps that read the input somewhere, per
// spatial axis, and the pads shrink by what was cut, so that the output
// and every sum's nonzero terms stay the same (a sum loses only exact
// zeros). DeepLab's two outer atrous convolutions become 1x1 ones: nine
// times fewer multiplications.

// trimDeadTaps returns the window and weight of a Conv over an input of
// spatial sizes in, with the dead taps cut, or ok false when nothing is
// cut (or the sizes are not constants).
func (c *nodeCtx) trimDeadTaps(w window, wt *value, in []expr.Expr) (window, *value, bool) {
	im := c.im
	if !im.opts.FoldWeights || len(im.outer) > 0 || wt == nil || wt.dtype != "f32" {
		return w, wt, false
	}
	sizes, ok := concrete(in)
	if !ok {
		return w, wt, false
	}
	n := len(sizes)
	pads := make([]int64, 2*n)
	for k, p := range w.pads {
		if pads[k], ok = p.IsConst(); !ok {
			return w, wt, false
		}
	}
	lo, hi := make([]int64, n), make([]int64, n)
	cut := false
	for k := range n {
		ext := (w.kernel[k]-1)*w.dilations[k] + 1
		out := (sizes[k]+pads[k]+pads[n+k]-ext)/w.strides[k] + 1
		if out < 1 || out > 1<<16 {
			return w, wt, false
		}
		lo[k], hi[k] = -1, -1
		for t := range w.kernel[k] {
			for o := range out {
				if pos := o*w.strides[k] - pads[k] + t*w.dilations[k]; pos >= 0 && pos < sizes[k] {
					if lo[k] < 0 {
						lo[k] = t
					}
					hi[k] = t + 1
					break
				}
			}
		}
		if lo[k] < 0 {
			return w, wt, false // no tap reads the input: keep the op as it is
		}
		if pads[k]-lo[k]*w.dilations[k] < 0 || pads[n+k]-(w.kernel[k]-hi[k])*w.dilations[k] < 0 {
			return w, wt, false
		}
		cut = cut || lo[k] > 0 || hi[k] < w.kernel[k]
	}
	shape, ok := concrete(wt.shape)
	if !cut || !ok || len(shape) != n+2 {
		return w, wt, false
	}
	weight, ok := constFloats(wt, numel(shape))
	if !ok {
		return w, wt, false
	}
	trimmed := window{strides: w.strides, dilations: w.dilations, kernel: make([]int64, n), pads: make([]expr.Expr, 2*n)}
	newShape := append([]int64{}, shape...)
	for k := range n {
		trimmed.kernel[k] = hi[k] - lo[k]
		trimmed.pads[k] = expr.Const(pads[k] - lo[k]*w.dilations[k])
		trimmed.pads[n+k] = expr.Const(pads[n+k] - (w.kernel[k]-hi[k])*w.dilations[k])
		newShape[2+k] = hi[k] - lo[k]
	}
	// Copy the kept taps, every output and input channel: walk the new
	// weight's elements in order, reading the old one's at the same
	// index shifted by lo.
	raw := make([]byte, 4*numel(newShape))
	idx := make([]int64, len(newShape))
	for i := range numel(newShape) {
		src := int64(0)
		for d := range newShape {
			v := idx[d]
			if d >= 2 {
				v += lo[d-2]
			}
			src = src*shape[d] + v
		}
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(weight[src]))
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < newShape[d] {
				break
			}
			idx[d] = 0
		}
	}
	nw := &value{name: im.fresh(c.n.outputs[0] + ".weight"), dtype: "f32", shape: consts(newShape), known: true, raw: raw, node: -1, stored: true}
	return trimmed, nw, true
}
