package wgref

// Layer normalization's row passes in assembly (layernormrow_amd64.s)
// where vecAVX2 holds.

//go:noescape
func sumSquaresAVX2(row *float32, n int, lanes *[16]float64)

//go:noescape
func layerNormApplyAVX2(dst, x, scale, shift *float32, n int, mean, inv float32)

// sumSquaresBlocks is sumSquaresGo (len(row) a multiple of 8).
func sumSquaresBlocks(row []float32, lanes *[16]float64) {
	if !vecAVX2 || len(row) == 0 {
		sumSquaresGo(row, lanes)
		return
	}
	sumSquaresAVX2(&row[0], len(row), lanes)
}

// layerNormApply is layerNormApplyGo; dst may be x.
func layerNormApply(dst, x, g, b []float32, mean, inv float32) {
	n := len(dst)
	if !vecAVX2 || n == 0 {
		layerNormApplyGo(dst, x, g, b, mean, inv)
		return
	}
	x, g = x[:n], g[:n]
	var bp *float32
	if b != nil {
		bp = &b[:n][0]
	}
	layerNormApplyAVX2(&dst[0], &x[0], &g[0], bp, n, mean, inv)
}
