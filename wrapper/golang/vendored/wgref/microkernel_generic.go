//go:build !amd64

package wgref

// bestKernelPath is the portable kernel where there is no assembly.
func bestKernelPath() kernelPath { return goPath }

// kernelPaths are the paths this CPU can run, for tests.
func kernelPaths() []kernelPath { return []kernelPath{goPath} }

// run is the path's micro-kernel (see microKernel).
func (p kernelPath) run(kc int, a, b []float32, ldb int, c []float32, ldc int, accumulate bool) {
	microKernelGo(p.mr, p.nr, kc, a, b, ldb, c, ldc, accumulate)
}
