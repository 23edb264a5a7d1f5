//go:build !amd64

package wgref

func (p kernelPath) finishTile(e *rowEpilogue, kc int, a, b []float32, ldb int, c []float32, ldc, r0, c0 int, accumulate bool) bool {
	return false
}
