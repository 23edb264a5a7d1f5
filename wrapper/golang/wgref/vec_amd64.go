package wgref

func (u unaryF32) row(dst, src []float32) { u.rowGo(dst, src) }

func binaryVV(k binaryKind, dst, a, b []float32) { binaryVVGo(k, dst, a, b) }

func binaryVS(k binaryKind, dst, a []float32, s float32) { binaryVSGo(k, dst, a, s) }
