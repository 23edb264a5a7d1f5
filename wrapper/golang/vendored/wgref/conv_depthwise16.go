package wgref

import "math"

// Depthwise convolution of small planes, sixteen channels at a time
// (AVX-512): a plane of 14x14 or 7x7 gives a tap row too few outputs to
// pay its calls, and most of it is border. Sixteen channels' padded
// input is gathered once into a buffer holding, per position, the
// sixteen values as one vector (as ONNX Runtime's NCHWc layout holds
// them), by 16x16 transposes; then every output position is one vector
// of sixteen channels, a multiply-add per tap with each tap's sixteen
// weights, and the block goes back to its planes by transposes,
// activation applied on the way.

// dw16Floats bounds a block's padded input and its output: planes up to
// 14x14 with a 5x5 kernel or 7x7 read at stride 2 (larger ones take the
// tap rows, whose calls their rows pay). The buffers live on the stack,
// which holds no variable over 128 KiB.
const dw16Floats = 12288

// maxDW16Taps bounds the kernel's positions (7x7).
const maxDW16Taps = 49

// dw16Bufs are a kernel call's buffers, reused for every block.
type dw16Bufs struct {
	// Sixteen positions of slack: pack16AVX512 stores whole chunks of
	// sixteen positions, unpack16AVX512 loads them.
	in, out [dw16Floats + 16*16]float32
	wts     [maxDW16Taps * 16]float32
	bias    [16]float32
	offs    [maxDW16Taps]int
	// zeroed is whether in's padding holds zeros from an earlier block
	// (every block of a call has the same padding).
	zeroed bool
}

// dw16Geometry is the padded buffer of a window: hp rows of wp
// positions, every position some tap reads.
func (w *window2d) dw16Geometry() (hp, wp int) {
	return (w.oh-1)*w.sh + (w.kh-1)*w.dh + 1, (w.ow-1)*w.sw + (w.kw-1)*w.dw + 1
}

// blocks16 reports whether the job's planes may go sixteen channels at a
// time: on AVX-512, one output channel per input channel, 2-D, small
// planes, output planes contiguous and channel offsets that fit the
// gathers' 32-bit indices.
func (j *depthwiseJob) blocks16() bool {
	if !depthwise16Vector || j.mult != 1 || len(j.x.Shape) != 4 || j.out.Shape[1] < 16 {
		return false
	}
	w := &j.win
	hp, wp := w.dw16Geometry()
	return hp*wp*16 <= dw16Floats && w.oh*w.ow*16 <= dw16Floats && w.kh*w.kw <= maxDW16Taps &&
		j.out.Strides[2] == w.ow && j.out.Strides[3] == 1 && j.x.Strides[3] == 1 &&
		15*max(j.x.Strides[1], j.out.Strides[1]) < math.MaxInt32
}

// planes16 computes output planes [from, to), sixteen channels of an
// image at a time where the range holds them, the others in tap rows.
func (j *depthwiseJob) planes16(from, to int) {
	var bufs dw16Bufs
	m := j.out.Shape[1]
	for p := from; p < to; {
		b, oc := p/m, p%m
		if oc+16 <= m && p+16 <= to {
			j.block16(b, oc, &bufs)
			p += 16
			continue
		}
		j.planesByRows(p, p+1)
		p++
	}
}

// block16 computes output channels [c0, c0+16) of image b.
func (j *depthwiseJob) block16(b, c0 int, bufs *dw16Bufs) {
	w := &j.win
	xs, ws, ys := elems[float32](j.x), elems[float32](j.w), elems[float32](j.out)
	hp, wp := w.dw16Geometry()
	ksz := w.kh * w.kw
	if !bufs.zeroed {
		clear(bufs.in[:hp*wp*16])
		for i := range w.kh {
			for k := range w.kw {
				bufs.offs[i*w.kw+k] = (i*w.dh*wp + k*w.dw) * 64
			}
		}
		bufs.zeroed = true
	}
	// The input's part of the padded buffer: rows [ph, ph+ih), columns
	// [pw, pw+iw), as far as the buffer reaches.
	rows, cols := min(hp-w.ph, w.ih), min(wp-w.pw, w.iw)
	if rows > 0 && cols > 0 {
		src := xs[b*j.x.Strides[0]+c0*j.x.Strides[1]:]
		_ = src[15*j.x.Strides[1]+(rows-1)*w.rowStride+cols-1]
		pack16AVX512(&bufs.in[(w.ph*wp+w.pw)*16], &src[0], j.x.Strides[1], w.rowStride, rows, cols, wp)
	}
	for t := range ksz {
		for c := range 16 {
			bufs.wts[t*16+c] = ws[(c0+c)*ksz+t]
		}
	}
	for c := range 16 {
		bufs.bias[c] = 0
		if j.bias != nil {
			bufs.bias[c] = float32(loadF(*j.bias, (c0+c)*j.bias.Strides[0]))
		}
	}
	n := w.oh * w.ow
	depthwise16AVX512(&bufs.out[0], &bufs.in[0], &bufs.wts[0], &bufs.bias[0], w.oh, w.ow, w.sh*wp*64, w.sw*64, &bufs.offs[0], ksz)
	j.act.apply(bufs.out[:n*16])
	dst := ys[b*j.out.Strides[0]+c0*j.out.Strides[1]:]
	_ = dst[15*j.out.Strides[1]+n-1]
	unpack16AVX512(&dst[0], j.out.Strides[1], &bufs.out[0], n)
}
