package wgref

//go:noescape
func kernel6x16Finish(kc int, a, b *float32, ldb int, c *float32, ldc int, accumulate int, bias *float32, biasStride int, sum *float32, mode int, lo, hi float32)

//go:noescape
func kernel12x32Finish(kc int, a, b *float32, ldb int, c *float32, ldc int, accumulate int, bias *float32, biasStride int, sum *float32, mode int, lo, hi float32)

// tileFinish is an epilogue's finish as finishTile runs it, found once per
// block of tiles; ok is false where the path has no finishing kernel for
// its activation.
type tileFinish struct {
	mode   int
	lo, hi float32
	ok     bool
}

// tileFinishOf is e's tileFinish on p: on the AVX-512 path, every
// activation biasClampAVX512 runs; on the AVX2 path, those of
// biasClampAVX2 but SiLU and Sigmoid (kernel6x16Finish).
func (p kernelPath) tileFinishOf(e *rowEpilogue) tileFinish {
	width, mode, lo, hi := e.vectorWidth()
	ok := width == 16 && p.id == kernelAVX512 || width == 8 && p.id == kernelAVX2 && mode != clampSiLU && mode != clampSigmoid
	return tileFinish{mode, lo, hi, ok}
}

// finishTile runs the micro-kernel on a whole tile of c at rows [r0,
// r0+mr) and columns [c0, c0+nr) together with e's finish of it (bias,
// sum, then the activation), storing the tile once instead of storing it
// and finishing it in a second pass (a MobileNet expansion of 16 channels
// spends as long on that pass as on its product). f is
// p.tileFinishOf(e), ok, and kc is above 0. The same instructions in the
// same order as microKernel then finish: the same bits.
func (p kernelPath) finishTile(e *rowEpilogue, f tileFinish, kc int, a, b []float32, ldb int, c []float32, ldc, r0, c0 int, accumulate bool) {
	acc := 0
	if accumulate {
		acc = 1
	}
	_, _, _ = a[kc*p.mr-1], b[(kc-1)*ldb+p.nr-1], c[(r0+p.mr-1)*ldc+c0+p.nr-1]
	bias, biasStride := &zeroBias, 0
	if e.bias != nil {
		_ = e.bias[(r0+p.mr-1)*e.biasStride]
		bias, biasStride = &e.bias[r0*e.biasStride], e.biasStride
	}
	var sum *float32
	if e.sum != nil {
		_ = e.sum[(r0+p.mr-1)*ldc+c0+p.nr-1]
		sum = &e.sum[r0*ldc+c0]
	}
	if p.id == kernelAVX2 {
		kernel6x16Finish(kc, &a[0], &b[0], ldb, &c[r0*ldc+c0], ldc, acc, bias, biasStride, sum, f.mode, f.lo, f.hi)
		return
	}
	kernel12x32Finish(kc, &a[0], &b[0], ldb, &c[r0*ldc+c0], ldc, acc, bias, biasStride, sum, f.mode, f.lo, f.hi)
}
