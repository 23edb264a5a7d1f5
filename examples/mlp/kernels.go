package mlp

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/examples/mlp/wgrt"
)

// GoKernels are plain Go implementations of the MLP's kernels over
// row-major f32 tensors. They allocate nothing.
type GoKernels struct{}

var _ Kernels = GoKernels{}

// Matmul computes out0 = in0 @ in1 for in0 [m, k] and in1 [k, n].
func (GoKernels) Matmul(out0, in0, in1 wgrt.Tensor) error {
	m, k, n := in0.Shape[0], in0.Shape[1], in1.Shape[1]
	if in1.Shape[0] != k || out0.Shape[0] != m || out0.Shape[1] != n {
		return fmt.Errorf("matmul: shapes %v @ %v -> %v", in0.Shape, in1.Shape, out0.Shape)
	}
	a, b, c := in0.Float32s(), in1.Float32s(), out0.Float32s()
	for i := 0; i < m; i++ {
		row := c[i*n : (i+1)*n]
		for j := range row {
			row[j] = 0
		}
		for p := 0; p < k; p++ {
			av := a[i*k+p]
			brow := b[p*n : (p+1)*n]
			for j, bv := range brow {
				row[j] += av * bv
			}
		}
	}
	return nil
}

// BiasAdd computes out0 = in0 + in1 with in1 broadcast over rows.
func (GoKernels) BiasAdd(out0, in0, in1 wgrt.Tensor) error {
	n := in1.Shape[0]
	x, b, y := in0.Float32s(), in1.Float32s(), out0.Float32s()
	for i := range y[:in0.NumElements()] {
		y[i] = x[i] + b[i%n]
	}
	return nil
}

// Relu_ computes max(in0, 0) into out0, which shares in0's memory.
func (GoKernels) Relu_(out0, in0 wgrt.Tensor) error {
	x, y := in0.Float32s(), out0.Float32s()
	for i := range y[:out0.NumElements()] {
		y[i] = max(x[i], 0)
	}
	return nil
}

// Softmax computes the softmax of each row (dim must be the last one).
func (GoKernels) Softmax(out0, in0 wgrt.Tensor, dim int) error {
	if dim != -1 && dim != len(in0.Shape)-1 {
		return fmt.Errorf("softmax: only the last dimension is supported, got %d", dim)
	}
	n := in0.Shape[len(in0.Shape)-1]
	x, y := in0.Float32s(), out0.Float32s()
	for r := 0; r < in0.NumElements()/n; r++ {
		xr, yr := x[r*n:(r+1)*n], y[r*n:(r+1)*n]
		m := float32(math.Inf(-1))
		for _, v := range xr {
			m = max(m, v)
		}
		var sum float32
		for i, v := range xr {
			yr[i] = float32(math.Exp(float64(v - m)))
			sum += yr[i]
		}
		for i := range yr {
			yr[i] /= sum
		}
	}
	return nil
}
