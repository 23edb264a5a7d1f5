package wgref

// dotRows8 computes y[q] = Σ_j a[q·lda+j]·x[j] for q < 8·blocks and
// j < k8, k8 a positive multiple of 8: eight rows at a time, one YMM
// accumulator each.
//
//go:noescape
func dotRows8(k8 int, a *float32, lda int, x, y *float32, blocks int)

// dotRows4x2 computes y1[q] = Σ_j a[q·lda+j]·x1[j] and y2[q] likewise
// with x2 for q < 4·blocks and j < k8, k8 a positive multiple of 8: four
// rows at a time, each read once for both vectors.
//
//go:noescape
func dotRows4x2(k8 int, a *float32, lda int, x1, x2, y1, y2 *float32, blocks int)

// dotRows2 is dotRows for two vectors of one length: y1 = A·x1, y2 = A·x2,
// A's rows read once for both (two batch entries of a recurrent step).
func dotRows2(a []float32, lda int, x1, x2, y1, y2 []float32) {
	k, n := len(x1), len(y1)
	k8, blocks := k/8*8, n/4
	if !haveAVX2FMA || k8 == 0 || blocks == 0 {
		dotRowsGo(a, lda, x1, y1)
		dotRowsGo(a, lda, x2, y2)
		return
	}
	_ = a[(blocks*4-1)*lda+k-1] // every row the assembly reads is in a
	_, _ = x2[k-1], y2[n-1]
	dotRows4x2(k8, &a[0], lda, &x1[0], &x2[0], &y1[0], &y2[0], blocks)
	if k8 < k {
		for q := 0; q < blocks*4; q++ {
			row := a[q*lda+k8 : q*lda+k]
			s1, s2 := y1[q], y2[q]
			for j, v := range row {
				s1 += v * x1[k8+j]
				s2 += v * x2[k8+j]
			}
			y1[q], y2[q] = s1, s2
		}
	}
	if done := blocks * 4; done < n {
		dotRowsGo(a[done*lda:], lda, x1, y1[done:])
		dotRowsGo(a[done*lda:], lda, x2, y2[done:])
	}
}

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
