package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// maxPoolIndicesF32 is MaxPool with its Indices output for 1-D and 2-D
// float32: per output, the window's rows and columns inside the input are
// computed once (no bounds check per tap), and the first largest element
// is kept with its flat index into x, row-major or, with storage_order 1,
// column-major over the spatial axes. Elements compare as the generic
// loop does: a later one wins only when greater.
func maxPoolIndicesF32(x, out, idx wgrt.Tensor, win window2d, columnMajor bool) {
	xs, ys, is := elems[float32](x), elems[float32](out), elems[int64](idx)
	ch := x.Shape[1]
	plane := win.ih * win.iw
	// Flat index steps of a row and a column of the input.
	rowStep, colStep := win.iw, 1
	if columnMajor {
		rowStep, colStep = 1, win.ih
	}
	last := len(out.Shape) - 1
	for b := 0; b < x.Shape[0]; b++ {
		for c := range ch {
			src := xs[b*x.Strides[0]+c*x.Strides[1]:]
			flat0 := int64((b*ch + c) * plane)
			for oy := range win.oh {
				ylo, yhi := windowSpan(oy, win.sh, win.ph, win.kh, win.dh, win.ih)
				yo := b*out.Strides[0] + c*out.Strides[1]
				io := b*idx.Strides[0] + c*idx.Strides[1]
				if last == 3 {
					yo += oy * out.Strides[2]
					io += oy * idx.Strides[2]
				}
				for ox := range win.ow {
					xlo, xhi := windowSpan(ox, win.sw, win.pw, win.kw, win.dw, win.iw)
					best, at := negInf32, -1
					for i := ylo; i < yhi; i++ {
						sy := oy*win.sh - win.ph + i*win.dh
						row := src[sy*win.rowStride:]
						for j := xlo; j < xhi; j++ {
							sx := ox*win.sw - win.pw + j*win.dw
							if v := row[sx]; v > best || at < 0 {
								best, at = v, sy*rowStep+sx*colStep
							}
						}
					}
					ys[yo+ox*out.Strides[last]] = best
					is[io+ox*idx.Strides[last]] = flat0 + int64(at)
					if at < 0 {
						is[io+ox*idx.Strides[last]] = -1
					}
				}
			}
		}
	}
}

// windowSpan is the kernel positions [lo, hi) of output o's window along
// one axis that lie inside the input [0, in).
func windowSpan(o, stride, pad, k, dil, in int) (lo, hi int) {
	start := o*stride - pad
	lo = min(max(0, ceilDiv(-start, dil)), k)
	// The last position inside: start + (hi-1)*dil < in.
	if in-start <= 0 {
		return lo, lo
	}
	return lo, max(lo, min(k, (in-start-1)/dil+1))
}
