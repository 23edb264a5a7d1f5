//go:build !amd64

package wgref

// dotRows is dotRowsGo where there is no assembly.
func dotRows(a []float32, lda int, x, y []float32) { dotRowsGo(a, lda, x, y) }

// dotRows2 is dotRows for two vectors of one length.
func dotRows2(a []float32, lda int, x1, x2, y1, y2 []float32) {
	dotRowsGo(a, lda, x1, y1)
	dotRowsGo(a, lda, x2, y2)
}
