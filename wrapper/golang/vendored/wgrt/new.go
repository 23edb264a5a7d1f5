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
func FromFloat32s(data []float32, shape ...int) Tensor { return View(data, shape...) }

// Element is every Go type a tensor's elements can be viewed as; f16,
// bf16 and the float8 types have none (see FromBytes).
type Element interface {
	bool | int8 | uint8 | int16 | uint16 | int32 | uint32 | int64 | uint64 | float32 | float64 | complex64 | complex128
}

// DTypeOf is the dtype of elements of type E.
func DTypeOf[E Element]() DType {
	var zero E
	switch any(zero).(type) {
	case bool:
		return Bool
	case int8:
		return I8
	case uint8:
		return U8
	case int16:
		return I16
	case uint16:
		return U16
	case int32:
		return I32
	case uint32:
		return U32
	case int64:
		return I64
	case uint64:
		return U64
	case float32:
		return F32
	case float64:
		return F64
	case complex64:
		return C64
	}
	return C128
}

// View makes a contiguous cpu tensor of shape viewing data, without
// copying: the caller's memory is the tensor's. The dtype follows E.
func View[E Element](data []E, shape ...int) Tensor {
	var zero E
	size := int(unsafe.Sizeof(zero))
	var b []byte
	if len(data) > 0 {
		b = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(data))), len(data)*size)
	}
	return FromBytes(DTypeOf[E](), b, shape...)
}

// FromBytes makes a contiguous cpu tensor of dtype and shape viewing data
// (little-endian elements, row-major), without copying: for the dtypes Go
// has no type of (f16, bf16, float8) and for raw buffers.
func FromBytes(dtype DType, data []byte, shape ...int) Tensor {
	t := Tensor{DType: dtype, Shape: append([]int(nil), shape...), Strides: make([]int, len(shape)), Device: "cpu", Data: data}
	RowMajor(t.Strides, t.Shape)
	return t
}
