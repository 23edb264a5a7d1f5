package wgref

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func init() {
	register("BatchNormalization", batchNorm)
	register("LayerNormalization", layerNorm)
	register("InstanceNormalization", instanceNorm)
	register("LRN", lrn)
	register("Softmax", func(c *wgrt.Call) error { return softmax(c, "softmax") })
	register("LogSoftmax", func(c *wgrt.Call) error { return softmax(c, "log") })
	register("Hardmax", func(c *wgrt.Call) error { return softmax(c, "hard") })
}

// channelOf is the index of dimension 1 of an element of t (N, C, ...).
func perChannel(t wgrt.Tensor, ch int) float64 { return loadF(t, ch*t.Strides[0]) }

// batchNormFloats is how many float64s BatchNormalization keeps per
// channel: its scratch (a scale and a shift; the batch's mean and
// variance in training mode).
const batchNormFloats = 4

// batchNorm normalizes each channel (dimension 1) with the given mean and
// variance; in training mode with the batch's, also returning the running
// statistics updated by momentum.
func batchNorm(c *wgrt.Call) error {
	if len(c.Inputs) != 5 || len(c.Outputs) < 1 {
		return fmt.Errorf("%s: want 5 inputs", c.Kernel)
	}
	a := attrsOf(c)
	eps, momentum, training := a.FloatOr("epsilon", 1e-5), a.FloatOr("momentum", 0.9), a.IntOr("training_mode", 0) != 0
	if a.err != nil {
		return a.err
	}
	x, scale, bias, mean, variance := c.Inputs[0], c.Inputs[1], c.Inputs[2], c.Inputs[3], c.Inputs[4]
	out := c.Outputs[0]
	if len(x.Shape) < 2 || familyOf(x.DType) != famFloat {
		return fmt.Errorf("%s: want a float input of rank 2 or more", c.Kernel)
	}
	ch := x.Shape[1]
	work, err := scratchOf[float64](c, batchNormFloats*ch)
	if err != nil {
		return err
	}
	mul, add, bm, bv := work[:ch], work[ch:2*ch], work[2*ch:3*ch], work[3*ch:4*ch]
	if training {
		clear(bm)
		clear(bv)
		cnt := float64(x.NumElements() / max(ch, 1))
		for idx := range indices(x.Shape) {
			bm[idx[1]] += loadF(x, offsetOf(idx, x.Strides))
		}
		for i := range bm {
			bm[i] /= cnt
		}
		for idx := range indices(x.Shape) {
			d := loadF(x, offsetOf(idx, x.Strides)) - bm[idx[1]]
			bv[idx[1]] += d * d
		}
		for i := range bv {
			bv[i] /= cnt
		}
		if len(c.Outputs) == 3 {
			rm, rv := c.Outputs[1], c.Outputs[2]
			for i := 0; i < ch; i++ {
				storeF(rm, i*rm.Strides[0], perChannel(mean, i)*momentum+bm[i]*(1-momentum))
				storeF(rv, i*rv.Strides[0], perChannel(variance, i)*momentum+bv[i]*(1-momentum))
			}
		}
	}
	for i := 0; i < ch; i++ {
		mu, vr := perChannel(mean, i), perChannel(variance, i)
		if training {
			mu, vr = bm[i], bv[i]
		}
		mul[i] = perChannel(scale, i) / math.Sqrt(vr+eps)
		add[i] = perChannel(bias, i) - mu*mul[i]
	}
	if x.DType == wgrt.F32 && out.DType == wgrt.F32 && spatialContiguous(x) && spatialContiguous(out) && ch > 0 {
		// The scale and shift in float32, one pass over every image's
		// channels. They take the scratch of the batch's statistics
		// (bm, bv), read already.
		f32, err := scratchOf[float32](c, 2*batchNormFloats*ch)
		if err != nil {
			return err
		}
		scale32, shift32 := f32[4*ch:5*ch], f32[5*ch:6*ch]
		for i := range ch {
			scale32[i], shift32[i] = float32(mul[i]), float32(add[i])
		}
		xs, ys := elems[float32](x), elems[float32](out)
		inner := prod(x.Shape[2:])
		for b := 0; b < x.Shape[0]; b++ {
			scaleShiftRows(ys[b*out.Strides[0]:], out.Strides[1], xs[b*x.Strides[0]:], x.Strides[1], inner, scale32, shift32)
		}
		return nil
	}
	for idx := range indices(x.Shape) {
		storeF(out, offsetOf(idx, out.Strides), loadF(x, offsetOf(idx, x.Strides))*mul[idx[1]]+add[idx[1]])
	}
	return nil
}

