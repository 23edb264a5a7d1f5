//go:build !amd64

package wgref

// tileFinish is an epilogue's finish as finishTile runs it; no path here
// has a finishing kernel.
type tileFinish struct{ ok bool }

func (p kernelPath) tileFinishOf(e *rowEpilogue) tileFinish { return tileFinish{} }

func (p kernelPath) finishTile(e *rowEpilogue, f tileFinish, kc int, a, b []float32, ldb int, c []float32, ldc, r0, c0 int, accumulate bool) {
	panic("wgref: no finishing micro-kernel on this path")
}
