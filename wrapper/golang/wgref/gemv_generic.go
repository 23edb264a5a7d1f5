//go:build !amd64

package wgref

// gemvRow is gemvGo where there is no assembly.
func gemvRow(x, b []float32, ldb int, y []float32) { gemvGo(x, b, ldb, y) }
