package wgref

//go:noescape
func kernel8x32(kc int, a, b *float32, ldb int, c *float32, ldc int, accumulate int)

//go:noescape
func kernel4x32(kc int, a, b *float32, ldb int, c *float32, ldc int, accumulate int)

//go:noescape
func kernel12x16(kc int, a, b *float32, ldb int, c *float32, ldc int, accumulate int)

//go:noescape
func kernel12x8(kc int, a, b *float32, ldb int, c *float32, ldc int, accumulate int)

//go:noescape
func kernel6x1(kc int, a, b *float32, ldb int, out *float32)

//go:noescape
func kernel6x4(kc int, a, b *float32, ldb int, out *float32)

// edge runs, on the AVX-512 path, the smallest edge kernel that covers
// the rows×cols corner of a tile, on the AVX2 path edgeCols for up to
// four columns, and reports whether it did (the Go path, and corners
// only the full kernel covers, report false). It
// overwrites at least that corner of c's tile.
func (p kernelPath) edge(kc int, a, b []float32, ldb int, c []float32, ldc, rows, cols int) bool {
	if p.id == kernelAVX2 && kc > 0 && cols <= 4 {
		p.edgeCols(kc, a, b, ldb, c, ldc, rows, cols)
		return true
	}
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

// edgeCols is edge on the AVX2 path for a tile's last one to four columns
// (a 7x7 image's 49 positions leave one past three panels): kernel6x1 or
// kernel6x4 run a column in a fraction of the full tile's time.
func (p kernelPath) edgeCols(kc int, a, b []float32, ldb int, c []float32, ldc, rows, cols int) {
	var out [4 * 8]float32
	_ = a[kc*6-1]
	if cols == 1 {
		_ = b[(kc-1)*ldb]
		kernel6x1(kc, &a[0], &b[0], ldb, &out[0])
	} else {
		_ = b[(kc-1)*ldb+3]
		kernel6x4(kc, &a[0], &b[0], ldb, &out[0])
	}
	_ = c[(rows-1)*ldc+cols-1]
	for i := range rows {
		for j := range cols {
			c[i*ldc+j] = out[j*8+i]
		}
	}
}
