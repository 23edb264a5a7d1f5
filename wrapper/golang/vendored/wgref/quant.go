package wgref

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Quantization (int8/uint8 linear quantization) and the index kernels that
// came with it: GatherND and OneHot.

func init() {
	register("QuantizeLinear", quantizeLinear)
	register("DequantizeLinear", dequantizeLinear)
	register("DynamicQuantizeLinear", dynamicQuantizeLinear)
	register("GatherND", gatherND)
	register("OneHot", oneHot)
}

// quantParams reads the scale and zero point that apply to element idx of
// x: one for the tensor, or one per index along axis (1-D parameters).
func quantParams(c *wgrt.Call, x wgrt.Tensor, axis int, idx []int) (scale float64, zp int64) {
	s := c.Inputs[1]
	at := 0
	if len(s.Shape) == 1 && s.Shape[0] != 1 {
		at = idx[axis]
	}
	scale = loadF(s, at*strideOr0(s))
	if len(c.Inputs) > 2 {
		z := c.Inputs[2]
		zp = loadI(z, at*strideOr0(z))
	}
	return scale, zp
}

func strideOr0(t wgrt.Tensor) int {
	if len(t.Strides) == 0 {
		return 0
	}
	return t.Strides[0]
}

func quantAxis(c *wgrt.Call, x wgrt.Tensor) (int, error) {
	a := attrsOf(c)
	axis := a.Int("axis")
	if a.err != nil {
		return 0, a.err
	}
	if s := c.Inputs[1]; len(s.Shape) == 1 && s.Shape[0] != 1 {
		if axis < 0 {
			axis += len(x.Shape)
		}
		if axis < 0 || axis >= len(x.Shape) || x.Shape[axis] != s.Shape[0] {
			return 0, fmt.Errorf("%s: %d scales for axis %d of %v", c.Kernel, s.Shape[0], axis, x.Shape)
		}
	}
	return axis, nil
}

// quantizeLinear: y = saturate(round_half_even(x / scale) + zero point).
func quantizeLinear(c *wgrt.Call) error {
	if len(c.Inputs) < 2 || len(c.Outputs) != 1 {
		return fmt.Errorf("%s: want x, scale and an output", c.Kernel)
	}
	out, x := c.Outputs[0], c.Inputs[0]
	axis, err := quantAxis(c, x)
	if err != nil {
		return err
	}
	if quantizeFast(c, axis) {
		return nil
	}
	lo, hi := 0.0, 255.0
	switch out.DType {
	case wgrt.U8:
	case wgrt.I8:
		lo, hi = -128, 127
	default:
		return unsupported(c, out.DType)
	}
	f32 := x.DType == wgrt.F32
	for idx := range indices(x.Shape) {
		scale, zp := quantParams(c, x, axis, idx)
		q := loadF(x, offsetOf(idx, x.Strides)) / scale
		if f32 {
			q = float64(float32(loadF(x, offsetOf(idx, x.Strides))) / float32(scale)) // as ONNX, in float32
		}
		v := math.RoundToEven(q) + float64(zp)
		storeI(out, offsetOf(idx, out.Strides), int64(math.Max(lo, math.Min(hi, v))))
	}
	return nil
}

// dequantizeLinear: y = (x - zero point) * scale.
func dequantizeLinear(c *wgrt.Call) error {
	if len(c.Inputs) < 2 || len(c.Outputs) != 1 {
		return fmt.Errorf("%s: want x, scale and an output", c.Kernel)
	}
	out, x := c.Outputs[0], c.Inputs[0]
	axis, err := quantAxis(c, x)
	if err != nil {
		return err
	}
	if dequantizeFast(c, axis) {
		return nil
	}
	for idx := range indices(x.Shape) {
		scale, zp := quantParams(c, x, axis, idx)
		v := float64(loadI(x, offsetOf(idx, x.Strides))-zp) * scale
		if out.DType == wgrt.F32 {
			v = float64(float32(v)) // ONNX computes in the scale's float32
		}
		storeF(out, offsetOf(idx, out.Strides), v)
	}
	return nil
}

// dynamicQuantizeLinear quantizes x to uint8 over its range widened to
// include 0, in float32 arithmetic as ONNX's reference.
func dynamicQuantizeLinear(c *wgrt.Call) error {
	if err := need(c, 3, 1, 1); err != nil {
		return err
	}
	x, y, ys, yz := c.Inputs[0], c.Outputs[0], c.Outputs[1], c.Outputs[2]
	lo, hi := float32(0), float32(0)
	for idx := range indices(x.Shape) {
		v := float32(loadF(x, offsetOf(idx, x.Strides)))
		lo, hi = min(lo, v), max(hi, v)
	}
	scale := (hi - lo) / 255
	zp := float32(math.RoundToEven(float64(max(0, min(255, 0-lo/scale)))))
	storeF(ys, 0, float64(scale))
	storeI(yz, 0, int64(zp))
	for idx := range indices(x.Shape) {
		v := float32(loadF(x, offsetOf(idx, x.Strides)))
		q := float32(math.RoundToEven(float64(v/scale))) + zp
		storeI(y, offsetOf(idx, y.Strides), int64(max(0, min(255, q))))
	}
	return nil
}

