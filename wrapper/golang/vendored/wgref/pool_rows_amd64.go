package wgref

//go:noescape
func sumRowAVX2(x *float32, n int, lanes *[4]float64)

//go:noescape
func maxRowAVX2(x *float32, n int, lanes *[8]float32)

// rowSumVec sums x's whole blocks of 16 in assembly: their sum and how
// many elements that covers.
func rowSumVec(x []float32) (float64, int) {
	v := len(x) &^ 15
	if !haveAVX2FMA || v == 0 {
		return 0, 0
	}
	var lanes [4]float64
	sumRowAVX2(&x[0], v, &lanes)
	return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]), v
}

// rowMaxVec is the maximum of x's whole blocks of 32 in assembly and how
// many elements that covers (-Inf and 0 when none).
func rowMaxVec(x []float32) (float32, int) {
	v := len(x) &^ 31
	if !haveAVX2FMA || v == 0 {
		return negInf32, 0
	}
	var lanes [8]float32
	maxRowAVX2(&x[0], v, &lanes)
	return maxLanes(lanes[:]), v
}
