//go:build !amd64

package wgref

// Where there is no assembly, the row kernels are their Go forms.

func (u unaryF32) row(dst, src []float32) { u.rowGo(dst, src) }

func siluRow([]float32) bool { return false }

func binaryVV(k binaryKind, dst, a, b []float32) { binaryVVGo(k, dst, a, b) }

func binaryVS(k binaryKind, dst, a []float32, s float32) { binaryVSGo(k, dst, a, s) }

// scaleShiftRows sets dst row i (rows ldd floats apart) to src row i
// (lds apart) · scale[i] + shift[i] over cols columns, the product
// rounded before the sum.
func scaleShiftRows(dst []float32, ldd int, src []float32, lds, cols int, scale, shift []float32) {
	scaleShiftRowsGo(dst, ldd, src, lds, cols, scale, shift)
}
