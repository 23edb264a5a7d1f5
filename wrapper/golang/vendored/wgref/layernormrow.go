package wgref

import "math"

// layerNormRow normalizes one contiguous float32 row, then scales and
// shifts it: the statistics in float64 (a float32 E[x²]-E[x]² would cancel
// for rows far from zero), the row in one pass of float32 steps, each
// rounded: ((x - mean)·inv)·g + b.
func layerNormRow(row, dst, gs, bv []float32, eps float64) {
	n := len(row)
	sum, sq := sumAndSquares(row)
	mean := sum / float64(n)
	inv := float32(1 / math.Sqrt(math.Max(sq/float64(n)-mean*mean, 0)+eps))
	if bv != nil {
		bv = bv[:n]
	}
	layerNormApply(dst[:n], row, gs[:n], bv, float32(mean), inv)
}

// sumAndSquares is the sum of row and of its squares in float64: eight
// lanes over the blocks of 8 (so that the adds do not wait on one another,
// and as the assembly adds them), folded as laneSum folds them, then the
// rest one by one.
func sumAndSquares(row []float32) (sum, squares float64) {
	var lanes [16]float64
	body := len(row) &^ 7
	sumSquaresBlocks(row[:body], &lanes)
	sum, squares = laneSum((*[8]float64)(lanes[:8])), laneSum((*[8]float64)(lanes[8:]))
	for _, v := range row[body:] {
		f := float64(v)
		sum += f
		squares += float64(f * f)
	}
	return sum, squares
}

// sumSquaresGo sets lanes[l] to the sum of row's elements i with i%8 == l
// and lanes[8+l] to the sum of their squares (len(row) a multiple of 8):
// the Go form of sumSquaresAVX2.
func sumSquaresGo(row []float32, lanes *[16]float64) {
	for i := 0; i+8 <= len(row); i += 8 {
		for l := 0; l < 8; l++ {
			f := float64(row[i+l])
			lanes[l] += f
			lanes[8+l] += float64(f * f)
		}
	}
}

// layerNormApplyGo sets dst[i] = ((x[i] - mean)·inv)·g[i] + b[i] (without
// the add when b is nil), each step rounded to float32: the Go form of
// layerNormApplyAVX2.
func layerNormApplyGo(dst, x, g, b []float32, mean, inv float32) {
	x, g = x[:len(dst)], g[:len(dst)]
	for i, v := range x {
		t := float32(float32(v-mean) * inv)
		t = float32(t * g[i])
		if b != nil {
			t = float32(t + b[i])
		}
		dst[i] = t
	}
}
