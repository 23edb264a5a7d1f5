package wgref

// copyPlaneRows copies rows rows of cols floats, src's srcStride apart, into
// dst's, dstStride apart: the padded bands' copies of short rows, one call
// per band rather than one copy (a memmove call) per row.
func copyPlaneRows(dst []float32, dstStride int, src []float32, srcStride int, rows, cols int) {
	if rows <= 0 || cols <= 0 {
		return
	}
	_, _ = dst[(rows-1)*dstStride+cols-1], src[(rows-1)*srcStride+cols-1]
	if planeRowsVector {
		planeRowsAVX512(&dst[0], dstStride, &src[0], srcStride, rows, cols)
		return
	}
	copyPlaneRowsGo(dst, dstStride, src, srcStride, rows, cols)
}

// copyPlaneRowsGo is copyPlaneRows in Go, the portable path.
func copyPlaneRowsGo(dst []float32, dstStride int, src []float32, srcStride int, rows, cols int) {
	for r := range rows {
		copy(dst[r*dstStride:r*dstStride+cols], src[r*srcStride:r*srcStride+cols])
	}
}

// copyEvens sets dst[i] = src[2i] for every i of dst (src holds at least
// 2·len(dst)-1 floats): im2col's rows of a stride-2 convolution.
func copyEvens(dst, src []float32) {
	n := len(dst)
	if n == 0 {
		return
	}
	_ = src[2*n-2]
	if !planeRowsVector {
		copyEvensGo(dst, src)
		return
	}
	// Whole vectors read 32 floats, the odd one after their last even
	// too: the last vector goes under masks when that lies past src.
	full, rem := n/16, n%16
	if rem == 0 && 2*n > len(src) {
		full, rem = full-1, 16
	}
	var masks uint64
	if rem > 0 {
		masks = (uint64(1)<<rem - 1) | (uint64(1)<<(2*rem-1)-1)<<16
	}
	evensAVX512(&dst[0], &src[0], full*16, masks)
}

// copyEvensGo is copyEvens in Go, the portable path.
func copyEvensGo(dst, src []float32) {
	for i := range dst {
		dst[i] = src[2*i]
	}
}
