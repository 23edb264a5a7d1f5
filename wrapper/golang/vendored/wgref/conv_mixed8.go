package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// Grouped convolutions of 2, 4 or 8 channels a group and as many outputs
// as inputs a group (RegNet's groups of eight, ResNeXt's first stage)
// run in blocks of eight channels through the depthwise blocks' buffers
// (conv_depthwise16.go): each position's eight input channels, one
// vector, are mixed into its eight outputs by mix8AVX2 with the block's
// weights, zero across groups. The tap rows (conv_grouped.go) read every
// input row once per output channel and vectorize along a row; here an
// FMA serves eight outputs and the rows are read once a block.

// mixMaxTaps bounds the kernel positions whose weights (64 floats each)
// a block's buffer holds: 3x3 kernels.
const mixMaxTaps = maxDW16Taps * 16 / 64

// convMixed8F32 is Conv for a 2-D float32 grouped convolution that suits
// eight-channel blocks, act applied; ok is false when it does not (the
// caller then takes the tap rows or the GEMM).
func convMixed8F32(x, w wgrt.Tensor, bias *wgrt.Tensor, out wgrt.Tensor, ca convAttrs, act fusedAct, threads int) bool {
	g := ca.group
	if !mix8Vector || len(x.Shape) != 4 || g < 2 || !w.Contiguous() {
		return false
	}
	c, m := x.Shape[1], out.Shape[1]
	cg := c / g
	if m != c || cg > 8 || 8%cg != 0 || c%8 != 0 {
		return false
	}
	win, ok := windowOf(x, out, ca.kernel, ca.strides, ca.pads, ca.dilations)
	if !ok || win.kh*win.kw > mixMaxTaps || !win.fits16(x, out, 8) {
		return false
	}
	job := mixedJob{x: x, w: w, bias: bias, out: out, win: win, cg: cg, act: act}
	units := x.Shape[0] * c / 8
	if units > 1 && workers.take(threads) {
		pooledMixed = job
		workers.runRange(units, &pooledMixed)
		pooledMixed = mixedJob{}
		workers.mu.Unlock()
		return true
	}
	job.doRange(0, units)
	return true
}

// pooledMixed is the mixed convolution that holds the worker pool.
var pooledMixed mixedJob

type mixedJob struct {
	x, w, out wgrt.Tensor
	bias      *wgrt.Tensor
	win       window2d
	cg        int
	act       fusedAct
}

// doRange computes blocks [from, to) of the batch's images times blocks
// of eight channels.
func (j *mixedJob) doRange(from, to int) {
	var bufs dw16Bufs
	blocks := j.x.Shape[1] / 8
	for u := from; u < to; u++ {
		b, c0 := u/blocks, u%blocks*8
		j.weights(c0, &bufs)
		j.win.block16(j.x, j.out, b, c0, 8, blockMix, j.act, &bufs)
	}
}

// weights fills bufs' weights and bias for channels [c0, c0+8): input i
// to output o at tap t, zero unless both are in one group.
func (j *mixedJob) weights(c0 int, bufs *dw16Bufs) {
	ws := elems[float32](j.w)
	ksz, cg := j.win.kh*j.win.kw, j.cg
	for t := range ksz {
		for i := range 8 {
			for o := range 8 {
				v := float32(0)
				if i/cg == o/cg {
					v = ws[((c0+o)*cg+i%cg)*ksz+t]
				}
				bufs.wts[(t*8+i)*8+o] = v
			}
		}
	}
	for o := range 8 {
		bufs.bias[o] = 0
		if j.bias != nil {
			bufs.bias[o] = float32(loadF(*j.bias, (c0+o)*j.bias.Strides[0]))
		}
	}
}
