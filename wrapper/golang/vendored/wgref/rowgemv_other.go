//go:build !amd64

package wgref

// rowTimesB is rowTimesBGo where there is no assembly.
func rowTimesB(c, a []float32, acs int, b []float32, ldb, k int, accumulate bool) {
	rowTimesBGo(c, a, acs, b, ldb, k, accumulate)
}

// rowsTimesB is rowTimesB row by row where there is no assembly.
func rowsTimesB(m int, c []float32, ldc int, a []float32, ars, acs int, b []float32, ldb, n, k int, accumulate bool) {
	for i := 0; i < m; i++ {
		rowTimesB(c[i*ldc:i*ldc+n], a[i*ars:], acs, b, ldb, k, accumulate)
	}
}
