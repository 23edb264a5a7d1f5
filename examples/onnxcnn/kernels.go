package onnxcnn

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/examples/onnxcnn/wgrt"
)

// OpKernels implements the ONNX ops of the example in plain Go, over
// row-major float32 tensors, following the ONNX operator definitions.
type OpKernels struct{}

var _ Kernels = OpKernels{}

// Conv is ONNX Conv over NCHW with explicit pads [top, left, bottom, right].
func (OpKernels) Conv(out, x, w, b wgrt.Tensor, kernelShape, strides, pads, dilations []int, group int) error {
	if group != 1 {
		return fmt.Errorf("Conv: group %d not implemented", group)
	}
	o, xs, ws, bs := out.Float32s(), x.Float32s(), w.Float32s(), b.Float32s()
	n, c, h, wd := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	m, oh, ow := out.Shape[1], out.Shape[2], out.Shape[3]
	kh, kw := kernelShape[0], kernelShape[1]
	for in := range n {
		for oc := range m {
			for y := range oh {
				for xx := range ow {
					sum := bs[oc]
					for ic := range c {
						for i := range kh {
							iy := y*strides[0] - pads[0] + i*dilations[0]
							if iy < 0 || iy >= h {
								continue
							}
							for j := range kw {
								ix := xx*strides[1] - pads[1] + j*dilations[1]
								if ix < 0 || ix >= wd {
									continue
								}
								sum += xs[((in*c+ic)*h+iy)*wd+ix] * ws[((oc*c+ic)*kh+i)*kw+j]
							}
						}
					}
					o[((in*m+oc)*oh+y)*ow+xx] = sum
				}
			}
		}
	}
	return nil
}

// Relu is ONNX Relu.
func (OpKernels) Relu(out, x wgrt.Tensor) error {
	o := out.Float32s()
	for i, v := range x.Float32s()[:x.NumElements()] {
		o[i] = max(v, 0)
	}
	return nil
}

// MaxPool is ONNX MaxPool over NCHW (floor mode).
func (OpKernels) MaxPool(out, x wgrt.Tensor, kernelShape, strides, pads, dilations []int, ceilMode, storageOrder int) error {
	o, xs := out.Float32s(), x.Float32s()
	n, c, h, w := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	oh, ow := out.Shape[2], out.Shape[3]
	for p := range n * c {
		for y := range oh {
			for xx := range ow {
				best := float32(math.Inf(-1))
				for i := range kernelShape[0] {
					iy := y*strides[0] - pads[0] + i*dilations[0]
					for j := range kernelShape[1] {
						ix := xx*strides[1] - pads[1] + j*dilations[1]
						if iy >= 0 && iy < h && ix >= 0 && ix < w {
							best = max(best, xs[(p*h+iy)*w+ix])
						}
					}
				}
				o[(p*oh+y)*ow+xx] = best
			}
		}
	}
	return nil
}

// Gemm is ONNX Gemm: alpha*A'*B' + beta*C, C broadcast over rows.
func (OpKernels) Gemm(out, a, b, c wgrt.Tensor, alpha, beta float64, transA, transB int) error {
	o, as, bs, cs := out.Float32s(), a.Float32s(), b.Float32s(), c.Float32s()
	m, n := out.Shape[0], out.Shape[1]
	k := a.Shape[1]
	if transA != 0 {
		k = a.Shape[0]
	}
	at := func(i, p int) float32 {
		if transA != 0 {
			return as[p*m+i]
		}
		return as[i*k+p]
	}
	bt := func(p, j int) float32 {
		if transB != 0 {
			return bs[j*k+p]
		}
		return bs[p*n+j]
	}
	for i := range m {
		for j := range n {
			var sum float32
			for p := range k {
				sum += at(i, p) * bt(p, j)
			}
			cv := cs[j%len(cs)]
			if c.NumElements() == m*n {
				cv = cs[i*n+j]
			}
			o[i*n+j] = float32(alpha)*sum + float32(beta)*cv
		}
	}
	return nil
}

// Softmax is ONNX Softmax (opset 13) along the last axis.
func (OpKernels) Softmax(out, x wgrt.Tensor, axis int, coerce2d bool) error {
	if axis != len(x.Shape)-1 {
		return fmt.Errorf("Softmax: axis %d not implemented", axis)
	}
	o, xs := out.Float32s(), x.Float32s()
	d := x.Shape[axis]
	for r := 0; r < x.NumElements(); r += d {
		row := xs[r : r+d]
		mx := row[0]
		for _, v := range row {
			mx = max(mx, v)
		}
		var sum float64
		for i, v := range row {
			e := math.Exp(float64(v - mx))
			o[r+i] = float32(e)
			sum += e
		}
		for i := range row {
			o[r+i] = float32(float64(o[r+i]) / sum)
		}
	}
	return nil
}
