package resnet18

import "github.com/wrapgen/wrapgen/examples/resnet18/wgrt"

// NoopKernels do nothing: what is left of a call is the wrapper's own work.
type NoopKernels struct{}

var _ Kernels = NoopKernels{}

func (NoopKernels) Convolution(out0, in0, in1 wgrt.Tensor, stride, padding, dilation []int, transposed bool, outputPadding []int, groups int) error {
	return nil
}
func (NoopKernels) EmptyMemoryFormat(out0 wgrt.Tensor, size []int) error { return nil }
func (NoopKernels) NativeBatchNorm(out0, out1, out2, in0, in1, in2, in3, in4 wgrt.Tensor, training bool, momentum, eps float64) error {
	return nil
}
func (NoopKernels) Relu_(out0, in0 wgrt.Tensor) error { return nil }
func (NoopKernels) MaxPool2dWithIndices(out0, out1, in0 wgrt.Tensor, kernelSize, stride, padding []int) error {
	return nil
}
func (NoopKernels) Add_Tensor(out0, in0, in1 wgrt.Tensor) error                  { return nil }
func (NoopKernels) MeanDim(out0, in0 wgrt.Tensor, dim []int, keepdim bool) error { return nil }
func (NoopKernels) Addmm(out0, in0, in1, in2 wgrt.Tensor) error                  { return nil }
