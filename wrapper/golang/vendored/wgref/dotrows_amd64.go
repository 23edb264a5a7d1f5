package wgref

// dotRows8 computes y[q] = Σ_j a[q·lda+j]·x[j] for q < 8·blocks and
// j < k8, k8 a positive multiple of 8: eight rows at a time, one YMM
// accumulator each.
//
//go:noescape
func dotRows8(k8 int, a *float32, lda int, x, y *float32, blocks int)

// dotRows is y[q] = Σ_j a[q·lda+j]·x[j] for q < len(y), j < len(x): AVX2
// and FMA over blocks of eight rows and the columns up to a multiple of
// eight where the CPU has them, the rest in Go.
func dotRows(a []float32, lda int, x, y []float32) {
	k, n := len(x), len(y)
	k8, blocks := k/8*8, n/8
	if !haveAVX2FMA || k8 == 0 || blocks == 0 {
		dotRowsGo(a, lda, x, y)
		return
	}
	_ = a[(blocks*8-1)*lda+k-1] // every row the assembly reads is in a
	dotRows8(k8, &a[0], lda, &x[0], &y[0], blocks)
	if k8 < k {
		tail := x[k8:]
		for q := 0; q < blocks*8; q++ {
			row := a[q*lda+k8 : q*lda+k]
			s := y[q]
			for j, v := range row {
				s += v * tail[j]
			}
			y[q] = s
		}
	}
	if done := blocks * 8; done < n {
		dotRowsGo(a[done*lda:], lda, x, y[done:])
	}
}
