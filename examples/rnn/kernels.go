package rnn

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/examples/rnn/wgrt"
)

// GoKernels are plain Go implementations of the RNN's kernels over
// row-major f32 tensors.
type GoKernels struct{}

var _ Kernels = GoKernels{}

// Matmul computes out0 = in0 @ in1.
func (GoKernels) Matmul(out0, in0, in1 wgrt.Tensor) error {
	m, k, n := in0.Shape[0], in0.Shape[1], in1.Shape[1]
	a, b, c := in0.Float32s(), in1.Float32s(), out0.Float32s()
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float32
			for p := 0; p < k; p++ {
				s += a[i*k+p] * b[p*n+j]
			}
			c[i*n+j] = s
		}
	}
	return nil
}

// Zeros fills out0 with zeros.
func (GoKernels) Zeros(out0 wgrt.Tensor) error {
	clear(out0.Float32s())
	return nil
}

// Add sums its inputs elementwise into out0; an input with fewer elements
// (a bias) repeats along the leading dimensions.
func (GoKernels) Add(out0 wgrt.Tensor, ins []wgrt.Tensor) error {
	y := out0.Float32s()[:out0.NumElements()]
	clear(y)
	for _, in := range ins {
		x := in.Float32s()
		n := in.NumElements()
		if len(y)%n != 0 {
			return fmt.Errorf("add: cannot broadcast %v to %v", in.Shape, out0.Shape)
		}
		for i := range y {
			y[i] += x[i%n]
		}
	}
	return nil
}

// TanhInto writes tanh(in0) into in1 (the hidden state, mutated in place).
func (GoKernels) TanhInto(in0, in1 wgrt.Tensor) error {
	x, h := in0.Float32s(), in1.Float32s()
	for i := range h[:in1.NumElements()] {
		h[i] = float32(math.Tanh(float64(x[i])))
	}
	return nil
}
