package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/wgrt"

// Depthwise convolution (group == input channels: every output channel
// reads one input channel, as in MobileNet and EfficientNet) is a few
// taps per output, too little work for a GEMM to pay its packing. It runs
// as tap rows instead: per output channel and output row, the taps of the
// kernel rows that lie inside the input, over the columns where every tap
// lies inside too; the columns at the padded borders apart.

// window2d is a 1-D or 2-D sliding window over one plane (a 1-D one has a
// single row): kernel size, stride, dilation and begin padding per axis,
// the input's and output's sizes and the input's row stride.
type window2d struct {
	kh, kw, sh, sw, dh, dw, ph, pw int
	ih, iw, oh, ow                 int
	rowStride                      int // between input rows
}

// windowOf reads a 1-D or 2-D window: kernel, strides, pads (begins then
// ends) and dilations per spatial axis, x and out [N, C, ...]; ok is false
// for other ranks or when x's or out's last axis is not contiguous.
func windowOf(x, out wgrt.Tensor, kernel, strides, pads, dilations []int) (window2d, bool) {
	r := len(x.Shape) - 2
	if (r != 1 && r != 2) || x.Strides[len(x.Shape)-1] != 1 || out.Strides[len(out.Shape)-1] != 1 {
		return window2d{}, false
	}
	w := window2d{kh: 1, sh: 1, dh: 1, ih: 1, oh: 1}
	last := r - 1
	w.kw, w.sw, w.dw, w.pw = kernel[last], strides[last], dilations[last], pads[last]
	w.iw, w.ow = x.Shape[2+last], out.Shape[2+last]
	if r == 2 {
		w.kh, w.sh, w.dh, w.ph = kernel[0], strides[0], dilations[0], pads[0]
		w.ih, w.oh, w.rowStride = x.Shape[2], out.Shape[2], x.Strides[2]
	}
	ok := w.kh*w.kw <= maxWindowTaps && w.sh > 0 && w.sw > 0 && w.dh > 0 && w.dw > 0
	return w, ok
}

// span is the outputs [lo, hi) along one axis whose every tap lies inside
// an input of size in (the rest reach into the padding).
func span(in, out, k, stride, dil, pad int) (lo, hi int) {
	lo = min(max(0, ceilDiv(pad, stride)), out)
	// The last tap of output o reads o*stride - pad + (k-1)*dil < in.
	last := in - 1 + pad - (k-1)*dil
	if last < 0 {
		return lo, lo
	}
	return lo, max(lo, min(out, last/stride+1))
}

// interior is the output columns whose every tap lies inside the row.
func (w *window2d) interior() (lo, hi int) { return span(w.iw, w.ow, w.kw, w.sw, w.dw, w.pw) }

// fullRows is the output rows whose every tap row lies inside the input.
func (w *window2d) fullRows() (lo, hi int) { return span(w.ih, w.oh, w.kh, w.sh, w.dh, w.ph) }

// rowTaps are the taps of one output row whose input rows are inside.
type rowTaps struct {
	n int
	// offs is each tap's input offset for output column 0 (its row's
	// offset and its column's, negative in the left padding), cols its
	// column alone (for the borders' bounds), k its kernel position.
	offs, cols, k [maxWindowTaps]int
}

// tapsOf fills rt with output row oy's taps.
func (w *window2d) tapsOf(oy int, rt *rowTaps) {
	rt.n = 0
	for i := 0; i < w.kh; i++ {
		sy := oy*w.sh - w.ph + i*w.dh
		if sy < 0 || sy >= w.ih {
			continue
		}
		for j := 0; j < w.kw; j++ {
			rt.cols[rt.n] = j*w.dw - w.pw
			rt.offs[rt.n] = sy*w.rowStride + rt.cols[rt.n]
			rt.k[rt.n] = i*w.kw + j
			rt.n++
		}
	}
}

// isDepthwise reports whether a convolution of input channels ch and
// weight w [M, C/group, ...] is depthwise: one input channel per group.
func isDepthwise(ch int, w wgrt.Tensor, group int) bool {
	return group == ch && w.Shape[1] == 1
}

