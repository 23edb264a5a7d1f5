package wgref

// The AVX2 tap row: eight outputs per vector, four vectors per pass.
const tapRowLanes = 8

var tapRowVector = haveAVX2FMA

//go:noescape
func tapRowAVX2(dst *float32, n int, src *float32, offs *int, wts *float32, ntaps int, stride int, init float32, op int)

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
