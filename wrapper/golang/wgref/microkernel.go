package wgref

// The register block of the float32 GEMM: mr rows of A by nr columns of B.
const (
	mr = 6
	nr = 16
)

// microKernelGo is the portable micro-kernel: C[0:mr][0:nr] (+)= A·B where
// a holds kc steps of mr floats (a packed row panel) and b kc steps of nr
// floats, ldb apart (a packed column panel, or B in place); c is row-major
// with ldc between rows. It is the reference the assembly is tested
// against.
func microKernelGo(kc int, a, b []float32, ldb int, c []float32, ldc int, accumulate bool) {
	var acc [mr][nr]float32
	for p := 0; p < kc; p++ {
		ap, bp := a[p*mr:p*mr+mr], b[p*ldb:p*ldb+nr]
		for i := 0; i < mr; i++ {
			ai := ap[i]
			row := &acc[i]
			for j := 0; j < nr; j++ {
				row[j] += ai * bp[j]
			}
		}
	}
	for i := 0; i < mr; i++ {
		ci := c[i*ldc : i*ldc+nr]
		if accumulate {
			for j := range ci {
				ci[j] += acc[i][j]
			}
		} else {
			copy(ci, acc[i][:])
		}
	}
}
