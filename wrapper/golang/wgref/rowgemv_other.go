//go:build !amd64

package wgref

// rowTimesB is rowTimesBGo where there is no assembly.
func rowTimesB(c, a []float32, acs int, b []float32, ldb, k int, accumulate bool) {
	rowTimesBGo(c, a, acs, b, ldb, k, accumulate)
}
