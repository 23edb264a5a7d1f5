package wgrt

import (
	"fmt"
	"strings"
)

// CheckTensor reports how t differs from what the wrapper expects of the
// tensor called name: dtype, device, shape, strides, and that its data is
// large enough for the view.
func CheckTensor(name string, t Tensor, dtype DType, device string, shape, strides []int) error {
	switch {
	case t.DType != dtype:
		return fmt.Errorf("%s: dtype is %s, want %s", name, t.DType, dtype)
	case t.Device != device:
		return fmt.Errorf("%s: device is %q, want %q", name, t.Device, device)
	case len(t.Shape) != len(shape):
		return fmt.Errorf("%s: rank is %d (shape %s), want %d (shape %s)", name, len(t.Shape), dims(t.Shape), len(shape), dims(shape))
	case len(t.Strides) != len(t.Shape):
		return fmt.Errorf("%s: %d strides for %d dimensions", name, len(t.Strides), len(t.Shape))
	}
	for i := range shape {
		if t.Shape[i] != shape[i] {
			return fmt.Errorf("%s: shape is %s, want %s (dimension %d)", name, dims(t.Shape), dims(shape), i)
		}
	}
	for i := range strides {
		if t.Shape[i] != 1 && t.Strides[i] != strides[i] {
			return fmt.Errorf("%s: strides are %s, want %s", name, dims(t.Strides), dims(strides))
		}
	}
	need, ok := extentBytes(shape, strides, dtype.Size())
	if !ok {
		return fmt.Errorf("%s: shape %s needs more bytes than an int holds", name, dims(shape))
	}
	if len(t.Data) < need {
		return fmt.Errorf("%s: data has %d bytes, the view needs %d", name, len(t.Data), need)
	}
	return nil
}

// extentBytes is Extent(shape, strides) * size, and false when it
// overflows.
func extentBytes(shape, strides []int, size int) (int, bool) {
	n := 1
	for i, s := range shape {
		if s == 0 {
			return 0, true
		}
		step, ok := mulOK(s-1, strides[i])
		if !ok {
			return 0, false
		}
		if n, ok = addOK(n, step); !ok {
			return 0, false
		}
	}
	return mulOK(n, size)
}

// BindSymbol sets *sym from dimension dim of an input's shape, which the
// graph gives as scale*sym + bias, or checks it against the value already
// bound. Messages name the input (from) and the dimension.
func BindSymbol(sym *int, bound *bool, symName string, from string, shape []int, rank, dim, scale, bias int) error {
	if len(shape) == 0 && rank > 0 {
		// Unset, or a rank-0 tensor: the shape alone cannot tell which.
		return fmt.Errorf("%s is not set, or is a rank-0 tensor (want rank %d)", from, rank)
	}
	if len(shape) != rank {
		return fmt.Errorf("%s: rank is %d (shape %s), want %d", from, len(shape), dims(shape), rank)
	}
	value := shape[dim]
	v := value - bias
	if v%scale != 0 {
		return fmt.Errorf("%s: dimension %d is %d, which is not %d*%s + %d for any %s", from, dim, value, scale, symName, bias, symName)
	}
	v /= scale
	if *bound && *sym != v {
		return fmt.Errorf("%s: dimension %d gives %s = %d, but an earlier input gave %s = %d", from, dim, symName, v, symName, *sym)
	}
	*sym, *bound = v, true
	return nil
}

// CheckRange reports a symbol value outside [min, max] (max < 0: none).
func CheckRange(symName string, v, min, max int) error {
	if v < min || (max >= 0 && v > max) {
		if max < 0 {
			return fmt.Errorf("symbol %s = %d is below its minimum %d", symName, v, min)
		}
		return fmt.Errorf("symbol %s = %d is outside [%d, %d]", symName, v, min, max)
	}
	return nil
}

func dims(xs []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, x)
	}
	b.WriteByte(']')
	return b.String()
}
