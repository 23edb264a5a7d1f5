//go:build !amd64

package wgref

// Where there is no assembly, the row kernels are their Go forms.

func (u unaryF32) row(dst, src []float32) { u.rowGo(dst, src) }

func siluRow([]float32) bool { return false }

func binaryVV(k binaryKind, dst, a, b []float32) { binaryVVGo(k, dst, a, b) }

func binaryVS(k binaryKind, dst, a []float32, s float32) { binaryVSGo(k, dst, a, s) }
