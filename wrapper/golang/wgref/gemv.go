package wgref

// A row times a matrix, for the recurrent kernels' per-step products at
// batch sizes below the GEMM micro-kernel's rows: sgemm runs one row as
// mr, so five sixths of its multiplications would be on padding.

// gemvMaxRows is the largest batch whose step products go row by row
// through gemvRow (reading B once per row) rather than through sgemm.
const gemvMaxRows = 2

// gemvGo is gemvRow in plain Go, the reference the assembly is tested
// against: y[j] = Σ_p x[p]·b[p·ldb+j] for j < len(y), p < len(x).
func gemvGo(x, b []float32, ldb int, y []float32) {
	clear(y)
	n := len(y)
	for p, xp := range x {
		row := b[p*ldb : p*ldb+n]
		for j, v := range row {
			y[j] += xp * v
		}
	}
}
