//go:build !amd64

package wgref

func sumSquaresBlocks(row []float32, lanes *[16]float64) { sumSquaresGo(row, lanes) }

func layerNormApply(dst, x, g, b []float32, mean, inv float32) {
	layerNormApplyGo(dst, x, g, b, mean, inv)
}
