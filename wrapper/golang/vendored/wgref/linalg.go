package wgref

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func init() {
	register("Det", det)
	register("MaxUnpool", maxUnpool)
}

// det is each matrix's determinant by LU decomposition with partial
// pivoting, in float64 in the planned scratch (m*m floats).
func det(c *wgrt.Call) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	r := len(x.Shape)
	if r < 2 || x.Shape[r-1] != x.Shape[r-2] || familyOf(x.DType) != famFloat {
		return fmt.Errorf("%s: want float square matrices, have %s %v", c.Kernel, x.DType, x.Shape)
	}
	m := x.Shape[r-1]
	a, err := scratchOf[float64](c, m*m)
	if err != nil {
		return err
	}
	for b := range indices(x.Shape[:r-2]) {
		base := offsetOf(b, x.Strides[:r-2])
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				a[i*m+j] = loadF(x, base+i*x.Strides[r-2]+j*x.Strides[r-1])
			}
		}
		d := 1.0
		for k := 0; k < m; k++ {
			p := k
			for i := k + 1; i < m; i++ {
				if abs(a[i*m+k]) > abs(a[p*m+k]) {
					p = i
				}
			}
			if a[p*m+k] == 0 {
				d = 0
				break
			}
			if p != k {
				for j := 0; j < m; j++ {
					a[k*m+j], a[p*m+j] = a[p*m+j], a[k*m+j]
				}
				d = -d
			}
			d *= a[k*m+k]
			for i := k + 1; i < m; i++ {
				f := a[i*m+k] / a[k*m+k]
				for j := k; j < m; j++ {
					a[i*m+j] -= f * a[k*m+j]
				}
			}
		}
		storeF(out, offsetOf(b, out.Strides), d)
	}
	return nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// maxUnpool writes each input element where its index (MaxPool's flat
// Indices, over the unpooled shape (in-1)*stride + kernel - pads) puts it,
// zeros elsewhere; a larger output_shape pads that shape at its ends.
func maxUnpool(c *wgrt.Call) error {
	if len(c.Outputs) != 1 || len(c.Inputs) < 2 {
		return fmt.Errorf("%s: want X, I and an output", c.Kernel)
	}
	out, x, ind := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	a := attrsOf(c)
	kernel, strides, pads := a.Ints("kernel_shape"), a.Ints("strides"), a.Ints("pads")
	if a.err != nil {
		return a.err
	}
	sp := len(x.Shape) - 2
	if sp < 1 || len(kernel) != sp || len(strides) != sp || len(pads) != 2*sp || len(out.Shape) != len(x.Shape) {
		return fmt.Errorf("%s: attributes do not fit input %v and output %v", c.Kernel, x.Shape, out.Shape)
	}
	var defBuf [maxRank]int
	def := defBuf[:len(x.Shape)]
	def[0], def[1] = x.Shape[0], x.Shape[1]
	for i := 0; i < sp; i++ {
		def[2+i] = (x.Shape[2+i]-1)*strides[i] + kernel[i] - pads[i] - pads[sp+i]
		if def[2+i] > out.Shape[2+i] {
			return fmt.Errorf("%s: output %v is smaller than the unpooled size %d of dimension %d", c.Kernel, out.Shape, def[2+i], 2+i)
		}
	}
	n := numElements(def)
	var zero [8]byte
	for o := range indices(out.Shape) {
		copy(out.Data[offsetOf(o, out.Strides)*out.DType.Size():], zero[:out.DType.Size()])
	}
	var posBuf [maxRank]int
	pos := posBuf[:len(out.Shape)]
	for i := range indices(x.Shape) {
		flat := int(loadI(ind, offsetOf(i, ind.Strides)))
		if flat < 0 || flat >= n {
			return fmt.Errorf("%s: index %d is outside the output's %d elements", c.Kernel, flat, n)
		}
		for d := len(def) - 1; d >= 0; d-- {
			pos[d] = flat % def[d]
			flat /= def[d]
		}
		copyElem(out, offsetOf(pos, out.Strides), x, offsetOf(i, x.Strides))
	}
	return nil
}

