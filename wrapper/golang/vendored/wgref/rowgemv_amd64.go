package wgref

//go:noescape
func rowTimesBAVX2(c *float32, n int, a *float32, acs int, b *float32, ldb int, k int, accumulate int)

//go:noescape
func rows4TimesBAVX2(c *float32, c1, c2, c3 int, n int, a *float32, a1, a2, a3 int, acs int, b *float32, ldb int, k int, accumulate int)

// rowTimesB is rowTimesBGo with AVX2 and FMA over the columns up to a
// multiple of eight where the CPU has them, the rest in Go.
func rowTimesB(c, a []float32, acs int, b []float32, ldb, k int, accumulate bool) {
	n8 := len(c) / 8 * 8
	if !haveAVX2FMA || n8 == 0 || k == 0 {
		rowTimesBGo(c, a, acs, b, ldb, k, accumulate)
		return
	}
	// Every element the assembly reads is in a and b.
	_, _ = a[(k-1)*acs], b[(k-1)*ldb+n8-1]
	acc := 0
	if accumulate {
		acc = 1
	}
	rowTimesBAVX2(&c[0], n8, &a[0], acs, &b[0], ldb, k, acc)
	if n8 < len(c) {
		rowTimesBGo(c[n8:], a, acs, b[n8:], ldb, k, accumulate)
	}
}

// rowsTimesB is rowTimesB for the m ≤ 4 rows of A at a (rows ars apart)
// into the rows of C at c (ldc apart): with AVX2 and FMA, all rows from
// one pass over B (its columns up to a multiple of eight), so that B is
// read once, not once per row.
func rowsTimesB(m int, c []float32, ldc int, a []float32, ars, acs int, b []float32, ldb, n, k int, accumulate bool) {
	n8 := n / 8 * 8
	if !haveAVX2FMA || m == 1 || n8 == 0 || k == 0 {
		for i := 0; i < m; i++ {
			rowTimesB(c[i*ldc:i*ldc+n], a[i*ars:], acs, b, ldb, k, accumulate)
		}
		return
	}
	// Rows past m repeat row 0.
	var co, ao [4]int
	for i := 1; i < m; i++ {
		co[i], ao[i] = i*ldc, i*ars
	}
	// Every element the assembly reads or writes is in a, b and c.
	_, _, _ = a[(m-1)*ars+(k-1)*acs], b[(k-1)*ldb+n8-1], c[(m-1)*ldc+n8-1]
	acc := 0
	if accumulate {
		acc = 1
	}
	rows4TimesBAVX2(&c[0], co[1], co[2], co[3], n8, &a[0], ao[1], ao[2], ao[3], acs, &b[0], ldb, k, acc)
	if n8 < n {
		for i := 0; i < m; i++ {
			rowTimesBGo(c[i*ldc+n8:i*ldc+n], a[i*ars:], acs, b[n8:], ldb, k, accumulate)
		}
	}
}
