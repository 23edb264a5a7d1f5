package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// Grouped convolutions of 2, 4, 8 or 16 channels a group and as many
// outputs as inputs a group (RegNet's groups of 8 and 16, ResNeXt's first
// stage) run in blocks of eight channels through the depthwise blocks'
// buffers (conv_depthwise16.go): each position's eight input channels,
// one vector, are mixed into its eight outputs by mix8AVX2 with the
// block's weights, zero across groups; with sixteen a group, the group's
// other eight inputs are added by mix8AccAVX2. On AVX-512 a group of
// sixteen is one block of sixteen (mix16AVX512). The tap rows (conv_grouped.go) read every
// input row once per output channel and vectorize along a row; here an
// FMA serves eight outputs and the rows are read once a block.

// mixWeightFloats is the weights a block's buffer holds for a mix: a 3x3
// kernel's, 256 floats a position for sixteen channels (two blocks of
// eight inputs take 128).
const mixWeightFloats = 9 * 256

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
	if m != c || cg != 16 && (cg > 8 || 8%cg != 0) || c%8 != 0 {
		return false
	}
	win, ok := windowOf(x, out, ca.kernel, ca.strides, ca.pads, ca.dilations)
	if !ok || win.kh*win.kw*64*max(1, cg/8) > mixWeightFloats || !win.fits16(x, out, 8) {
		return false
	}
	job := mixedJob{x: x, w: w, bias: bias, out: out, win: win, cg: cg, act: act, lanes: 8}
	if cg == 16 && depthwise16Vector && win.fits16(x, out, 16) && win.kh*win.kw*256 <= mixWeightFloats {
		job.lanes = 16
	}
	units := x.Shape[0] * c / job.lanes
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
	lanes     int // channels a block: 8, or 16 for sixteen a group on AVX-512
}

// doRange computes blocks [from, to) of the batch's images times blocks
// of eight channels.
func (j *mixedJob) doRange(from, to int) {
	var bufs dw16Bufs
	blocks := j.x.Shape[1] / j.lanes
	for u := from; u < to; u++ {
		b, c0 := u/blocks, u%blocks*j.lanes
		j.weights(c0, &bufs)
		in0, inputs := c0, 1
		if j.cg == 16 && j.lanes == 8 {
			in0, inputs = c0/16*16, 2 // the group's two blocks of inputs
		}
		j.win.block16(j.x, j.out, b, c0, in0, inputs, j.lanes, blockMix, j.act, &bufs)
	}
}

// weights fills bufs' weights and bias for channels [c0, c0+lanes): input
// i to output o at tap t, zero unless both are in one group; with sixteen
// channels a group in blocks of eight, the group's inputs [8h, 8h+8) at
// h·ksz·64.
func (j *mixedJob) weights(c0 int, bufs *dw16Bufs) {
	ws := elems[float32](j.w)
	ksz, cg := j.win.kh*j.win.kw, j.cg
	if j.lanes == 16 {
		for t := range ksz {
			for i := range 16 {
				for o := range 16 {
					bufs.wts[(t*16+i)*16+o] = ws[((c0+o)*16+i)*ksz+t]
				}
			}
		}
	} else {
		for h := range max(1, cg/8) {
			for t := range ksz {
				for i := range 8 {
					for o := range 8 {
						v := float32(0)
						switch {
						case cg == 16:
							v = ws[((c0+o)*16+h*8+i)*ksz+t]
						case i/cg == o/cg:
							v = ws[((c0+o)*cg+i%cg)*ksz+t]
						}
						bufs.wts[h*ksz*64+(t*8+i)*8+o] = v
					}
				}
			}
		}
	}
	for o := range j.lanes {
		bufs.bias[o] = 0
		if j.bias != nil {
			bufs.bias[o] = float32(loadF(*j.bias, (c0+o)*j.bias.Strides[0]))
		}
	}
}