// layerNorm normalizes over the dimensions from axis on, then scales and
// shifts (broadcast); Mean and InvStdDev outputs when asked for.
func layerNorm(c *wgrt.Call) error {
	if len(c.Inputs) < 2 || len(c.Outputs) < 1 {
		return fmt.Errorf("%s: want X, Scale and an output", c.Kernel)
	}
	x, scale, out := c.Inputs[0], c.Inputs[1], c.Outputs[0]
	axis, err := axisAttr(c, len(x.Shape))
	if err != nil {
		return err
	}
	a := attrsOf(c)
	eps := a.FloatOr("epsilon", 1e-5)
	if a.err != nil {
		return a.err
	}
	if familyOf(x.DType) != famFloat {
		return unsupported(c, x.DType)
	}
	inner := x.Shape[axis:]
	n := prod(inner)
	var meanOut, invOut *wgrt.Tensor
	if len(c.Outputs) > 1 {
		meanOut = &c.Outputs[1]
	}
	if len(c.Outputs) > 2 {
		invOut = &c.Outputs[2]
	}
	hasBias := len(c.Inputs) > 2
	if fast := x.DType == wgrt.F32 && out.DType == wgrt.F32 && scale.DType == wgrt.F32 && meanOut == nil && invOut == nil &&
		innerContiguous(x, axis) && innerContiguous(out, axis) && innerContiguous(scale, len(scale.Shape)-len(inner)) &&
		len(scale.Shape) == len(inner) && (!hasBias || (c.Inputs[2].DType == wgrt.F32 && len(c.Inputs[2].Shape) == len(inner) && innerContiguous(c.Inputs[2], 0))); fast {
		xs, ys, gs := elems[float32](x), elems[float32](out), elems[float32](scale)
		var bv []float32
		if hasBias {
			bv = elems[float32](c.Inputs[2])
		}
		job := normRows{layerNorm: true, xs: xs, ys: ys, n: n, gs: gs, bv: bv, eps: eps, threads: threadsOf(c)}
		job.run(x.Shape[:axis], x.Strides[:axis], out.Strides[:axis])
		return nil
	}
	ss := broadcastStrides(new([maxRank]int), inner, scale)
	var bs []int
	if hasBias {
		bs = broadcastStrides(new([maxRank]int), inner, c.Inputs[2])
	}
	var outerBuf [maxRank]int
	outer := outerBuf[:len(x.Shape)]
	copy(outer, x.Shape[:axis])
	for i := axis; i < len(outer); i++ {
		outer[i] = 1
	}
	for o := range indices(outer) {
		xb, yb := offsetOf(o, x.Strides), offsetOf(o, out.Strides)
		sum, sq := 0.0, 0.0
		for i := range indices(inner) {
			v := loadF(x, xb+offsetOf(i, x.Strides[axis:]))
			sum += v
			sq += v * v
		}
		mean := sum / float64(n)
		inv := 1 / math.Sqrt(math.Max(sq/float64(n)-mean*mean, 0)+eps)
		for i := range indices(inner) {
			v := (loadF(x, xb+offsetOf(i, x.Strides[axis:])) - mean) * inv * loadF(scale, offsetOf(i, ss))
			if bs != nil {
				v += loadF(c.Inputs[2], offsetOf(i, bs))
			}
			storeF(out, yb+offsetOf(i, out.Strides[axis:]), v)
		}
		if meanOut != nil {
			storeF(*meanOut, offsetOf(o, meanOut.Strides), mean)
		}
		if invOut != nil {
			storeF(*invOut, offsetOf(o, invOut.Strides), inv)
		}
	}
	return nil
}

