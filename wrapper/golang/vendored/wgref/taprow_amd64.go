package wgref

// The AVX2 tap row: eight outputs per vector, four vectors per pass.
const tapRowLanes = 8

var tapRowVector = haveAVX2FMA

// tapRowWide is whether weighted tap rows take the AVX-512 kernel:
// sixteen outputs per vector and a masked last vector, so no tail is left
// to the portable loop (tests switch it off to test the AVX2 path).
var tapRowWide = haveAVX512

//go:noescape
func tapRowAVX2(dst *float32, n int, src *float32, offs *int, wts *float32, ntaps int, stride int, init float32, op int)

//go:noescape
func tapRowSumAVX512(dst *float32, n int, src *float32, offs *int, wts *float32, ntaps int, stride int, init float32, masks uint64)

// tapRowAsm runs tapRowAVX2 over dst, whose length is a multiple of
// tapRowLanes and whose every load tapRow has checked to lie in src.
func tapRowAsm(dst, src []float32, offs []int, wts []float32, stride int, init float32, op tapOp) {
	w := &negInf32 // tapMax reads no weights
	if op == tapSum {
		_ = wts[len(offs)-1]
		w = &wts[0]
	}
	tapRowAVX2(&dst[0], len(dst), &src[0], &offs[0], w, len(offs), stride, init, int(op))
}

// tapRowSumWide runs tapRowSumAVX512 over all of dst (not empty), stride
// 1 or 2, whose taps tapRow has checked to lie in src, hi the largest
// offset. Whole vectors of stride 2 read the odd float after their last
// even one, so when that lies past src the last vector goes masked too.
func tapRowSumWide(dst, src []float32, offs []int, wts []float32, stride int, init float32, hi int) {
	n := len(dst)
	full, rem := n/16, n%16
	if stride == 2 && rem == 0 && hi+2*n > len(src) {
		full, rem = full-1, 16
	}
	var masks uint64
	if rem > 0 {
		store := uint64(1)<<rem - 1
		load := store // stride 1: the loads are the outputs' lanes
		if stride == 2 {
			load = uint64(1)<<(2*rem-1) - 1 // floats 0 to 2(rem-1) of 32
		}
		masks = store | load<<16
	}
	_ = wts[len(offs)-1]
	tapRowSumAVX512(&dst[0], full*16, &src[0], &offs[0], &wts[0], len(offs), stride, init, masks)
}
