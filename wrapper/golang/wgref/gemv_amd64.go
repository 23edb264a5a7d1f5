package wgref

// gemv64 computes y[0:64·blocks] = Σ_p x[p]·b[p·ldb : p·ldb+64·blocks]
// over k ≥ 1 steps, 64 columns (eight YMM accumulators) at a time.
//
//go:noescape
func gemv64(k int, x, b *float32, ldb int, y *float32, blocks int)

// gemv8 is gemv64 over blocks of 8 columns (one accumulator).
//
//go:noescape
func gemv8(k int, x, b *float32, ldb int, y *float32, blocks int)

// gemvRow is y[j] = Σ_p x[p]·b[p·ldb+j] for j < len(y), p < len(x): AVX2
// and FMA over blocks of 64 and then 8 columns where the CPU has them,
// the last columns in Go.
func gemvRow(x, b []float32, ldb int, y []float32) {
	k, n := len(x), len(y)
	if !haveAVX2FMA || k == 0 || n == 0 {
		gemvGo(x, b, ldb, y)
		return
	}
	_ = b[(k-1)*ldb+n-1] // every row of B the assembly reads is in b
	done := 0
	if blocks := n / 64; blocks > 0 {
		gemv64(k, &x[0], &b[0], ldb, &y[0], blocks)
		done = blocks * 64
	}
	if blocks := (n - done) / 8; blocks > 0 {
		gemv8(k, &x[0], &b[done], ldb, &y[done], blocks)
		done += blocks * 8
	}
	if done < n {
		gemvGo(x, b[done:], ldb, y[done:])
	}
}
