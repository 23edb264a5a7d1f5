package wgref

//go:noescape
func kernel8x32(kc int, a, b *float32, ldb int, c *float32, ldc int, accumulate int)

//go:noescape
func kernel4x32(kc int, a, b *float32, ldb int, c *float32, ldc int, accumulate int)

//go:noescape
func kernel12x16(kc int, a, b *float32, ldb int, c *float32, ldc int, accumulate int)

//go:noescape
func kernel12x8(kc int, a, b *float32, ldb int, c *float32, ldc int, accumulate int)

// edge runs, on the AVX-512 path, the smallest edge kernel that covers
// the rows×cols corner of a tile and reports whether it did (the other
// paths, and corners only kernel12x32 covers, report false). It
// overwrites at least that corner of c's tile.
func (p kernelPath) edge(kc int, a, b []float32, ldb int, c []float32, ldc, rows, cols int) bool {
	if p.id != kernelAVX512 || kc <= 0 {
		return false
	}
	// Direct calls, so that escape analysis sees the kernels keep no
	// pointer (a func value would send the caller's tile to the heap).
	_ = a[kc*12-1]
	switch {
	case cols <= 8:
		_, _ = b[(kc-1)*ldb+7], c[11*ldc+7]
		kernel12x8(kc, &a[0], &b[0], ldb, &c[0], ldc, 0)
	case cols <= 16:
		_, _ = b[(kc-1)*ldb+15], c[11*ldc+15]
		kernel12x16(kc, &a[0], &b[0], ldb, &c[0], ldc, 0)
	case rows <= 4:
		_, _ = b[(kc-1)*ldb+31], c[3*ldc+31]
		kernel4x32(kc, &a[0], &b[0], ldb, &c[0], ldc, 0)
	case rows <= 8:
		_, _ = b[(kc-1)*ldb+31], c[7*ldc+31]
		kernel8x32(kc, &a[0], &b[0], ldb, &c[0], ldc, 0)
	default:
		return false
	}
	return true
}
