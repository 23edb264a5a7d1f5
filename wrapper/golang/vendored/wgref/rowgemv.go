package wgref

// The few-row product: sgemm runs products of up to gemvMaxRows rows of A
// (a matrix-vector product, the rows of a short sequence) row by row with
// A and B read where they lie, so that they need no packing and no
// scratch; the register-blocked micro-kernel would run such rows padded to
// its mr, most of its multiplications on zeros.

// gemvMaxRows is the most rows of A sgemm runs row by row. At four rows
// the row kernel still does fewer multiplications than the 6- or 12-row
// micro-kernel over padding, and B is read four times, from cache.
const gemvMaxRows = 4

// gemvRows is C (+)= A·B for m ≤ gemvMaxRows rows: by rowsTimesB for a
// B with contiguous rows (every row from one pass over B), by dotRows for a B with contiguous columns (a
// transposed weight), plainly for any other layout.
func gemvRows(m, n, k int, a, b matrix, c []float32, ldc int, accumulate bool) {
	if b.cs == 1 {
		rowsTimesB(m, c, ldc, a.data, a.rs, a.cs, b.data, b.rs, n, k, accumulate)
		return
	}
	for i := 0; i < m; i++ {
		crow := c[i*ldc : i*ldc+n]
		ai := a.data[i*a.rs:]
		switch {
		case b.rs == 1 && a.cs == 1:
			// C's row in pieces of a fixed array: dotRows writes
			// what it computes, and accumulate adds it.
			x := ai[:k]
			var part [64]float32
			for j0 := 0; j0 < n; j0 += len(part) {
				y := part[:min(len(part), n-j0)]
				dotRows(b.data[j0*b.cs:], b.cs, x, y)
				dst := crow[j0 : j0+len(y)]
				if accumulate {
					for j, v := range y {
						dst[j] += v
					}
				} else {
					copy(dst, y)
				}
			}
		default:
			for j := range crow {
				s := float32(0)
				for p := 0; p < k; p++ {
					s += ai[p*a.cs] * b.data[p*b.rs+j*b.cs]
				}
				if accumulate {
					crow[j] += s
				} else {
					crow[j] = s
				}
			}
		}
	}
}

// rowTimesBGo is c[j] (+)= Σ_p a[p·acs]·b[p·ldb+j] for j < len(c),
// p < k: one row of A times B, B's rows contiguous. It is the reference
// the assembly is tested against.
func rowTimesBGo(c, a []float32, acs int, b []float32, ldb, k int, accumulate bool) {
	if !accumulate {
		clear(c)
	}
	for p := 0; p < k; p++ {
		ap := a[p*acs]
		row := b[p*ldb : p*ldb+len(c)]
		for j, v := range row {
			c[j] += ap * v
		}
	}
}
