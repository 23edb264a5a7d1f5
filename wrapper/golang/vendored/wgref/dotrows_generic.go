//go:build !amd64

package wgref

// dotRows is dotRowsGo where there is no assembly.
func dotRows(a []float32, lda int, x, y []float32) { dotRowsGo(a, lda, x, y) }
