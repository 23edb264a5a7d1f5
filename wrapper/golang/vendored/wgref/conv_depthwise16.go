package wgref

import (
	"math"
	"unsafe"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Depthwise convolution of small planes, sixteen channels at a time
// (AVX-512): a plane of 14x14 or 7x7 gives a tap row too few outputs to
// pay its calls, and most of it is border. Sixteen channels' padded
// input is gathered once into a buffer holding, per position, the
// sixteen values as one vector (as ONNX Runtime's NCHWc layout holds
// them), by 16x16 transposes; then every output position is one vector
// of sixteen channels, a multiply-add per tap with each tap's sixteen
// weights, and the block goes back to its planes by transposes,
// activation applied on the way.

// dw16Floats bounds a band's padded input and its output (a 112-wide
// row at stride 2 reads 225 positions: 3 rows of 3x3 taps fit). The
// buffers live on the stack, which holds no variable over 128 KiB.
const dw16Floats = 12288

// maxDW16Taps bounds the kernel's positions (7x7).
const maxDW16Taps = 49

// dw16Bufs are a kernel call's buffers, reused for every block.
type dw16Bufs struct {
	// Sixteen positions of slack: pack16AVX512 stores whole chunks of
	// sixteen positions, unpack16AVX512 loads them. Sixteen floats more
	// for views aligned to 64 bytes (views).
	in, out [dw16Floats + 16*16 + 16]float32
	wts     [max((maxDW16Taps+15)/16*256, mixWeightFloats)]float32
	bias    [16]float32
	offs    [maxDW16Taps]int
	// ready is whether offs are set and in's padding columns hold the
	// fill (every block of a call has the same window and op).
	ready bool
}

// views are bufs' input and output, 64-byte aligned: the stack aligns
// the arrays to 8 bytes only, and a vector load across two cache lines
// takes two (the 7x7 depthwise convolutions ran 1.3x slower so).
func (bufs *dw16Bufs) views() (in, out []float32) {
	return aligned64(bufs.in[:]), aligned64(bufs.out[:])
}

// aligned64 is s from its first element at a multiple of 64 bytes, less
// sixteen floats long whatever the skip.
func aligned64(s []float32) []float32 {
	skip := int(-uintptr(unsafe.Pointer(&s[0])) % 64 / 4)
	return s[skip : skip+len(s)-16]
}

// dw16Geometry is a window's padded buffer for blocks of lanes channels:
// wp positions a row (every column some tap reads), and bandRows output
// rows a band, so that the band's padded rows fit dw16Floats; 0 when not
// even one does.
func (w *window2d) dw16Geometry(lanes int) (wp, bandRows int) {
	wp = (w.ow-1)*w.sw + (w.kw-1)*w.dw + 1
	reach := (w.kh-1)*w.dh + 1 // padded rows one output row reads
	rows := dw16Floats / (wp * lanes)
	if rows < reach || w.ow*lanes > dw16Floats {
		return wp, 0
	}
	return wp, min(w.oh, (rows-reach)/w.sh+1, dw16Floats/(w.ow*lanes))
}

// fits16 reports whether the window over x into out may go lanes (16 or
// 8) channels at a time: 2-D, rows short enough for a band (a 112-wide
// row at stride 1 too: 0.72x the tap rows' time on AVX2, 0.85x on
// AVX-512), at most maxDW16Taps taps, output planes contiguous and
// channel offsets that fit 32 bits.
func (w *window2d) fits16(x, out wgrt.Tensor, lanes int) bool {
	if len(x.Shape) != 4 || out.Shape[1] < lanes {
		return false
	}
	_, band := w.dw16Geometry(lanes)
	return band > 0 && w.kh*w.kw <= maxDW16Taps &&
		out.Strides[2] == w.ow && out.Strides[3] == 1 && x.Strides[3] == 1 &&
		(lanes-1)*max(x.Strides[1], out.Strides[1]) < math.MaxInt32
}

// blockLanes is how many channels at a time the job's planes go: 16 on
// AVX-512, 8 on AVX2, with one output channel per input channel and a
// window that fits; 0 for tap rows.
func (j *depthwiseJob) blockLanes() int {
	switch {
	case j.mult != 1:
		return 0
	case depthwise16Vector && j.win.fits16(j.x, j.out, 16):
		return 16
	case depthwise8Vector && j.win.fits16(j.x, j.out, 8):
		return 8
	}
	return 0
}

// planes16 computes output planes [from, to), lanes channels of an image
// at a time where the range holds them, the others in tap rows.
func (j *depthwiseJob) planes16(from, to, lanes int) {
	var bufs dw16Bufs
	m := j.out.Shape[1]
	for p := from; p < to; {
		b, oc := p/m, p%m
		if oc+lanes <= m && p+lanes <= to {
			j.block16(b, oc, lanes, &bufs)
			p += lanes
			continue
		}
		j.planesByRows(p, p+1)
		p++
	}
}

// block16 computes output channels [c0, c0+lanes) of image b.
func (j *depthwiseJob) block16(b, c0, lanes int, bufs *dw16Bufs) {
	// The filters [lanes][taps] become [taps][lanes] as a pack lays out
	// one row of taps positions (it stores whole chunks of lanes
	// positions: wts holds 64 of 16).
	ws := elems[float32](j.w)
	ksz := j.win.kh * j.win.kw
	src := ws[c0*ksz : (c0+lanes)*ksz]
	packLanes(lanes, &bufs.wts[0], &src[0], ksz, 0, 1, ksz, ksz, 0)
	bufs.setBias(j.bias, c0, lanes)
	j.win.block16(j.x, j.out, b, c0, c0, 1, lanes, blockDepthwise, j.act, bufs.wts[:], bufs)
}

// packLanes is pack8AVX2 or pack16AVX512, as lanes says.
func packLanes(lanes int, dst, src *float32, chanStride, rowStride, rows, cols, dstRow int, fill float32) {
	if lanes == 8 {
		pack8AVX2(dst, src, chanStride, rowStride, rows, cols, dstRow, fill)
		return
	}
	pack16AVX512(dst, src, chanStride, rowStride, rows, cols, dstRow, fill)
}

// setBias fills bufs' bias with bias's channels [c0, c0+lanes), zeros
// when there is none.
func (bufs *dw16Bufs) setBias(bias *wgrt.Tensor, c0, lanes int) {
	switch {
	case bias == nil:
		clear(bufs.bias[:])
	case bias.DType == wgrt.F32 && bias.Strides[0] == 1:
		copy(bufs.bias[:lanes], elems[float32](*bias)[c0:c0+lanes])
	default:
		for c := range lanes {
			bufs.bias[c] = float32(loadF(*bias, (c0+c)*bias.Strides[0]))
		}
	}
}

// blockKind is what window2d.block16 computes over a block's taps.
type blockKind int

const (
	blockDepthwise blockKind = iota // each channel its own weights (wts[t*lanes+c])
	blockMaxPool                    // the largest tap
	blockMix                        // each output mixes the block's inputs (wts[(t*lanes+i)*lanes+o])
)

// block16 computes output channels [c0, c0+lanes) of image b of the
// window over x into out, a band of output rows at a time: as kind says,
// the largest of the taps (the padding never wins), the
// depthwise convolution or the mixed one with bufs' weights and bias;
// then act. The input is the blocks of lanes channels
// from in0: one, but two for a mix of sixteen channels a group (its
// second block's weights follow the first's). 16 lanes run the AVX-512
// kernels, 8 the AVX2 ones.
func (w *window2d) block16(x, out wgrt.Tensor, b, c0, in0, inputs, lanes int, kind blockKind, act fusedAct, wts []float32, bufs *dw16Bufs) {
	xs, ys := elems[float32](x), elems[float32](out)
	wp, band := w.dw16Geometry(lanes)
	vec := 4 * lanes // bytes a position
	ksz := w.kh * w.kw
	reach := (w.kh-1)*w.dh + 1
	fill := float32(0)
	if kind == blockMaxPool {
		fill = negInf32
	}
	in, outBuf := bufs.views()
	if !bufs.ready {
		// The padding columns keep the fill: packs write the input's
		// columns (and the fill past them). A band reads at most
		// (band-1)·sh + reach rows, and a pack stores up to sixteen
		// positions past its last row.
		fillF32(in[:min(len(in), (((band-1)*w.sh+reach)*wp+16)*lanes)], fill)
		for i := range w.kh {
			for k := range w.kw {
				bufs.offs[i*w.kw+k] = (i*w.dh*wp + k*w.dw) * vec
			}
		}
		bufs.ready = true
	}
	dst := ys[b*out.Strides[0]+c0*out.Strides[1]:]
	_ = dst[(lanes-1)*out.Strides[1]+w.oh*w.ow-1]
	// The input's columns in a padded row: [pw, pw+cols).
	cols := min(wp-w.pw, w.iw)
	for oy0 := 0; oy0 < w.oh; oy0 += band {
		rows := min(band, w.oh-oy0)
		// Padded rows [0, prows) of the band are input rows from sy0.
		prows, sy0 := (rows-1)*w.sh+reach, oy0*w.sh-w.ph
		lo, hi := min(max(0, -sy0), prows), max(0, min(prows, w.ih-sy0))
		for r := range prows {
			if r < lo || r >= hi {
				fillF32(in[r*wp*lanes:(r+1)*wp*lanes], fill)
			}
		}
		n := rows * w.ow
		for h := range inputs {
			if lo < hi && cols > 0 {
				src := xs[b*x.Strides[0]+(in0+h*lanes)*x.Strides[1]:]
				first := src[(sy0+lo)*w.rowStride:]
				_ = first[(lanes-1)*x.Strides[1]+(hi-lo-1)*w.rowStride+cols-1]
				packLanes(lanes, &in[(lo*wp+w.pw)*lanes], &first[0], x.Strides[1], w.rowStride, hi-lo, cols, wp, fill)
			}
			bufs.runBlock(kind, lanes, h, &outBuf[0], &in[0], wts, rows, w.ow, w.sh*wp*vec, w.sw*vec, ksz)
		}
		act.apply(outBuf[:n*lanes])
		if lanes == 8 {
			unpack8AVX2(&dst[oy0*w.ow], out.Strides[1], &outBuf[0], n)
		} else {
			unpack16AVX512(&dst[oy0*w.ow], out.Strides[1], &outBuf[0], n)
		}
	}
}

// runBlock runs kind's kernel for a band of oh output rows of ow from in
// into out, bufs' views (steps in bytes, as the kernels take them), with
// the filters wts (as blockKind lays them out); h > 0 adds a mix's h-th
// block of eight inputs to what out holds.
func (bufs *dw16Bufs) runBlock(kind blockKind, lanes, h int, out, in *float32, wts []float32, oh, ow, rowStep, colStep, ksz int) {
	offs, bias := &bufs.offs[0], &bufs.bias[0]
	switch {
	case kind == blockMaxPool && lanes == 8:
		maxpool8AVX2(out, in, oh, ow, rowStep, colStep, offs, ksz)
	case kind == blockMaxPool:
		maxpool16AVX512(out, in, oh, ow, rowStep, colStep, offs, ksz)
	case kind == blockMix:
		// The kernel reads the h-th block's ksz·lanes·lanes floats.
		blk := wts[h*ksz*lanes*lanes : (h+1)*ksz*lanes*lanes]
		switch {
		case lanes == 16:
			mix16AVX512(out, in, &blk[0], bias, oh, ow, rowStep, colStep, offs, ksz)
		case h == 0:
			mix8AVX2(out, in, &blk[0], bias, oh, ow, rowStep, colStep, offs, ksz)
		default:
			mix8AccAVX2(out, in, &blk[0], bias, oh, ow, rowStep, colStep, offs, ksz)
		}
	case lanes == 8:
		depthwise8AVX2(out, in, &wts[:ksz*8][0], bias, oh, ow, rowStep, colStep, offs, ksz)
	default:
		depthwise16AVX512(out, in, &wts[:ksz*16][0], bias, oh, ow, rowStep, colStep, offs, ksz)
	}
}

// fillF32 sets every element of s to v.
func fillF32(s []float32, v float32) {
	if v == 0 {
		clear(s)
		return
	}
	for i := range s {
		s[i] = v
	}
}