// gatherND copies, for each index tuple of indices (its last dimension),
// the slice of data it names after the batch dimensions.
func gatherND(c *wgrt.Call) error {
	if err := need(c, 1, 2, 2); err != nil {
		return err
	}
	out, data, ind := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	a := attrsOf(c)
	b := a.Int("batch_dims")
	if a.err != nil {
		return a.err
	}
	q := len(ind.Shape)
	k := ind.Shape[q-1]
	if len(out.Shape) != q-1+len(data.Shape)-b-k {
		return fmt.Errorf("%s: output %v for data %v, indices %v and batch_dims %d", c.Kernel, out.Shape, data.Shape, ind.Shape, b)
	}
	var srcBuf, tupleBuf [maxRank]int
	src, tuple := srcBuf[:len(data.Shape)], tupleBuf[:q]
	for o := range indices(out.Shape) {
		copy(src[:b], o[:b])
		copy(tuple, o[:q-1])
		for j := 0; j < k; j++ {
			tuple[q-1] = j
			i, err := index(c, ind, offsetOf(tuple, ind.Strides), data.Shape[b+j])
			if err != nil {
				return err
			}
			src[b+j] = i
		}
		copy(src[b+k:], o[q-1:])
		copyElem(out, offsetOf(o, out.Strides), data, offsetOf(src, data.Strides))
	}
	return nil
}

// oneHot writes values[1] where the output's index along axis equals the
// index at the other positions (negative ones counting from depth), and
// values[0] elsewhere.
func oneHot(c *wgrt.Call) error {
	if err := need(c, 1, 2, 2); err != nil {
		return err
	}
	out, ind, vals := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	a := attrsOf(c)
	axis := a.Int("axis")
	if a.err != nil {
		return a.err
	}
	if len(out.Shape) != len(ind.Shape)+1 || axis < 0 || axis >= len(out.Shape) || vals.NumElements() != 2 {
		return fmt.Errorf("%s: output %v for indices %v, axis %d and %d values", c.Kernel, out.Shape, ind.Shape, axis, vals.NumElements())
	}
	depth := out.Shape[axis]
	vs := strideOr0(vals)
	var posBuf [maxRank]int
	pos := posBuf[:len(ind.Shape)]
	for o := range indices(out.Shape) {
		copy(pos[:axis], o[:axis])
		copy(pos[axis:], o[axis+1:])
		off := offsetOf(pos, ind.Strides)
		var at int64
		if familyOf(ind.DType) == famFloat {
			at = int64(loadF(ind, off))
		} else {
			at = loadI(ind, off)
		}
		if at < 0 {
			at += int64(depth)
		}
		which := 0
		if at == int64(o[axis]) {
			which = 1
		}
		copyElem(out, offsetOf(o, out.Strides), vals, which*vs)
	}
	return nil
}

func init() {
	register("MeanVarianceNormalization", meanVarianceNormalization)
	register("ReverseSequence", reverseSequence)
}

// meanVarianceNormalization is (x - mean) / (std + 1e-9) over "axes", as
// ONNX's reference computes it (std from the mean of squares).
func meanVarianceNormalization(c *wgrt.Call) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	a := attrsOf(c)
	axes := a.Ints("axes")
	if a.err != nil {
		return a.err
	}
	r := len(x.Shape)
	var outerBuf, innerBuf [maxRank]int
	outer, inner := outerBuf[:r], innerBuf[:r]
	copy(outer, x.Shape)
	for i := range inner {
		inner[i] = 1
	}
	for _, ax := range axes {
		if ax < 0 || ax >= r {
			return fmt.Errorf("%s: axis %d for rank %d", c.Kernel, ax, r)
		}
		outer[ax], inner[ax] = 1, x.Shape[ax]
	}
	n := float64(numElements(inner))
	for o := range indices(outer) {
		xb, ob := offsetOf(o, x.Strides), offsetOf(o, out.Strides)
		sum, sq := 0.0, 0.0
		for i := range indices(inner) {
			v := loadF(x, xb+offsetOf(i, x.Strides))
			sum += v
			sq += v * v
		}
		mean := sum / n
		std := math.Sqrt(sq/n - mean*mean)
		for i := range indices(inner) {
			storeF(out, ob+offsetOf(i, out.Strides), (loadF(x, xb+offsetOf(i, x.Strides))-mean)/(std+1e-9))
		}
	}
	return nil
}

// reverseSequence reverses, for each batch entry b, the first
// sequence_lens[b] elements along the time axis; the rest are copied.
func reverseSequence(c *wgrt.Call) error {
	if err := need(c, 1, 2, 2); err != nil {
		return err
	}
	out, x, lens := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	a := attrsOf(c)
	ba, ta := a.Int("batch_axis"), a.Int("time_axis")
	if a.err != nil {
		return a.err
	}
	var srcBuf [maxRank]int
	src := srcBuf[:len(x.Shape)]
	for o := range indices(out.Shape) {
		copy(src, o)
		n := int(loadI(lens, o[ba]*lens.Strides[0]))
		if n < 0 || n > x.Shape[ta] {
			return fmt.Errorf("%s: sequence length %d is outside [0, %d]", c.Kernel, n, x.Shape[ta])
		}
		if o[ta] < n {
			src[ta] = n - 1 - o[ta]
		}
		copyElem(out, offsetOf(o, out.Strides), x, offsetOf(src, x.Strides))
	}
	return nil
}
