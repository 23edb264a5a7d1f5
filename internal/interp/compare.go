package interp

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Tolerance is how far a float result may be from the expected one:
// |got - want| <= Atol + Rtol*|want| (numpy.testing.assert_allclose, as
// ONNX's backend test runner uses it). Integers and bools match exactly.
type Tolerance struct{ Rtol, Atol float64 }

// ONNXTolerance is ONNX's backend test runner's default.
var ONNXTolerance = Tolerance{Rtol: 1e-3, Atol: 1e-7}

// Compare reports the first way got differs from want (dtype, shape, an
// element out of tolerance), or "" when they match. want is row-major.
func Compare(got wgrt.Tensor, want wgrt.Tensor, tol Tolerance) string {
	if got.DType != want.DType {
		return fmt.Sprintf("dtype is %s, want %s", got.DType, want.DType)
	}
	if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
		return fmt.Sprintf("shape is %v, want %v", got.Shape, want.Shape)
	}
	n := want.NumElements()
	size := want.DType.Size()
	if len(want.Data) < n*size {
		return fmt.Sprintf("expected data has %d bytes for %d elements", len(want.Data), n)
	}
	idx := make([]int, len(want.Shape))
	worst, worstAt := 0.0, -1
	for i := 0; i < n; i++ {
		off := 0
		for d := range idx {
			off += idx[d] * got.Strides[d]
		}
		g := got.Data[off*size : off*size+size]
		w := want.Data[i*size : i*size+size]
		if isFloat(want.DType) {
			gv, wv := floatAt(want.DType, g), floatAt(want.DType, w)
			if math.IsNaN(gv) != math.IsNaN(wv) || (!math.IsNaN(wv) && !closeEnough(gv, wv, tol)) {
				if d := math.Abs(gv - wv); worstAt < 0 || d > worst || math.IsNaN(d) {
					worst, worstAt = d, i
				}
			}
		} else if string(g) != string(w) {
			return fmt.Sprintf("element %d is %s, want %s", i, elemString(want.DType, g), elemString(want.DType, w))
		}
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < want.Shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	if worstAt >= 0 {
		off := 0
		rest := worstAt
		for d := len(want.Shape) - 1; d >= 0; d-- {
			off += (rest % want.Shape[d]) * got.Strides[d]
			rest /= want.Shape[d]
		}
		g := got.Data[off*size : off*size+size]
		w := want.Data[worstAt*size : worstAt*size+size]
		return fmt.Sprintf("element %d is %v, want %v (the largest difference out of tolerance: %g)", worstAt, floatAt(want.DType, g), floatAt(want.DType, w), worst)
	}
	return ""
}

func closeEnough(got, want float64, tol Tolerance) bool {
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tol.Atol+tol.Rtol*math.Abs(want)
}

func isFloat(d wgrt.DType) bool {
	switch d {
	case wgrt.F16, wgrt.BF16, wgrt.F32, wgrt.F64:
		return true
	}
	return false
}

// floatAt reads one element of dtype d from its bytes.
func floatAt(d wgrt.DType, b []byte) float64 {
	return wgrt.Tensor{DType: d, Data: b}.Float64At(0)
}

func elemString(d wgrt.DType, b []byte) string {
	var u uint64
	for i := len(b) - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	switch d {
	case wgrt.I8:
		return fmt.Sprint(int8(u))
	case wgrt.I16:
		return fmt.Sprint(int16(u))
	case wgrt.I32:
		return fmt.Sprint(int32(u))
	case wgrt.I64:
		return fmt.Sprint(int64(u))
	case wgrt.Bool:
		return fmt.Sprint(u != 0)
	}
	return fmt.Sprint(u)
}
