package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// Depthwise convolution (group == input channels: every output channel
// reads one input channel, as in MobileNet and EfficientNet) is a few
// taps per output, too little work for a GEMM to pay its packing. Each
// output plane is a sliding window over its input plane instead, in tap
// rows (window2d.go), the bias the rows' initial value.

// isDepthwise reports whether a convolution of input channels ch and
// weight w [M, C/group, ...] is depthwise: one input channel per group.
func isDepthwise(ch int, w wgrt.Tensor, group int) bool {
	return group == ch && w.Shape[1] == 1
}

// convDepthwiseF32 is Conv for depthwise float32 1-D and 2-D convolution:
// output channel oc reads input channel oc/multiplier, then act runs over
// each output plane while it is in cache (out's planes are contiguous).
// ok is false when the window does not suit it (the caller then takes the
// generic path).
func convDepthwiseF32(x, w wgrt.Tensor, bias *wgrt.Tensor, out wgrt.Tensor, ca convAttrs, act fusedAct, threads int) bool {
	win, ok := windowOf(x, out, ca.kernel, ca.strides, ca.pads, ca.dilations)
	if !ok || !w.Contiguous() {
		return false
	}
	n, ch, m := x.Shape[0], x.Shape[1], out.Shape[1]
	job := depthwiseJob{x: x, w: w, bias: bias, out: out, win: win, mult: m / ch, act: act}
	if n*m > 1 && workers.take(threads) {
		pooledDepthwise = job
		workers.runRange(n*m, &pooledDepthwise)
		pooledDepthwise = depthwiseJob{}
		workers.mu.Unlock()
		return true
	}
	job.planes(0, n*m)
	return true
}

// pooledDepthwise is the depthwise convolution that holds the worker pool.
var pooledDepthwise depthwiseJob

type depthwiseJob struct {
	x, w, out wgrt.Tensor
	bias      *wgrt.Tensor
	win       window2d
	mult      int
	act       fusedAct
}

// planes computes output planes [from, to) of the batch's images times
// output channels.
func (j *depthwiseJob) doRange(from, to int) { j.planes(from, to) }

func (j *depthwiseJob) planes(from, to int) {
	if lanes := j.blockLanes(); lanes > 0 {
		j.planes16(from, to, lanes)
		return
	}
	j.planesByRows(from, to)
}

// planesByRows computes output planes [from, to) one by one, in tap rows.
func (j *depthwiseJob) planesByRows(from, to int) {
	xs, ws, ys := elems[float32](j.x), elems[float32](j.w), elems[float32](j.out)
	m := j.out.Shape[1]
	ksz := j.win.kh * j.win.kw
	outRow := 0
	if len(j.out.Shape) == 4 {
		outRow = j.out.Strides[2]
	}
	size := prod(j.out.Shape[2:])
	var bufs planeBufs
	for p := from; p < to; p++ {
		b, oc := p/m, p%m
		wo := windowOp{op: tapSum, wts: ws[oc*ksz : oc*ksz+ksz]}
		if j.bias != nil {
			wo.init = float32(loadF(*j.bias, oc*j.bias.Strides[0]))
		}
		plane := ys[b*j.out.Strides[0]+oc*j.out.Strides[1]:]
		j.win.plane(plane, outRow, xs[b*j.x.Strides[0]+(oc/j.mult)*j.x.Strides[1]:], &wo, &bufs)
		j.act.apply(plane[:size])
	}
}
