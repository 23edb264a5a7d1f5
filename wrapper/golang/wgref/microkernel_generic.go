//go:build !amd64

package wgref

// microKernel is microKernelGo where there is no assembly.
func microKernel(kc int, a, b []float32, ldb int, c []float32, ldc int, accumulate bool) {
	microKernelGo(kc, a, b, ldb, c, ldc, accumulate)
}
