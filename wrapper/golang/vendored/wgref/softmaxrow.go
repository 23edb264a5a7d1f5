package wgref

import "math"

// softmaxRow writes the softmax (or its log) of one contiguous float32 row
// (dst is not src): e^(x - max) in float32 (0 below expFlushBelow), their
// sum in float64. Three passes: the peak (in vectors), the exponentials
// stored and summed in one go, the scaling (an attention's rows are short:
// the passes and a scalar peak loop, not the arithmetic, were most of the
// time).
func softmaxRow(src, dst []float32, log bool) {
	if len(src) == 0 {
		return
	}
	dst = dst[:len(src)]
	peak := rowMax(src) // NaN if any element is: then the whole row is NaN
	sum := expShiftSum(dst, src, peak)
	if log {
		binaryVS(binarySub, dst, src, peak)
		binaryVS(binarySub, dst, dst, float32(math.Log(sum)))
		return
	}
	binaryVS(binaryMul, dst, dst, float32(1/sum))
}

// expFlushBelow is where softmax's exponentials become 0: e^-87 is just
// above float32's smallest normal number, and the denormals below it
// (an attention mask's -10000 lands there, or clamps to -104: still a
// denormal product) cost the vector unit a microcode assist each, 3.5
// times the row's time, for terms that cannot move a sum that holds 1.
const expFlushBelow = -87

// expFlushed is e^x, or 0 below expFlushBelow.
func expFlushed(x float32) float32 {
	if x < expFlushBelow {
		return 0
	}
	return exp32(x)
}

// expShiftSumGo sets dst[i] = e^(src[i] - shift) (expFlushed) and returns
// their sum in float64: the Go form of expShiftSum, the same exponential
// and the same order of additions (eight lanes over the blocks of 8,
// paired as the assembly pairs them, then the rest one by one).
func expShiftSumGo(dst, src []float32, shift float32) float64 {
	dst = dst[:len(src)]
	var lanes [8]float64
	body := len(src) &^ 7
	for i := 0; i < body; i += 8 {
		for l := range lanes {
			e := expFlushed(src[i+l] - shift)
			dst[i+l] = e
			lanes[l] += float64(e)
		}
	}
	sum := laneSum(&lanes)
	for i := body; i < len(src); i++ {
		e := expFlushed(src[i] - shift)
		dst[i] = e
		sum += float64(e)
	}
	return sum
}

// laneSum adds eight lanes as expShiftSumAVX2 folds its two registers of
// four: lane l with l+4, then the halves, then the pair.
func laneSum(l *[8]float64) float64 {
	a0, a1, a2, a3 := l[0]+l[4], l[1]+l[5], l[2]+l[6], l[3]+l[7]
	return (a0 + a2) + (a1 + a3)
}