// instanceNorm normalizes each (batch, channel) over its spatial
// dimensions, then scales and shifts per channel.
func instanceNorm(c *wgrt.Call) error {
	if err := need(c, 1, 3, 3); err != nil {
		return err
	}
	x, scale, bias, out := c.Inputs[0], c.Inputs[1], c.Inputs[2], c.Outputs[0]
	a := attrsOf(c)
	eps := a.FloatOr("epsilon", 1e-5)
	if a.err != nil {
		return a.err
	}
	if len(x.Shape) < 2 || familyOf(x.DType) != famFloat {
		return fmt.Errorf("%s: want a float input of rank 2 or more", c.Kernel)
	}
	spatial := x.Shape[2:]
	n := float64(prod(spatial))
	if x.DType == wgrt.F32 && out.DType == wgrt.F32 && innerContiguous(x, 2) && innerContiguous(out, 2) {
		// Each (batch, channel) a contiguous row: float64 statistics, the
		// row in float32 vector passes.
		xs, ys := elems[float32](x), elems[float32](out)
		inner := numElements(spatial)
		for b := 0; b < x.Shape[0]; b++ {
			for ch := 0; ch < x.Shape[1]; ch++ {
				xo, yo := b*x.Strides[0]+ch*x.Strides[1], b*out.Strides[0]+ch*out.Strides[1]
				sum, sq := sumAndSquares(xs[xo : xo+inner])
				mean := sum / n
				inv := 1 / math.Sqrt(math.Max(sq/n-mean*mean, 0)+eps)
				row := ys[yo : yo+inner]
				binaryVS(binarySub, row, xs[xo:xo+inner], float32(mean))
				binaryVS(binaryMul, row, row, float32(inv*perChannel(scale, ch)))
				binaryVS(binaryAdd, row, row, float32(perChannel(bias, ch)))
			}
		}
		return nil
	}
	for b := 0; b < x.Shape[0]; b++ {
		for ch := 0; ch < x.Shape[1]; ch++ {
			xb, yb := b*x.Strides[0]+ch*x.Strides[1], b*out.Strides[0]+ch*out.Strides[1]
			sum, sq := 0.0, 0.0
			for i := range indices(spatial) {
				v := loadF(x, xb+offsetOf(i, x.Strides[2:]))
				sum += v
				sq += v * v
			}
			mean := sum / n
			inv := 1 / math.Sqrt(math.Max(sq/n-mean*mean, 0)+eps)
			s, t := perChannel(scale, ch), perChannel(bias, ch)
			for i := range indices(spatial) {
				storeF(out, yb+offsetOf(i, out.Strides[2:]), (loadF(x, xb+offsetOf(i, x.Strides[2:]))-mean)*inv*s+t)
			}
		}
	}
	return nil
}

// lrn divides each element by (bias + alpha/size * the sum of squares over
// the size channels around it)^beta.
func lrn(c *wgrt.Call) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	x, out := c.Inputs[0], c.Outputs[0]
	a := attrsOf(c)
	alpha, beta, bias, size := a.FloatOr("alpha", 1e-4), a.FloatOr("beta", 0.75), a.FloatOr("bias", 1), a.Int("size")
	if a.err != nil {
		return a.err
	}
	if len(x.Shape) < 2 || familyOf(x.DType) != famFloat || size <= 0 {
		return fmt.Errorf("%s: want a float input of rank 2 or more and a positive size", c.Kernel)
	}
	lo, hi := (size-1)/2, size-1-(size-1)/2
	chs := x.Shape[1]
	for idx := range indices(x.Shape) {
		ch := idx[1]
		sq := 0.0
		for k := max(0, ch-lo); k <= min(chs-1, ch+hi); k++ {
			v := loadF(x, offsetOf(idx, x.Strides)+(k-ch)*x.Strides[1])
			sq += v * v
		}
		v := loadF(x, offsetOf(idx, x.Strides))
		storeF(out, offsetOf(idx, out.Strides), v/math.Pow(bias+alpha/float64(size)*sq, beta))
	}
	return nil
}

