package wgref

// packRows1D is im2colB.packB for 1-D convolutions (speech models'
// feature extractors and Conv-TasNet's blocks): each row (channel, tap)
// reads one input row at the output positions times the stride plus the
// tap's offset, so a panel row is a zero head, a strided copy (copyEvens
// at stride 2) and a zero tail, the inside bounds found once per row
// instead of per element as packAnyRank finds them.
func (m *im2colB) packRows1D(dst []float32, p0, j0, kc, nc int) {
	x, ca := m.x, m.ca
	iw, ow := x.Shape[2], m.out.Shape[2]
	kw, sw, dw, pw := ca.kernel[0], ca.strides[0], ca.dilations[0], ca.pads[0]
	xsc, xsw := x.Strides[1], x.Strides[2]
	for p := 0; p < kc; p++ {
		ci, kp := (p0+p)/kw, (p0+p)%kw
		base, shift := m.xo+ci*xsc, kp*dw-pw
		// Output positions [lo, hi) read inside the input.
		lo, hi := max(0, ceilDiv(-shift, sw)), min(ow, ceilDiv(iw-shift, sw))
		for jr := 0; jr < nc; jr += nr {
			out := dst[jr*kc+p*nr : jr*kc+p*nr+nr]
			q0 := j0 + jr
			cols := min(nr, nc-jr)
			a, b := min(max(lo-q0, 0), cols), max(min(hi-q0, cols), 0)
			if a >= b {
				clear(out)
				continue
			}
			clear(out[:a])
			src := base + ((q0+a)*sw+shift)*xsw
			seg := out[a:b]
			switch step := sw * xsw; step {
			case 1:
				copy(seg, m.xs[src:src+len(seg)])
			case 2:
				copyEvens(seg, m.xs[src:src+2*len(seg)-1])
			default:
				for e := range seg {
					seg[e] = m.xs[src+e*step]
				}
			}
			clear(out[b:])
		}
	}
}
