package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// Sliding windows over 1-D and 2-D planes (depthwise convolution,
// pooling) run as tap rows (taprow.go). Mostly a band of output rows at a
// time: the input rows the band reads are copied into a padded buffer,
// where every tap lies inside. Otherwise (averages, whose counts leave
// the padding out; rows wider than the buffer), per output row the taps of the window rows inside the input run as one tap
// row over the columns where every tap lies inside too, and the columns
// at the padded borders apart, tap by tap.

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

// windowOp is what a window computes of its taps: their sum weighted by
// wts (one per kernel position; nil: all ones) plus init, or their
// maximum and init's; with avg, the sum divided by the taps counted
// (inside the input, or with includePad inside the padded input, whose
// end pads are padEndH and padEndW).
type windowOp struct {
	op               tapOp
	init             float32
	wts              []float32
	avg, includePad  bool
	padEndH, padEndW int
}

// paddedFloats is the size of the buffer a plane's input is copied into,
// padded, a band of rows at a time, so that every tap lies inside and no
// border needs computing apart (most of a small plane is border).
const paddedFloats = 4096

// paddedLimit is paddedFloats, or less when a test takes planes through
// smaller bands or (0) through the borders' path.
var paddedLimit = paddedFloats

// planeBufs are the padded bands' buffers: the padded input (with a
// vector's slack for stride 2's loads) and the output, row for row of the
// padded input. One per kernel call, reused for every plane.
type planeBufs struct {
	in  [paddedFloats + 2*tapRowLanes]float32
	out [paddedFloats]float32
	// offs are the taps' offsets in a padded band (pw floats a row), set
	// once per call rather than per plane; ones the weights of an
	// unweighted sum.
	pw   int
	offs [maxWindowTaps]int
	ones [maxWindowTaps]float32
	// bordered is whether in holds a plane one band covers with
	// its padding (fill) in place: the padding is the same for every
	// plane, so the next copies only the input's rows.
	bordered bool
	fill     float32
}

// tapsFor sets bufs' offsets for window w in bands of padded rows pw
// wide, once: a planeBufs serves one window (one kernel call's).
func (bufs *planeBufs) tapsFor(w *window2d, pw int) {
	if bufs.pw == pw {
		return
	}
	bufs.pw, bufs.bordered = pw, false
	for i := range w.kh {
		for j := range w.kw {
			k := i*w.kw + j
			bufs.offs[k] = i*w.dh*pw + j*w.dw
			bufs.ones[k] = 1
		}
	}
}

// plane computes one output plane dst (rows outRow apart) of the input
// plane src.
func (w *window2d) plane(dst []float32, outRow int, src []float32, wo *windowOp, bufs *planeBufs) {
	// Padded bands even where a plane takes several: with the rows copied
	// in one call a band, cheaper than the borders tap by tap (MobileNet's
	// 112x112 planes, BenchmarkConvDepthwise).
	if w.paddedBands(dst, outRow, src, wo, bufs) {
		return
	}
	lo, hi := w.interior()
	ylo, yhi := w.fullRows()
	// With strides 1 and input rows as far apart as output rows, the
	// interiors of the full rows and the borders between them are one tap
	// row (the borders read wrapped-around input and are redone apart).
	flat := w.sh == 1 && w.sw == 1 && outRow == w.rowStride && lo < hi && yhi-ylo > 1
	var rt rowTaps
	var shifted [maxWindowTaps]int
	var wts [maxWindowTaps]float32
	for oy := 0; oy < w.oh; oy++ {
		w.tapsOf(oy, &rt)
		for t := range rt.n {
			wts[t] = 1
			if wo.wts != nil {
				wts[t] = wo.wts[rt.k[t]]
			}
		}
		offs, tw := rt.offs[:rt.n], wts[:rt.n]
		rows := w.rowCount(oy, wo)
		last := oy + 1
		if flat && oy == ylo {
			last = yhi
		}
		// Rows [oy, last) as one tap row from column lo of the first to
		// column hi of the last.
		if lo < hi {
			for t, o := range offs {
				shifted[t] = o + lo*w.sw
			}
			out := dst[oy*outRow+lo : (last-1)*outRow+hi]
			tapRow(out, src, shifted[:rt.n], tw, w.sw, wo.init, wo.op)
			if wo.avg {
				// Every tap of an interior column lies inside, so none of
				// it is padding to count or not.
				n := float32(rows * w.kw)
				for i := range out {
					out[i] /= n
				}
			}
		}
		for first := oy; oy < last; oy++ {
			row := dst[oy*outRow : oy*outRow+w.ow]
			in := src[(oy-first)*w.sh*w.rowStride:]
			w.border(row, in, &rt, tw, 0, lo, wo, rows)
			w.border(row, in, &rt, tw, hi, w.ow, wo, rows)
		}
		oy--
	}
}