// softmax normalizes along axis (softmax, log of it, or a one-hot of the
// first maximum); coerce_2d is opset 1-12's form, over every dimension
// from axis on as one.
func softmax(c *wgrt.Call, kind string) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	x, out := c.Inputs[0], c.Outputs[0]
	axis, err := axisAttr(c, len(x.Shape))
	if err != nil {
		return err
	}
	a := attrsOf(c)
	coerce := a.Has("coerce_2d") && a.Bool("coerce_2d")
	if a.err != nil {
		return a.err
	}
	if familyOf(x.DType) != famFloat {
		return unsupported(c, x.DType)
	}
	if len(x.Shape) == 0 {
		storeF(out, 0, map[string]float64{"softmax": 1, "log": 0, "hard": 1}[kind])
		return nil
	}
	last := len(x.Shape) - 1
	if axis == last && kind != "hard" && x.DType == wgrt.F32 && out.DType == wgrt.F32 && x.Strides[last] == 1 && out.Strides[last] == 1 {
		// Rows along the last dimension, contiguous: no allocation.
		xs, ys := elems[float32](x), elems[float32](out)
		n := x.Shape[last]
		job := normRows{log: kind == "log", xs: xs, ys: ys, n: n, threads: threadsOf(c)}
		job.run(x.Shape[:last], x.Strides[:last], out.Strides[:last])
		return nil
	}
	// The group: the dimensions normalized together (the axis, or every
	// dimension from it with coerce_2d); outer: the others.
	var outerBuf, gshapeBuf, xgBuf, ogBuf [maxRank]int
	outer := outerBuf[:len(x.Shape)]
	copy(outer, x.Shape)
	ng := 0
	for d := axis; d < len(x.Shape) && (coerce || d == axis); d++ {
		outer[d] = 1
		gshapeBuf[ng], xgBuf[ng], ogBuf[ng] = x.Shape[d], x.Strides[d], out.Strides[d]
		ng++
	}
	gshape, xg, og := gshapeBuf[:ng], xgBuf[:ng], ogBuf[:ng]
	// Two passes over each group read the input twice instead of keeping
	// its values: the peak (and where it is) and the sum of exponentials,
	// then the outputs.
	for o := range indices(outer) {
		xb, yb := offsetOf(o, x.Strides), offsetOf(o, out.Strides)
		peak, at, i := math.Inf(-1), 0, 0
		for g := range indices(gshape) {
			if v := loadF(x, xb+offsetOf(g, xg)); v > peak {
				peak, at = v, i
			}
			i++
		}
		sum := 0.0
		if kind != "hard" {
			for g := range indices(gshape) {
				sum += math.Exp(loadF(x, xb+offsetOf(g, xg)) - peak)
			}
		}
		i = 0
		for g := range indices(gshape) {
			var y float64
			switch kind {
			case "hard":
				if i == at {
					y = 1
				}
			case "log":
				y = loadF(x, xb+offsetOf(g, xg)) - peak - math.Log(sum)
			default:
				y = math.Exp(loadF(x, xb+offsetOf(g, xg))-peak) / sum
			}
			storeF(out, yb+offsetOf(g, og), y)
			i++
		}
	}
	return nil
}

// innerContiguous reports whether t's dimensions from `from` on are
// row-major contiguous.
func innerContiguous(t wgrt.Tensor, from int) bool {
	want := 1
	for d := len(t.Shape) - 1; d >= from; d-- {
		if t.Shape[d] != 1 && t.Strides[d] != want {
			return false
		}
		want *= t.Shape[d]
	}
	return true
}

// sum64 is the sum of row in float64, in four partial sums.
func sum64(row []float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(row); i += 4 {
		s0, s1, s2, s3 = s0+float64(row[i]), s1+float64(row[i+1]), s2+float64(row[i+2]), s3+float64(row[i+3])
	}
	for ; i < len(row); i++ {
		s0 += float64(row[i])
	}
	return (s0 + s1) + (s2 + s3)
}
