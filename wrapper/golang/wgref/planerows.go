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