// border computes output columns [from, to) of row, whose taps reach
// into the padding, checking each tap's column (src is the plane moved
// down by as many input rows as row is below the one rt was made for).
func (w *window2d) border(row, src []float32, rt *rowTaps, wts []float32, from, to int, wo *windowOp, rows int) {
	for ox := from; ox < to; ox++ {
		acc := wo.init
		for t, o := range rt.offs[:rt.n] {
			if sx := ox*w.sw + rt.cols[t]; sx < 0 || sx >= w.iw {
				continue
			}
			v := src[o+ox*w.sw]
			if wo.op == tapSum {
				acc += wts[t] * v
			} else if v > acc || v != v {
				acc = v
			}
		}
		if wo.avg {
			acc /= float32(rows * countInside(ox, w.sw, w.pw, w.kw, w.dw, w.iw, wo.includePad, wo.padEndW))
		}
		row[ox] = acc
	}
}

// rowCount is how many of output row oy's window rows an average counts.
func (w *window2d) rowCount(oy int, wo *windowOp) int {
	return countInside(oy, w.sh, w.ph, w.kh, w.dh, w.ih, wo.includePad, wo.padEndH)
}

// countInside is how many taps of output o along one axis lie inside the
// input [0, in), or with includePad inside the padded input [-pad, in+padEnd).
func countInside(o, stride, pad, k, dil, in int, includePad bool, padEnd int) int {
	lo, hi := 0, in
	if includePad {
		lo, hi = -pad, in+padEnd
	}
	n := 0
	for i := range k {
		if s := o*stride - pad + i*dil; s >= lo && s < hi {
			n++
		}
	}
	return n
}

// paddedBands computes the plane band by band of output rows from a
// padded copy of the input rows the band reads, where every tap lies
// inside. With equal strides of 1, or rows too short for whole vectors,
// a band is one tap row, its output rows as far apart as the padded
// input's rows divided by the stride; otherwise each output row is one.
// It reports whether it did: not for averages (whose counts exclude the
// padding) or rows wider than the buffer.
func (w *window2d) paddedBands(dst []float32, outRow int, src []float32, wo *windowOp, bufs *planeBufs) bool {
	if wo.avg {
		return false
	}
	// A padded row: every column some tap reads.
	pw := (w.ow-1)*w.sw + (w.kw-1)*w.dw + 1
	reach := (w.kh-1)*w.dh + 1 // input rows one output row reads
	bh := (paddedLimit/pw-reach)/w.sh + 1
	flat := w.sh == w.sw && (w.sw == 1 || w.ow < 2*tapRowLanes)
	if flat {
		bh = min(bh, paddedLimit/pw)
	}
	if paddedLimit/pw < reach || bh < 1 {
		return false
	}
	fill := float32(0)
	if wo.op == tapMax {
		fill = negInf32
	}
	bufs.tapsFor(w, pw)
	nt := w.kh * w.kw
	offs, wts := bufs.offs[:nt], bufs.ones[:nt]
	if wo.wts != nil {
		wts = wo.wts[:nt]
	}
	for oy0 := 0; oy0 < w.oh; oy0 += bh {
		b := min(bh, w.oh-oy0)
		rows := (b-1)*w.sh + reach
		whole := b == w.oh // one band: the same padding for every plane
		w.padRows(bufs.in[:rows*pw], oy0*w.sh-w.ph, pw, src, fill, whole && bufs.bordered && bufs.fill == fill)
		bufs.bordered, bufs.fill = whole, fill
		in := bufs.in[:rows*pw+2*tapRowLanes]
		if !flat {
			for i := range b {
				oy := oy0 + i
				tapRow(dst[oy*outRow:oy*outRow+w.ow], in[i*w.sh*pw:], offs, wts, w.sw, wo.init, wo.op)
			}
			continue
		}
		// Output (oy, ox) reads the padded input from oy*sh*pw + ox*sw:
		// with output rows pw apart, the band is one row of stride sw.
		out := bufs.out[:(b-1)*pw+w.ow]
		tapRow(out, in, offs, wts, w.sw, wo.init, wo.op)
		copyPlaneRows(dst[oy0*outRow:], outRow, out, pw, b, w.ow)
	}
	return true
}

// padRows copies len(dst)/pw input rows from row sy0 into dst, pw columns
// each from column -w.pw, fill where that lies outside the input; with
// bordered, dst holds the fill already and only the input is copied.
func (w *window2d) padRows(dst []float32, sy0, pw int, src []float32, fill float32, bordered bool) {
	// Columns [a, b) of a padded row are the input's [a-w.pw, b-w.pw),
	// rows [r0, r1) its rows.
	a := min(w.pw, pw)
	b := max(a, min(w.pw+w.iw, pw))
	rows := len(dst) / pw
	r0, r1 := min(max(0, -sy0), rows), max(0, min(rows, w.ih-sy0))
	if a == b || r0 >= r1 {
		r0, r1 = 0, 0
	}
	if !bordered {
		for r := range rows {
			row := dst[r*pw : r*pw+pw]
			if r < r0 || r >= r1 {
				for i := range row {
					row[i] = fill
				}
				continue
			}
			for i := range row[:a] {
				row[i] = fill
			}
			for i := range row[b:] {
				row[b+i] = fill
			}
		}
	}
	if r0 < r1 {
		copyPlaneRows(dst[r0*pw+a:], pw, src[(sy0+r0)*w.rowStride+a-w.pw:], w.rowStride, r1-r0, b-a)
	}
}
