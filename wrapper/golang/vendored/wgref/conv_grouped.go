package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// A grouped convolution with few channels per group (ResNeXt, RegNet)
// makes a GEMM of few rows per group, whose im2col packing then costs as
// much as its multiply-adds: every packed input element serves only the
// group's few output channels. Such groups run as tap rows instead
// (window2d.go), whose taps span the group's input channels: a band of
// output rows at a time, the group's input rows for it are copied once
// into a padded buffer and every output channel of the group reads them
// there.

// groupedMaxOutputs bounds the output channels per group that take tap
// rows: with more, the GEMM's packing is shared by enough rows to win
// (measured with BenchmarkConvGrouped).
const groupedMaxOutputs = 32

// convGroupedF32 is Conv for a 1-D or 2-D float32 convolution of a few
// channels per group as tap rows. ok is false when the convolution does
// not suit it (the caller then takes the GEMM).
func convGroupedF32(x, w wgrt.Tensor, bias *wgrt.Tensor, out wgrt.Tensor, ca convAttrs, threads int) bool {
	g := ca.group
	cg, mg := x.Shape[1]/g, out.Shape[1]/g
	win, ok := windowOf(x, out, ca.kernel, ca.strides, ca.pads, ca.dilations)
	if !ok || !w.Contiguous() || mg > groupedMaxOutputs || cg*win.kh*win.kw > maxWindowTaps {
		return false
	}
	job := groupedJob{x: x, w: w, bias: bias, out: out, win: win, cg: cg, mg: mg}
	job.pw = (win.ow-1)*win.sw + (win.kw-1)*win.dw + 1
	reach := (win.kh-1)*win.dh + 1
	// Output rows per band: all the group's padded input rows fit.
	job.bandRows = (paddedLimit/(cg*job.pw)-reach)/win.sh + 1
	job.flat = win.sh == win.sw && (win.sw == 1 || win.ow < 2*tapRowLanes)
	if job.flat {
		job.bandRows = min(job.bandRows, paddedLimit/job.pw)
	}
	if paddedLimit/(cg*job.pw) < reach || job.bandRows < 1 {
		return false
	}
	units := x.Shape[0] * g
	if units > 1 && workers.take(threads) {
		pooledGrouped = job
		workers.runRange(units, &pooledGrouped)
		pooledGrouped = groupedJob{}
		workers.mu.Unlock()
		return true
	}
	job.groups(0, units)
	return true
}

// pooledGrouped is the grouped convolution that holds the worker pool.
var pooledGrouped groupedJob

type groupedJob struct {
	x, w, out    wgrt.Tensor
	bias         *wgrt.Tensor
	win          window2d
	cg, mg       int
	pw, bandRows int // padded row width, output rows per band
	flat         bool
}

// groups computes groups [from, to) of the batch's images times groups.
func (j *groupedJob) doRange(from, to int) { j.groups(from, to) }

func (j *groupedJob) groups(from, to int) {
	xs, ws, ys := elems[float32](j.x), elems[float32](j.w), elems[float32](j.out)
	win, pw := &j.win, j.pw
	g := j.x.Shape[1] / j.cg
	ksz := win.kh * win.kw
	taps := j.cg * ksz
	reach := (win.kh-1)*win.dh + 1
	outRow := 0
	if len(j.out.Shape) == 4 {
		outRow = j.out.Strides[2]
	}
	var bufs planeBufs
	var offs [maxWindowTaps]int
	for u := from; u < to; u++ {
		b, gi := u/g, u%g
		for oy0 := 0; oy0 < win.oh; oy0 += j.bandRows {
			rows := (min(j.bandRows, win.oh-oy0)-1)*win.sh + reach
			band := rows * pw // one input channel's padded rows
			// Channel ci's padded rows, then ci+1's: tap (ci, ky, kx) is
			// at ci*band + ky*dh*pw + kx*dw, the weights' order.
			for ci := range j.cg {
				plane := xs[b*j.x.Strides[0]+(gi*j.cg+ci)*j.x.Strides[1]:]
				win.padRows(bufs.in[ci*band:(ci+1)*band], oy0*win.sh-win.ph, pw, plane, 0, false)
				for i := range win.kh {
					for k := range win.kw {
						offs[ci*ksz+i*win.kw+k] = ci*band + i*win.dh*pw + k*win.dw
					}
				}
			}
			in := bufs.in[:j.cg*band+2*tapRowLanes]
			n := min(j.bandRows, win.oh-oy0)
			for oc := gi * j.mg; oc < (gi+1)*j.mg; oc++ {
				wts := ws[oc*taps : (oc+1)*taps]
				init := float32(0)
				if j.bias != nil {
					init = float32(loadF(*j.bias, oc*j.bias.Strides[0]))
				}
				dst := ys[b*j.out.Strides[0]+oc*j.out.Strides[1]:]
				if !j.flat {
					for i := range n {
						oy := oy0 + i
						tapRow(dst[oy*outRow:oy*outRow+win.ow], in[i*win.sh*pw:], offs[:taps], wts, win.sw, init, tapSum)
					}
					continue
				}
				out := bufs.out[:(n-1)*pw+win.ow]
				tapRow(out, in, offs[:taps], wts, win.sw, init, tapSum)
				for i := range n {
					oy := oy0 + i
					copy(dst[oy*outRow:oy*outRow+win.ow], out[i*pw:])
				}
			}
		}
	}
}
