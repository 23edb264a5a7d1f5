package wgref

// Rows of a matrix dotted with a vector, for the recurrent kernels'
// per-step products at batch sizes below the GEMM micro-kernel's rows:
// sgemm runs one row as mr, so five sixths of its multiplications would be
// on padding, and it needs R transposed; dotRows reads R as it is.

// dotRowsMaxBatch is the largest batch whose step products go row by row
// through dotRows (reading R once per batch entry) rather than through
// sgemm.
const dotRowsMaxBatch = 2

// dotRowsGo is dotRows in plain Go, the reference the assembly is tested
// against: y[q] = Σ_j a[q·lda+j]·x[j] for q < len(y), j < len(x).
func dotRowsGo(a []float32, lda int, x, y []float32) {
	for q := range y {
		row := a[q*lda : q*lda+len(x)]
		s := float32(0)
		for j, v := range row {
			s += v * x[j]
		}
		y[q] = s
	}
}
