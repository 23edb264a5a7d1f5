package wgref

// packRuns is packB for 2-D and 3-D convolutions by copies: each row of a
// panel (a channel and kernel tap) is the runs of the input that the
// panel's output rows read, copied whole (or every other float for
// stride 2), the padding cleared. A 2-D convolution is the 3-D one of
// depth 1. The 2-D ones take it where packStrips and packGather do not
// apply (the Go path, output rows wider than a panel); 3-D ones always.
func (m *im2colB) packRuns(dst []float32, p0, j0, kc, nc int) {
	x, ca, out := m.x, m.ca, m.out
	// Depth, height and width of the input, output, kernel, strides,
	// dilations, leading pads and input strides; depth 1 for 2-D.
	id, kd, sd, dd, pd, xsd := 1, 1, 1, 1, 0, 0
	r := len(x.Shape) - 2
	if r == 3 {
		id, kd, sd, dd, pd, xsd = x.Shape[2], ca.kernel[0], ca.strides[0], ca.dilations[0], ca.pads[0], x.Strides[2]
	}
	ih, iw, oh, ow := x.Shape[r], x.Shape[r+1], out.Shape[r], out.Shape[r+1]
	kh, kw := ca.kernel[r-2], ca.kernel[r-1]
	sh, sw, dh, dw := ca.strides[r-2], ca.strides[r-1], ca.dilations[r-2], ca.dilations[r-1]
	ph, pw := ca.pads[r-2], ca.pads[r-1]
	xsc, xsh, xsw := x.Strides[1], x.Strides[r], x.Strides[r+1]
	ksz, plane := kd*kh*kw, oh*ow
	// What each row (channel, kernel tap) reads: its channel's base, the
	// tap's offsets, and the output columns whose input column is inside.
	type tap struct{ base, dz, dy, dx, lo, hi int }
	var taps [blockK]tap
	for p := 0; p < kc; p++ {
		row := p0 + p
		ci, kp := row/ksz, row%ksz
		a, i, j := kp/(kh*kw), kp/kw%kh, kp%kw
		taps[p] = tap{base: m.xo + ci*xsc, dz: a*dd - pd, dy: i*dh - ph, dx: j*dw - pw,
			lo: max(0, ceilDiv(pw-j*dw, sw)), hi: min(ow, ceilDiv(iw+pw-j*dw, sw))}
	}
	// Panel by panel, row by row: each write of nr floats is contiguous.
	for jr := 0; jr < nc; jr += nr {
		cols := min(nr, nc-jr)
		q := j0 + jr
		oz0, oy0, ox0 := q/plane, q%plane/ow, q%ow
		panel := dst[jr*kc : jr*kc+nr*kc]
		for p := 0; p < kc; p++ {
			t := &taps[p]
			out := panel[p*nr : p*nr+nr]
			oz, oy, ox := oz0, oy0, ox0
			for c := 0; c < cols; {
				// The part of this output row in the panel: columns
				// [ox, ox+seg), of which [a, b) read inside the input.
				seg := min(cols-c, ow-ox)
				sz, sy := oz*sd+t.dz, oy*sh+t.dy
				a, b := max(ox, t.lo), min(ox+seg, t.hi)
				if sz < 0 || sz >= id || sy < 0 || sy >= ih || a >= b {
					clear(out[c : c+seg])
				} else {
					clear(out[c : c+a-ox])
					src := t.base + sz*xsd + sy*xsh + (a*sw+t.dx)*xsw
					dst := out[c+a-ox : c+b-ox]
					switch step := sw * xsw; step {
					case 1:
						copy(dst, m.xs[src:src+len(dst)])
					case 2:
						copyEvens(dst, m.xs[src:src+2*len(dst)-1])
					default:
						for e := range dst {
							dst[e] = m.xs[src+e*step]
						}
					}
					clear(out[c+b-ox : c+seg])
				}
				c += seg
				if ox += seg; ox == ow {
					ox = 0
					if oy++; oy == oh {
						oy, oz = 0, oz+1
					}
				}
			}
			clear(out[cols:])
		}
	}
}
