package wgrt

import "unsafe"

// New allocates a zeroed contiguous tensor on the CPU, aligned to 64 bytes.
func New(dtype DType, shape ...int) Tensor {
	t := Tensor{DType: dtype, Shape: append([]int(nil), shape...), Strides: make([]int, len(shape)), Device: "cpu"}
	RowMajor(t.Strides, t.Shape)
	t.Data = AlignedBytes(t.ExtentElements()*dtype.Size(), 64)
	return t
}

// FromFloat32s makes a contiguous f32 tensor viewing data (no copy).
func FromFloat32s(data []float32, shape ...int) Tensor {
	t := Tensor{DType: F32, Shape: append([]int(nil), shape...), Strides: make([]int, len(shape)), Device: "cpu"}
	RowMajor(t.Strides, t.Shape)
	if len(data) > 0 {
		t.Data = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(data))), len(data)*4)
	}
	return t
}
