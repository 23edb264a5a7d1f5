package wgref

// Global pooling reduces each channel's contiguous plane to one number:
// a row sum (in float64, as the portable loop does) or a row maximum, in
// assembly over whole vectors where the CPU has AVX2.

// rowSum is the sum of x in float64.
func rowSum(x []float32) float64 {
	s, done := rowSumVec(x)
	for _, v := range x[done:] {
		s += float64(v)
	}
	return s
}

// rowMax is the maximum of x (NaN if any element is), -Inf when empty.
func rowMax(x []float32) float32 {
	m, done := rowMaxVec(x)
	for _, v := range x[done:] {
		if v > m || v != v {
			m = v
		}
		if m != m {
			break
		}
	}
	return m
}

// maxLanes folds a vector of partial maxima (NaN wins).
func maxLanes(lanes []float32) float32 {
	m := negInf32
	for _, v := range lanes {
		if v > m || v != v {
			m = v
		}
		if m != m {
			break
		}
	}
	return m
}
