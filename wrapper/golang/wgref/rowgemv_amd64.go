package wgref

//go:noescape
func rowTimesBAVX2(c *float32, n int, a *float32, acs int, b *float32, ldb int, k int, accumulate int)

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
