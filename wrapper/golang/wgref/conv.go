package wgref

import (
	"fmt"

	"github.com/wrapgen/wrapgen/wrapper/golang/wgrt"
)

func init() {
	register("Conv", conv)
	register("ConvTranspose", convTranspose)
}

// convAttrs are a convolution's attributes, as the importer gives them
// (auto_pad resolved into pads: begins, then ends).
type convAttrs struct {
	kernel, strides, pads, dilations []int
	group                            int
}

func readConvAttrs(c *wgrt.Call, spatial int) (convAttrs, error) {
	a := attrsOf(c)
	ca := convAttrs{kernel: a.Ints("kernel_shape"), strides: a.Ints("strides"), pads: a.Ints("pads"), dilations: a.Ints("dilations"), group: a.IntOr("group", 1)}
	if a.err != nil {
		return ca, a.err
	}
	if len(ca.kernel) != spatial || len(ca.strides) != spatial || len(ca.dilations) != spatial || len(ca.pads) != 2*spatial || ca.group <= 0 {
		return ca, fmt.Errorf("%s: attributes do not fit %d spatial dimensions", c.Kernel, spatial)
	}
	return ca, nil
}

// conv is ONNX Conv: grouped, strided, dilated and padded, 1-D to 3-D, bias
// optional. float32 runs as im2col (skipped for 1x1 kernels) and the
// blocked GEMM; other dtypes directly.
func conv(c *wgrt.Call) error {
	if err := need(c, 1, 2, 3); err != nil {
		return err
	}
	out, x, w := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	r := len(x.Shape) - 2
	if r < 1 || len(w.Shape) != r+2 || len(out.Shape) != r+2 {
		return fmt.Errorf("%s: input %v, weight %v and output %v do not fit", c.Kernel, x.Shape, w.Shape, out.Shape)
	}
	ca, err := readConvAttrs(c, r)
	if err != nil {
		return err
	}
	n, ch, m := x.Shape[0], x.Shape[1], w.Shape[0]
	g := ca.group
	if ch%g != 0 || m%g != 0 || w.Shape[1] != ch/g || out.Shape[1] != m || out.Shape[0] != n {
		return fmt.Errorf("%s: input %v, weight %v, group %d and output %v do not fit", c.Kernel, x.Shape, w.Shape, g, out.Shape)
	}
	var bias *wgrt.Tensor
	if len(c.Inputs) == 3 {
		bias = &c.Inputs[2]
	}
	if x.DType == wgrt.F32 && w.DType == wgrt.F32 && out.DType == wgrt.F32 && w.Contiguous() && spatialContiguous(out) {
		convF32(x, w, bias, out, ca)
		return nil
	}
	if familyOf(out.DType) != famFloat {
		return unsupported(c, out.DType)
	}
	convDirect(x, w, bias, out, ca)
	return nil
}

// spatialContiguous reports whether t's dimensions after the first two are
// row-major contiguous (a [N, C, ...] tensor whose each channel is one
// block).
func spatialContiguous(t wgrt.Tensor) bool {
	want := 1
	for d := len(t.Shape) - 1; d >= 2; d-- {
		if t.Shape[d] != 1 && t.Strides[d] != want {
			return false
		}
		want *= t.Shape[d]
	}
	return true
}

func prod(xs []int) int {
	p := 1
	for _, x := range xs {
		p *= x
	}
	return p
}

func convF32(x, w wgrt.Tensor, bias *wgrt.Tensor, out wgrt.Tensor, ca convAttrs) {
	r := len(x.Shape) - 2
	n, ch, m := x.Shape[0], x.Shape[1], w.Shape[0]
	g := ca.group
	cg, mg := ch/g, m/g
	ksz := prod(ca.kernel)
	kk := cg * ksz
	p := prod(out.Shape[2:])
	xs, ws, ys := elems[float32](x), elems[float32](w), elems[float32](out)
	pointwise := ksz == 1 && spatialContiguous(x)
	for d := 0; d < r; d++ {
		pointwise = pointwise && ca.strides[d] == 1 && ca.pads[d] == 0 && ca.pads[r+d] == 0 && out.Shape[2+d] == x.Shape[2+d]
	}
	var col []float32
	var held *[]float32
	if !pointwise {
		col, held = scratch(kk * p)
		defer release(held)
	}
	for b := 0; b < n; b++ {
		for gi := 0; gi < g; gi++ {
			xo := b*x.Strides[0] + gi*cg*x.Strides[1]
			yo := b*out.Strides[0] + gi*mg*out.Strides[1]
			cm := ys[yo:]
			acc := false
			if bias != nil {
				for oc := 0; oc < mg; oc++ {
					v := float32(loadF(*bias, (gi*mg+oc)*bias.Strides[0]))
					row := cm[oc*out.Strides[1] : oc*out.Strides[1]+p]
					for i := range row {
						row[i] = v
					}
				}
				acc = true
			}
			var bm matrix
			if pointwise {
				bm = matrix{data: xs[xo:], rs: x.Strides[1], cs: 1}
			} else {
				im2col(col, xs, xo, x, out, ca, cg)
				bm = matrix{data: col, rs: p, cs: 1}
			}
			am := matrix{data: ws[gi*mg*w.Strides[0]:], rs: w.Strides[0], cs: 1}
			sgemm(mg, p, kk, am, bm, cm, out.Strides[1], acc)
		}
	}
}

