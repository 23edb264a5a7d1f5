package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// planeColumns bounds the output rows resizePlanes takes: the taps of
// every column are kept on the stack.
const planeColumns = 1024

// maxLeadTaps bounds the combined taps of the leading axes resizePlanes
// takes (each has one of weight 1, or two to four for an axis of one
// element read from either side of it).
const maxLeadTaps = 16

// resizePlanes is resizeInto for float32 tensors resized over their last
// two axes only (images: a segmentation head's upsampling, a pooled map
// broadcast back), where resizeInto finds every element's taps anew. The
// taps of each output column are found once per call, those of each
// output row once per row, and each element is the same sum, in the same
// order, as resizeSum's: the same bits (the leading axes' taps too,
// though they keep each index but where an axis of one element is read
// from outside it). It reports false, doing nothing,
// when it does not apply.
func resizePlanes(c *wgrt.Call, out, x wgrt.Tensor, scales []float64, m resizeModes) (bool, error) {
	r := len(x.Shape)
	if r < 2 || x.DType != wgrt.F32 || out.DType != wgrt.F32 || m.coord == "tf_crop_and_resize" || len(m.roiNum) != 0 ||
		out.Shape[r-1] > planeColumns || out.Shape[r-2] == 0 || out.Shape[r-1] == 0 {
		return false, nil
	}
	for k := 0; k < r-2; k++ {
		if scales[k] != 1 || out.Shape[k] != x.Shape[k] {
			return false, nil
		}
	}
	roi := [2]float64{0, 1}
	var cols [planeColumns]resizeAxis
	ow, oh := out.Shape[r-1], out.Shape[r-2]
	for ox := range cols[:ow] {
		if err := cols[ox].sample(c.Kernel, ox, x.Shape[r-1], scales[r-1], m.mode, m.coord, m.nearest, m.cubicA, m.exclude, roi); err != nil {
			return true, err
		}
	}
	xs, ys := elems[float32](x), elems[float32](out)
	xsh, xsw, ysh, ysw := x.Strides[r-2], x.Strides[r-1], out.Strides[r-2], out.Strides[r-1]
	// Columns of at most two taps (linear, nearest), as two flat tables:
	// a missing second tap has weight 0, which the sum skips.
	twoTaps := true
	var tap0, tap1 [planeColumns]int
	var coef0, coef1 [planeColumns]float32
	for ox := range cols[:ow] {
		col := &cols[ox]
		if col.n > 2 {
			twoTaps = false
			break
		}
		tap0[ox], coef0[ox] = col.idx[0]*xsw, float32(col.coef[0])
		tap1[ox], coef1[ox] = tap0[ox], 0
		if col.n == 2 {
			tap1[ox], coef1[ox] = col.idx[1]*xsw, float32(col.coef[1])
		}
	}
	// Input rows interpolated across, the last two kept (an upsampling's
	// output rows read each pair several times), by where they start.
	var across [2][planeColumns]float32
	acrossAt, recent := [2]int{-1, -1}, 0
	rowAcross := func(at int) []float32 {
		i := 1 - recent // the one used less recently
		if acrossAt[recent] == at {
			i = recent
		} else if acrossAt[i] != at {
			acrossAt[i] = at
			twoTapColumns(across[i][:ow], xs[at:], tap0[:ow], tap1[:ow], coef0[:ow], coef1[:ow])
		}
		recent = i
		return across[i][:ow]
	}
	var lead [maxRank]resizeAxis
	var row resizeAxis
	for plane := range indices(out.Shape[:r-2]) {
		// The leading axes' taps (one of weight 1 unless an axis of one
		// element is read from outside it), combined as resizeSum
		// combines them: their weights' products and offsets.
		var lw [maxLeadTaps]float64
		var loff [maxLeadTaps]int
		lw[0], loff[0] = 1, 0
		combos := 1
		for k := range plane {
			ax := &lead[k]
			if err := ax.sample(c.Kernel, plane[k], x.Shape[k], 1, m.mode, m.coord, m.nearest, m.cubicA, m.exclude, roi); err != nil {
				return true, err
			}
			if combos*ax.n > maxLeadTaps {
				return false, nil
			}
			for i := combos - 1; i >= 0; i-- {
				for t := ax.n - 1; t >= 0; t-- {
					lw[i*ax.n+t], loff[i*ax.n+t] = lw[i]*ax.coef[t], loff[i]+ax.idx[t]*x.Strides[k]
				}
			}
			combos *= ax.n
		}
		// A combination of weight 0 adds nothing (resizeSum skips it).
		kept := 0
		for i := 0; i < combos; i++ {
			if lw[i] != 0 {
				lw[kept], loff[kept] = lw[i], loff[i]
				kept++
			}
		}
		combos = kept
		yo := offsetOf(plane, out.Strides)
		for oy := 0; oy < oh; oy++ {
			if err := row.sample(c.Kernel, oy, x.Shape[r-2], scales[r-2], m.mode, m.coord, m.nearest, m.cubicA, m.exclude, roi); err != nil {
				return true, err
			}
			dst := yo + oy*ysh
			if twoTaps && combos == 1 && lw[0] == 1 && row.n <= 2 {
				// Separable, in float32: the input rows across, then
				// the two rows' blend down.
				h0, wy0 := rowAcross(loff[0]+row.idx[0]*xsh), float32(row.coef[0])
				if row.n == 1 || row.coef[1] == 0 {
					scaleRow(ys[dst:], ysw, h0, wy0)
					continue
				}
				h1 := rowAcross(loff[0] + row.idx[1]*xsh) // h0's row stays: two are kept
				blendRows(ys[dst:], ysw, h0, h1, wy0, float32(row.coef[1]))
				continue
			}
			for ox := 0; ox < ow; ox++ {
				col := &cols[ox]
				sum := 0.0
				for l := 0; l < combos; l++ {
					for ty := 0; ty < row.n; ty++ {
						src := loff[l] + row.idx[ty]*xsh
						wy := lw[l] * row.coef[ty]
						for tx := 0; tx < col.n; tx++ {
							if w := wy * col.coef[tx]; w != 0 {
								sum += w * float64(xs[src+col.idx[tx]*xsw])
							}
						}
					}
				}
				ys[dst+ox*ysw] = float32(sum)
			}
		}
	}
	return true, nil
}

