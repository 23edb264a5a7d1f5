package wgref

// The softmax row's exponentials in assembly (vec_amd64.s, beside the EXP they
// share with expAVX2) where vecAVX2 holds.

//go:noescape
func expShiftSumAVX2(dst, src *float32, n int, shift float32) float64

// expShiftSum sets dst[i] = e^(src[i] - shift) and returns their sum in
// float64 (dst may be src). The last n%8 go through a block of 8 on the
// stack, so that every element takes the same instructions, and are added
// one by one, as expShiftSumGo adds them.
func expShiftSum(dst, src []float32, shift float32) float64 {
	n := len(src)
	if !vecAVX2 || n == 0 {
		return expShiftSumGo(dst, src, shift)
	}
	dst = dst[:n]
	body := n &^ 7
	sum := 0.0
	if body > 0 {
		sum = expShiftSumAVX2(&dst[0], &src[0], body, shift)
	}
	if body < n {
		var buf [8]float32
		for i := range buf {
			buf[i] = shift
		}
		copy(buf[:], src[body:])
		expShiftSumAVX2(&buf[0], &buf[0], 8, shift)
		for i, e := range buf[:n-body] {
			dst[body+i] = e
			sum += float64(e)
		}
	}
	return sum
}