// im2col lays out, for one image and group, row (c, kernel position) and
// column (output position): the input element that kernel tap reads, or 0
// in the padding.
func im2col(col, xs []float32, xo int, x, out wgrt.Tensor, ca convAttrs, cg int) {
	r := len(x.Shape) - 2
	p := prod(out.Shape[2:])
	if r == 2 {
		ih, iw, oh, ow := x.Shape[2], x.Shape[3], out.Shape[2], out.Shape[3]
		kh, kw := ca.kernel[0], ca.kernel[1]
		sh, sw, dh, dw, ph, pw := ca.strides[0], ca.strides[1], ca.dilations[0], ca.dilations[1], ca.pads[0], ca.pads[1]
		xsh, xsw := x.Strides[2], x.Strides[3]
		row := 0
		for ci := 0; ci < cg; ci++ {
			xc := xo + ci*x.Strides[1]
			for i := 0; i < kh; i++ {
				for j := 0; j < kw; j++ {
					dst := col[row*p : row*p+p]
					row++
					at := 0
					for y := 0; y < oh; y++ {
						sy := y*sh - ph + i*dh
						if sy < 0 || sy >= ih {
							clear(dst[at : at+ow])
							at += ow
							continue
						}
						base := xc + sy*xsh
						for xx := 0; xx < ow; xx++ {
							sx := xx*sw - pw + j*dw
							if sx < 0 || sx >= iw {
								dst[at] = 0
							} else {
								dst[at] = xs[base+sx*xsw]
							}
							at++
						}
					}
				}
			}
		}
		return
	}
	// Any rank: one output position at a time.
	row := 0
	pos := make([]int, r)
	for ci := 0; ci < cg; ci++ {
		forEachIndex(ca.kernel, func(k []int) {
			dst := col[row*p : row*p+p]
			row++
			at := 0
			forEachIndex(out.Shape[2:], func(o []int) {
				inside := true
				for d := 0; d < r; d++ {
					pos[d] = o[d]*ca.strides[d] - ca.pads[d] + k[d]*ca.dilations[d]
					inside = inside && pos[d] >= 0 && pos[d] < x.Shape[2+d]
				}
				if inside {
					dst[at] = xs[xo+ci*x.Strides[1]+offsetOf(pos, x.Strides[2:])]
				} else {
					dst[at] = 0
				}
				at++
			})
		})
	}
}

// convDirect is the definition, for any float dtype and layout.
func convDirect(x, w wgrt.Tensor, bias *wgrt.Tensor, out wgrt.Tensor, ca convAttrs) {
	r := len(x.Shape) - 2
	cg, mg := x.Shape[1]/ca.group, w.Shape[0]/ca.group
	pos := make([]int, r)
	forEachIndex(out.Shape, func(o []int) {
		b, oc := o[0], o[1]
		gi := oc / mg
		s := 0.0
		if bias != nil {
			s = loadF(*bias, oc*bias.Strides[0])
		}
		for ci := 0; ci < cg; ci++ {
			forEachIndex(ca.kernel, func(k []int) {
				for d := 0; d < r; d++ {
					pos[d] = o[2+d]*ca.strides[d] - ca.pads[d] + k[d]*ca.dilations[d]
					if pos[d] < 0 || pos[d] >= x.Shape[2+d] {
						return
					}
				}
				xv := loadF(x, b*x.Strides[0]+(gi*cg+ci)*x.Strides[1]+offsetOf(pos, x.Strides[2:]))
				wv := loadF(w, oc*w.Strides[0]+ci*w.Strides[1]+offsetOf(k, w.Strides[2:]))
				s += xv * wv
			})
		}
		storeF(out, offsetOf(o, out.Strides), s)
	})
}

// convTranspose scatters every input element times the kernel into the
// output (the gradient of Conv): out[o*s - p + k*d] += x[i] * w[c, m, k].
func convTranspose(c *wgrt.Call) error {
	if err := need(c, 1, 2, 3); err != nil {
		return err
	}
	out, x, w := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	r := len(x.Shape) - 2
	if r < 1 || len(w.Shape) != r+2 || len(out.Shape) != r+2 {
		return fmt.Errorf("%s: input %v, weight %v and output %v do not fit", c.Kernel, x.Shape, w.Shape, out.Shape)
	}
	ca, err := readConvAttrs(c, r)
	if err != nil {
		return err
	}
	if familyOf(out.DType) != famFloat {
		return unsupported(c, out.DType)
	}
	g := ca.group
	ch, mg := x.Shape[1], w.Shape[1]
	if ch%g != 0 || w.Shape[0] != ch || out.Shape[1] != mg*g {
		return fmt.Errorf("%s: input %v, weight %v, group %d and output %v do not fit", c.Kernel, x.Shape, w.Shape, g, out.Shape)
	}
	cg := ch / g
	acc := make([]float64, out.NumElements())
	ostr := rowMajor(out.Shape)
	pos := make([]int, r)
	forEachIndex(x.Shape, func(i []int) {
		b, ci := i[0], i[1]
		gi := ci / cg
		xv := loadF(x, offsetOf(i, x.Strides))
		for om := 0; om < mg; om++ {
			forEachIndex(ca.kernel, func(k []int) {
				for d := 0; d < r; d++ {
					pos[d] = i[2+d]*ca.strides[d] - ca.pads[d] + k[d]*ca.dilations[d]
					if pos[d] < 0 || pos[d] >= out.Shape[2+d] {
						return
					}
				}
				wv := loadF(w, ci*w.Strides[0]+om*w.Strides[1]+offsetOf(k, w.Strides[2:]))
				acc[b*ostr[0]+(gi*mg+om)*ostr[1]+offsetOf(pos, ostr[2:])] += xv * wv
			})
		}
	})
	forEachIndex(out.Shape, func(o []int) {
		v := acc[offsetOf(o, ostr)]
		if len(c.Inputs) == 3 {
			v += loadF(c.Inputs[2], o[1]*c.Inputs[2].Strides[0])
		}
		storeF(out, offsetOf(o, out.Strides), v)
	})
	return nil
}