func init() { register("DFT", dftKernel) }

// dftKernel is the discrete Fourier transform (or its inverse, divided by
// the length) along axis, each output bin summed directly in float64; the
// input zero-padded or cut to the length.
func dftKernel(c *wgrt.Call) error {
	if len(c.Outputs) != 1 || len(c.Inputs) < 1 {
		return fmt.Errorf("%s: want x and an output", c.Kernel)
	}
	out, x := c.Outputs[0], c.Inputs[0]
	a := attrsOf(c)
	axis, n, inverse := a.Int("axis"), a.Int("length"), a.Bool("inverse")
	if a.err != nil {
		return a.err
	}
	r := len(x.Shape)
	complexIn := x.Shape[r-1] == 2
	sign := -1.0
	if inverse {
		sign = 1
	}
	var outerBuf [maxRank]int
	outer := outerBuf[:r-1]
	copy(outer, out.Shape[:r-1])
	outer[axis] = 1
	var idxBuf [maxRank]int
	idx := idxBuf[:r]
	for o := range indices(outer) {
		copy(idx, o)
		for k := 0; k < out.Shape[axis]; k++ {
			re, im := 0.0, 0.0
			for t := 0; t < min(n, x.Shape[axis]); t++ {
				idx[axis], idx[r-1] = t, 0
				xr := loadF(x, offsetOf(idx, x.Strides))
				xi := 0.0
				if complexIn {
					idx[r-1] = 1
					xi = loadF(x, offsetOf(idx, x.Strides))
				}
				s, co := math.Sincos(sign * 2 * math.Pi * float64(k) * float64(t) / float64(n))
				re += xr*co - xi*s
				im += xr*s + xi*co
			}
			if inverse {
				re, im = re/float64(n), im/float64(n)
			}
			idx[axis], idx[r-1] = k, 0
			storeF(out, offsetOf(idx, out.Strides), re)
			idx[r-1] = 1
			storeF(out, offsetOf(idx, out.Strides), im)
		}
	}
	return nil
}

func init() { register("STFT", stftKernel) }

// stftKernel transforms each frame of the signal, times the window when
// there is one, bin by bin in float64.
func stftKernel(c *wgrt.Call) error {
	if len(c.Outputs) != 1 || len(c.Inputs) < 1 {
		return fmt.Errorf("%s: want a signal and an output", c.Kernel)
	}
	out, x := c.Outputs[0], c.Inputs[0]
	a := attrsOf(c)
	step, n, hasWindow := a.Int("frame_step"), a.Int("frame_length"), a.Bool("has_window")
	if a.err != nil {
		return a.err
	}
	var window *wgrt.Tensor
	if hasWindow {
		if len(c.Inputs) < 2 {
			return fmt.Errorf("%s: the window is missing", c.Kernel)
		}
		window = &c.Inputs[1]
	}
	complexIn := x.Shape[2] == 2
	for b := 0; b < out.Shape[0]; b++ {
		for f := 0; f < out.Shape[1]; f++ {
			for k := 0; k < out.Shape[2]; k++ {
				re, im := 0.0, 0.0
				for t := 0; t < n; t++ {
					off := b*x.Strides[0] + (f*step+t)*x.Strides[1]
					xr, xi := loadF(x, off), 0.0
					if complexIn {
						xi = loadF(x, off+x.Strides[2])
					}
					if window != nil {
						wv := loadF(*window, t*window.Strides[0])
						xr, xi = xr*wv, xi*wv
					}
					s, co := math.Sincos(-2 * math.Pi * float64(k) * float64(t) / float64(n))
					re += xr*co - xi*s
					im += xr*s + xi*co
				}
				o := b*out.Strides[0] + f*out.Strides[1] + k*out.Strides[2]
				storeF(out, o, re)
				storeF(out, o+out.Strides[3], im)
			}
		}
	}
	return nil
}