// convDepthwiseF32 is Conv for depthwise float32 1-D and 2-D convolution:
// output channel oc reads input channel oc/multiplier. ok is false when
// the window does not suit it (the caller then takes the generic path).
func convDepthwiseF32(x, w wgrt.Tensor, bias *wgrt.Tensor, out wgrt.Tensor, ca convAttrs) bool {
	win, ok := windowOf(x, out, ca.kernel, ca.strides, ca.pads, ca.dilations)
	if !ok || !w.Contiguous() {
		return false
	}
	n, ch, m := x.Shape[0], x.Shape[1], out.Shape[1]
	job := depthwiseJob{x: x, w: w, bias: bias, out: out, win: win, mult: m / ch}
	if threads <= 1 || n*m == 1 {
		job.planes(0, n*m)
		return true
	}
	shared := job // escapes to the goroutines; job itself stays on the stack
	parallel(n*m, shared.planes)
	return true
}

type depthwiseJob struct {
	x, w, out wgrt.Tensor
	bias      *wgrt.Tensor
	win       window2d
	mult      int
}

// planes computes output planes [from, to) of the batch's images times
// output channels.
func (j *depthwiseJob) planes(from, to int) {
	xs, ws, ys := elems[float32](j.x), elems[float32](j.w), elems[float32](j.out)
	win := &j.win
	m := j.out.Shape[1]
	ksz := win.kh * win.kw
	lo, hi := win.interior()
	ylo, yhi := win.fullRows()
	outRow := 0
	if len(j.out.Shape) == 4 {
		outRow = j.out.Strides[2]
	}
	// With strides 1 and input rows as far apart as output rows, the
	// interiors of the full rows and the borders between them are one tap
	// row (the borders read wrapped-around input and are redone apart).
	flat := win.sh == 1 && win.sw == 1 && outRow == win.rowStride && lo < hi && yhi-ylo > 1
	var rt rowTaps
	var shifted [maxWindowTaps]int
	var wts [maxWindowTaps]float32
	for p := from; p < to; p++ {
		b, oc := p/m, p%m
		plane := xs[b*j.x.Strides[0]+(oc/j.mult)*j.x.Strides[1]:]
		kern := ws[oc*ksz : oc*ksz+ksz]
		bias := float32(0)
		if j.bias != nil {
			bias = float32(loadF(*j.bias, oc*j.bias.Strides[0]))
		}
		yb := b*j.out.Strides[0] + oc*j.out.Strides[1]
		for oy := 0; oy < win.oh; oy++ {
			win.tapsOf(oy, &rt)
			for t := range rt.n {
				wts[t] = kern[rt.k[t]]
			}
			offs, w := rt.offs[:rt.n], wts[:rt.n]
			if flat && oy == ylo {
				for t, o := range offs {
					shifted[t] = o + lo
				}
				tapRow(ys[yb+oy*outRow+lo:yb+(yhi-1)*outRow+hi], plane, shifted[:rt.n], w, 1, bias, tapSum)
				for ; oy < yhi; oy++ {
					row := ys[yb+oy*outRow : yb+oy*outRow+win.ow]
					d := (oy - ylo) * win.rowStride
					depthwiseBorder(row, plane[d:], &rt, w, win, 0, lo, bias)
					depthwiseBorder(row, plane[d:], &rt, w, win, hi, win.ow, bias)
				}
				oy--
				continue
			}
			row := ys[yb+oy*outRow : yb+oy*outRow+win.ow]
			depthwiseBorder(row, plane, &rt, w, win, 0, lo, bias)
			depthwiseBorder(row, plane, &rt, w, win, hi, win.ow, bias)
			if lo < hi {
				for t, o := range offs {
					shifted[t] = o + lo*win.sw
				}
				tapRow(row[lo:hi], plane, shifted[:rt.n], w, win.sw, bias, tapSum)
			}
		}
	}
}

// depthwiseBorder computes output columns [from, to) of row, where some
// taps fall into the padding, checking each tap's column.
func depthwiseBorder(row, plane []float32, rt *rowTaps, wts []float32, win *window2d, from, to int, bias float32) {
	for ox := from; ox < to; ox++ {
		s := bias
		for t, o := range rt.offs[:rt.n] {
			if sx := ox*win.sw + rt.cols[t]; sx >= 0 && sx < win.iw {
				s += wts[t] * plane[o+ox*win.sw]
			}
		}
		row[ox] = s
	}
}
