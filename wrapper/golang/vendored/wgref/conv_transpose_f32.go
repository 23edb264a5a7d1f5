package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// convTransposeF32 is convTranspose's scatter for a row-major float32
// input and weight, into the same float64 accumulator (row-major over
// outShape, cleared) and in the same order for every accumulator element
// (input channel, input position, tap): the same sums, without an index
// iterator or a typed load per product (Conv-TasNet's decoder spent 60% of
// the model in those). The innermost dimension's taps run in a plain loop;
// the outer ones (rank 2 and up) step their indices by hand.
func convTransposeF32(x, w wgrt.Tensor, acc []float64, outShape []int, ca convAttrs, cg, mg int) {
	r := len(x.Shape) - 2
	xs, ws := elems[float32](x), elems[float32](w)
	ch, outCh := x.Shape[1], outShape[1]
	inSp, outSp := x.Shape[2:], outShape[2:]
	inSize, outSize, kSize := prod(inSp), prod(outSp), prod(ca.kernel)
	var ostrBuf, iBuf, kBuf [maxRank]int
	ostr := wgrt.RowMajor(ostrBuf[:r], outSp)
	last := r - 1
	kLast, sLast, pLast, dLast, oLast := ca.kernel[last], ca.strides[last], ca.pads[last], ca.dilations[last], outSp[last]
	for b := 0; b < x.Shape[0]; b++ {
		for ci := 0; ci < ch; ci++ {
			gi := ci / cg
			xrow := xs[(b*ch+ci)*inSize:][:inSize]
			for om := 0; om < mg; om++ {
				wk := ws[(ci*mg+om)*kSize:][:kSize]
				arow := acc[(b*outCh+gi*mg+om)*outSize:][:outSize]
				if r == 1 {
					for i, xv := range xrow {
						x64, o0 := float64(xv), i*sLast-pLast
						for k, wv := range wk {
							if o := o0 + k*dLast; uint(o) < uint(oLast) {
								arow[o] += x64 * float64(wv)
							}
						}
					}
					continue
				}
				idx, kidx := iBuf[:r], kBuf[:r]
				clear(idx)
				for _, xv := range xrow {
					// idx is this input position; each row of taps of the
					// outer dimensions that lands inside, then its row.
					x64, o0 := float64(xv), idx[last]*sLast-pLast
					clear(kidx)
					for k := 0; k < kSize; k += kLast {
						base, inside := 0, true
						for d := 0; d < last; d++ {
							p := idx[d]*ca.strides[d] - ca.pads[d] + kidx[d]*ca.dilations[d]
							if p < 0 || p >= outSp[d] {
								inside = false
								break
							}
							base += p * ostr[d]
						}
						if inside {
							for kk, wv := range wk[k : k+kLast] {
								if o := o0 + kk*dLast; uint(o) < uint(oLast) {
									arow[base+o] += x64 * float64(wv)
								}
							}
						}
						stepIndex(kidx[:last], ca.kernel[:last])
					}
					stepIndex(idx, inSp)
				}
			}
		}
	}
}

// stepIndex advances idx to the next position of shape in row-major order
// (wrapping to all zeros after the last).
func stepIndex(idx, shape []int) {
	for d := len(idx) - 1; d >= 0; d-- {
		idx[d]++
		if idx[d] < shape[d] {
			return
		}
		idx[d] = 0
	}
}
