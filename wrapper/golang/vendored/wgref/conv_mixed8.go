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
func convMixed8F32(x, w wgrt.Tensor, bias *wgrt.Tensor, out wgrt.Tensor, ca convAttrs, act fusedAct, pk *packedGEMM, threads int) bool {
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
	if pk != nil && pk.mixLanes == job.lanes && len(pk.data) == mixedFilterFloats(w.Shape, g) {
		job.pre = pk.data
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
	// pre is the filters laid out for the blocks once (Prepare:
	// mixedFilters for each block in turn), nil to lay them out per
	// block.
	pre []float32
}

// doRange computes blocks [from, to) of the batch's images times blocks
// of eight channels.
func (j *mixedJob) doRange(from, to int) {
	var bufs dw16Bufs
	blocks := j.x.Shape[1] / j.lanes
	ksz := j.win.kh * j.win.kw
	per := mixedBlockFloats(ksz, j.cg, j.lanes)
	for u := from; u < to; u++ {
		b, blk := u/blocks, u%blocks
		c0 := blk * j.lanes
		wts := bufs.wts[:per]
		if j.pre != nil {
			wts = j.pre[blk*per : (blk+1)*per]
		} else {
			mixedFilters(wts, elems[float32](j.w), c0, ksz, j.cg, j.lanes)
		}
		bufs.setBias(j.bias, c0, j.lanes)
		in0, inputs := c0, 1
		if j.cg == 16 && j.lanes == 8 {
			in0, inputs = c0/16*16, 2 // the group's two blocks of inputs
		}
		j.win.block16(j.x, j.out, b, c0, in0, inputs, j.lanes, blockMix, j.act, wts, &bufs)
	}
}

// mixedBlockFloats is the filters of one block of lanes channels of a
// mix: per tap, each of its input channels' vector of lanes outputs, and
// with sixteen channels a group in blocks of eight, both halves' inputs.
func mixedBlockFloats(ksz, cg, lanes int) int { return ksz * lanes * 8 * max(1, cg/8) }

// mixedFilterFloats is the floats Prepare lays a grouped convolution's
// filters out in for the mixed blocks (w [M, C/group, kh, kw]), or 0 when
// the convolution never takes them: as many as the filters, 8/cg times
// more with fewer than eight channels a group (the blocks hold zeros
// across groups). The same on every path (16 or 8 lanes).
func mixedFilterFloats(w []int, group int) int {
	if len(w) != 4 || group < 2 || w[0]%group != 0 || w[1] < 2 {
		return 0
	}
	cg, ksz := w[1], w[2]*w[3]
	if w[0] != group*cg || cg != 16 && (cg > 8 || 8%cg != 0) || w[0]%8 != 0 || ksz*64*max(1, cg/8) > mixWeightFloats {
		return 0
	}
	return w[0] / 8 * mixedBlockFloats(ksz, cg, 8)
}

// ConvMixedFloats is the floats Prepare lays the filters of a float32
// conv of weight shape w, group and, for a FusedConv, a sum or not out
// in for the mixed blocks (0: none): the planner's rule
// (refscratch.PackedBytes) asks it.
func ConvMixedFloats(w []int, group int, sum bool) int {
	if sum {
		return 0
	}
	return mixedFilterFloats(w, group)
}

// packMixedFilters lays the filters w out for the running path's mixed
// blocks, every block in turn.
func packMixedFilters(w wgrt.Tensor, group int) *packedGEMM {
	cg, ksz := w.Shape[1], w.Shape[2]*w.Shape[3]
	lanes := 8
	if cg == 16 && depthwise16Vector {
		lanes = 16
	}
	pk := &packedGEMM{mixLanes: lanes, data: make([]float32, mixedFilterFloats(w.Shape, group))}
	per := mixedBlockFloats(ksz, cg, lanes)
	for blk := range w.Shape[0] / lanes {
		mixedFilters(pk.data[blk*per:(blk+1)*per], elems[float32](w), blk*lanes, ksz, cg, lanes)
	}
	return pk
}

// mixedFilters lays out the filters ws of channels [c0, c0+lanes) for a
// block, in wts: input i to output o at tap t at (t·lanes + i)·lanes + o,
// zero unless both are in one group; with sixteen channels a group in
// blocks of eight, the group's inputs [8h, 8h+8) from h·ksz·64. Each
// filter row (one output, one input, ksz taps) is read in order and
// scattered a tap a vector apart.
func mixedFilters(wts, ws []float32, c0, ksz, cg, lanes int) {
	switch {
	case lanes == 16:
		wts = wts[:ksz*256]
		for o := range 16 {
			src := ws[(c0+o)*16*ksz : (c0+o+1)*16*ksz]
			for i := range 16 {
				for t, v := range src[i*ksz : (i+1)*ksz] {
					wts[t*256+i*16+o] = v
				}
			}
		}
	case cg == 16:
		wts = wts[:2*ksz*64]
		for o := range 8 {
			src := ws[(c0+o)*16*ksz : (c0+o+1)*16*ksz]
			for i := range 16 {
				h, ii := i/8, i%8
				for t, v := range src[i*ksz : (i+1)*ksz] {
					wts[h*ksz*64+t*64+ii*8+o] = v
				}
			}
		}
	default:
		wts = wts[:ksz*64]
		clear(wts)
		for o := range 8 {
			src := ws[(c0+o)*cg*ksz : (c0+o+1)*cg*ksz]
			for ii := range cg {
				i := o/cg*cg + ii
				for t, v := range src[ii*ksz : (ii+1)*ksz] {
					wts[t*64+i*8+o] = v
				}
			}
		}
	}
}
