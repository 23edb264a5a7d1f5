package wgrt

import "unsafe"

// Tensor is a view of memory: element type, shape and strides (in
// elements), the device the memory is on, and the bytes from the view's
// first element to one past its last (its extent). Copying a Tensor copies
// the view, not the data.
type Tensor struct {
	DType   DType
	Shape   []int
	Strides []int
	Device  string
	Data    []byte
}

// NumElements is the product of the sizes.
func (t Tensor) NumElements() int {
	n := 1
	for _, s := range t.Shape {
		n *= s
	}
	return n
}

// ExtentElements is how many elements the view spans from its first
// element: 1 + sum((size_i-1)*stride_i), or 0 when a size is 0.
func (t Tensor) ExtentElements() int {
	return Extent(t.Shape, t.Strides)
}

// Extent is 1 + sum((size_i-1)*stride_i), or 0 when a size is 0.
func Extent(shape, strides []int) int {
	n := 1
	for i, s := range shape {
		if s == 0 {
			return 0
		}
		n += (s - 1) * strides[i]
	}
	return n
}

// Contiguous reports whether the strides are row-major for the shape.
func (t Tensor) Contiguous() bool {
	want := 1
	for i := len(t.Shape) - 1; i >= 0; i-- {
		if t.Shape[i] != 1 && t.Strides[i] != want {
			return false
		}
		want *= t.Shape[i]
	}
	return true
}

// RowMajor fills strides with the row-major strides of shape and returns it.
func RowMajor(strides, shape []int) []int {
	want := 1
	for i := len(shape) - 1; i >= 0; i-- {
		strides[i] = want
		want *= shape[i]
	}
	return strides
}

// Index is the element offset of a multi-index within the view.
func (t Tensor) Index(idx ...int) int {
	off := 0
	for i, x := range idx {
		off += x * t.Strides[i]
	}
	return off
}

// typed reinterprets the view's bytes as elements of E without copying.
// The length is the extent in elements; index with Index.
func typed[E any](t Tensor, want DType) []E {
	if t.DType != want {
		panic("wgrt: tensor of dtype " + t.DType.String() + " read as " + want.String())
	}
	var zero E
	n := len(t.Data) / int(unsafe.Sizeof(zero))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(t.Data))), n)
}

// Float32s views an f32 tensor's data as []float32 (no copy).
func (t Tensor) Float32s() []float32 { return typed[float32](t, F32) }

// Float64s views an f64 tensor's data as []float64 (no copy).
func (t Tensor) Float64s() []float64 { return typed[float64](t, F64) }

// Int8s views an i8 tensor's data as []int8 (no copy).
func (t Tensor) Int8s() []int8 { return typed[int8](t, I8) }

// Uint8s views a u8 tensor's data as []uint8 (no copy).
func (t Tensor) Uint8s() []uint8 { return typed[uint8](t, U8) }

// Int16s views an i16 tensor's data as []int16 (no copy).
func (t Tensor) Int16s() []int16 { return typed[int16](t, I16) }

// Uint16s views a u16 tensor's data as []uint16 (no copy).
func (t Tensor) Uint16s() []uint16 { return typed[uint16](t, U16) }

// Int32s views an i32 tensor's data as []int32 (no copy).
func (t Tensor) Int32s() []int32 { return typed[int32](t, I32) }

// Uint32s views a u32 tensor's data as []uint32 (no copy).
func (t Tensor) Uint32s() []uint32 { return typed[uint32](t, U32) }

// Int64s views an i64 tensor's data as []int64 (no copy).
func (t Tensor) Int64s() []int64 { return typed[int64](t, I64) }

// Uint64s views a u64 tensor's data as []uint64 (no copy).
func (t Tensor) Uint64s() []uint64 { return typed[uint64](t, U64) }

// Bools views a bool tensor's data as []bool (no copy); each byte must be 0 or 1.
func (t Tensor) Bools() []bool { return typed[bool](t, Bool) }

// Complex64s views a c64 tensor's data as []complex64 (no copy).
func (t Tensor) Complex64s() []complex64 { return typed[complex64](t, C64) }

// Complex128s views a c128 tensor's data as []complex128 (no copy).
func (t Tensor) Complex128s() []complex128 { return typed[complex128](t, C128) }

// Halfs views an f16 or bf16 tensor's data as raw 16-bit words (no copy).
func (t Tensor) Halfs() []uint16 {
	if t.DType != F16 && t.DType != BF16 {
		panic("wgrt: tensor of dtype " + t.DType.String() + " read as 16-bit floats")
	}
	t.DType = U16
	return t.Uint16s()
}

// Deliver hands a computed output to the caller: when dst has no data it
// becomes the view t; otherwise t's bytes are copied into dst's (which a
// wrapper checked has t's dtype and rank, and its shape and strides at
// the bounds of any run-time size), unless t already is dst's memory, and
// dst takes t's shape and strides (those a run-time size gives).
func Deliver(dst *Tensor, t Tensor) {
	if dst.Data == nil {
		*dst = t
		return
	}
	copy(dst.Shape, t.Shape)
	copy(dst.Strides, t.Strides)
	if len(t.Data) > 0 && len(dst.Data) > 0 && &dst.Data[0] == &t.Data[0] {
		return
	}
	copy(dst.Data, t.Data)
}
