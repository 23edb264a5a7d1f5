package wgref

// A product of one or two rows of A with a B stored transposed (Gemm's
// transB, a classifier's [classes, features] weight) is as many dot
// products per output as rows of A: packing B into the GEMM's panels
// (a strided gather of every weight) and running a micro-kernel of mr rows
// on one would cost many times the products. dotRows reads B's rows in
// place instead.

// gemvChunk is how many outputs of a row go through the stack buffer at
// once, so that accumulating into C needs no scratch.
const gemvChunk = 256

// useRowDots reports whether C = A·B of m rows takes rowDots: A's rows and
// B's columns (B transposed in memory) contiguous, m at most
// dotRowsMaxBatch.
func useRowDots(m int, a, b matrix) bool {
	return m <= dotRowsMaxBatch && a.cs == 1 && b.rs == 1
}

// rowDots computes C = A·B, or C += A·B when accumulate, for A m×k with
// contiguous rows and B k×n with contiguous columns (element (p, j) at
// b.data[j*b.cs+p]); C is row-major with ldc floats between rows.
func rowDots(m, n, k int, a, b matrix, c []float32, ldc int, accumulate bool) {
	var buf [gemvChunk]float32
	for i := 0; i < m; i++ {
		x := a.data[i*a.rs : i*a.rs+k]
		for j0 := 0; j0 < n; j0 += gemvChunk {
			cnt := min(gemvChunk, n-j0)
			row := c[i*ldc+j0 : i*ldc+j0+cnt]
			if k == 0 {
				if !accumulate {
					clear(row)
				}
				continue
			}
			dotRows(b.data[j0*b.cs:], b.cs, x, buf[:cnt])
			if accumulate {
				binaryVV(binaryAdd, row, row, buf[:cnt])
			} else {
				copy(row, buf[:cnt])
			}
		}
	}
}
