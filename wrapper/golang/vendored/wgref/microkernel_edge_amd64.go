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
func kernel4x16(kc int, a, b *float32, ldb int, c *float32, ldc int, accumulate int)

//go:noescape
func kernel2x16(kc int, a, b *float32, ldb int, c *float32, ldc int, accumulate int)

//go:noescape
func kernel6x1(kc int, a, b *float32, ldb int, out *float32)

//go:noescape
func kernel6x4(kc int, a, b *float32, ldb int, out *float32)

//go:noescape
func kernel12x1(kc int, a, b *float32, ldb int, out *float32)

//go:noescape
func kernel12x4(kc int, a, b *float32, ldb int, out *float32)

// edge runs the smallest edge kernel that covers the rows×cols corner of
// a tile and reports whether it did: edgeCols for up to four columns,
// on the AVX2 path kernel2x16 or kernel4x16, and on the AVX-512 path kernel12x8, kernel12x16 (with edgeCols for 17
// to 20 columns), kernel4x32 or kernel8x32 (the Go path, and corners only
// the full kernel covers, report false). It
// overwrites at least that corner of c's tile.
func (p kernelPath) edge(kc int, a, b []float32, ldb int, c []float32, ldc, rows, cols int) bool {
	if p.id == kernelGo || kc <= 0 {
		return false
	}
	if cols <= 4 {
		p.edgeCols(kc, a, b, ldb, c, ldc, rows, cols)
		return true
	}
	if p.id != kernelAVX512 {
		// AVX2: a last panel of four rows or fewer (16 or 32 output
		// channels leave four or two) runs those rows alone.
		_, _ = a[kc*6-1], b[(kc-1)*ldb+15]
		switch {
		case rows <= 2:
			_ = c[1*ldc+15]
			kernel2x16(kc, &a[0], &b[0], ldb, &c[0], ldc, 0)
		case rows <= 4:
			_ = c[3*ldc+15]
			kernel4x16(kc, &a[0], &b[0], ldb, &c[0], ldc, 0)
		default:
			return false
		}
		return true
	}
	// Direct calls, so that escape analysis sees the kernels keep no
	// pointer (a func value would send the caller's tile to the heap).
	_ = a[kc*12-1]
	if cols > 16 && cols <= 20 {
		// A 7x7 image's 49 positions leave 17 past the first panel:
		// 16 and one, at 13 of the full tile's 24 FMAs a step.
		_, _ = b[(kc-1)*ldb+19], c[11*ldc+15]
		kernel12x16(kc, &a[0], &b[0], ldb, &c[0], ldc, 0)
		p.edgeCols(kc, a, b[16:], ldb, c[16:], ldc, rows, cols-16)
		return true
	}
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

// edgeCols is edge for a tile's last one to four columns (a 7x7 image's
// 49 positions leave one past the full panels, 14x14's 196 four):
// kernel6x1 or kernel6x4 on the AVX2 path, kernel12x1 or kernel12x4 on
// the AVX-512 path, run a column in a fraction of the full tile's time.
func (p kernelPath) edgeCols(kc int, a, b []float32, ldb int, c []float32, ldc, rows, cols int) {
	var out [4 * 16]float32
	_ = a[kc*p.mr-1]
	_ = b[(kc-1)*ldb+3]
	switch {
	case p.id == kernelAVX512 && cols == 1:
		kernel12x1(kc, &a[0], &b[0], ldb, &out[0])
	case p.id == kernelAVX512:
		kernel12x4(kc, &a[0], &b[0], ldb, &out[0])
	case cols == 1:
		kernel6x1(kc, &a[0], &b[0], ldb, &out[0])
	default:
		kernel6x4(kc, &a[0], &b[0], ldb, &out[0])
	}
	lanes := 8
	if p.id == kernelAVX512 {
		lanes = 16
	}
	_ = c[(rows-1)*ldc+cols-1]
	for i := range rows {
		for j := range cols {
			c[i*ldc+j] = out[j*lanes+i]
		}
	}
}
