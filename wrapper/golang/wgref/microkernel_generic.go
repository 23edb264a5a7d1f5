//go:build !amd64

package wgref

// microKernel is microKernelGo where there is no assembly.
func microKernel(kc int, a, b, c []float32, ldc int, accumulate bool) {
	microKernelGo(kc, a, b, c, ldc, accumulate)
}