// twoTapColumns interpolates one input row across: dst[ox] sums the
// row's taps at tap0[ox] and tap1[ox] by their weights, a weight of 0
// skipped (nearest and an exact position copy the one tap whole).
func twoTapColumns(dst, row []float32, tap0, tap1 []int, coef0, coef1 []float32) {
	tap1, coef0, coef1 = tap1[:len(dst)], coef0[:len(dst)], coef1[:len(dst)]
	for ox, t0 := range tap0[:len(dst)] {
		v := coef0[ox] * row[t0]
		if c1 := coef1[ox]; c1 != 0 {
			v += c1 * row[tap1[ox]]
		}
		dst[ox] = v
	}
}

// scaleRow writes w·src along a row of dst, stride floats apart.
func scaleRow(dst []float32, stride int, src []float32, w float32) {
	if stride == 1 {
		dst = dst[:len(src)]
		for i, v := range src {
			dst[i] = w * v
		}
		return
	}
	for i, v := range src {
		dst[i*stride] = w * v
	}
}

// blendRows writes w0·a + w1·b along a row of dst, stride floats apart.
func blendRows(dst []float32, stride int, a, b []float32, w0, w1 float32) {
	b = b[:len(a)]
	if stride == 1 {
		dst = dst[:len(a)]
		for i, v := range a {
			dst[i] = w0*v + w1*b[i]
		}
		return
	}
	for i, v := range a {
		dst[i*stride] = w0*v + w1*b[i]
	}
}
