package wgref

// SiLU and Sigmoid as a fused kernel's activation: x / (1 + e^-x) and
// 1 / (1 + e^-x) in one pass, sixteen floats a vector where the CPU has
// AVX-512 (EfficientNet runs SiLU over every expanded activation; the
// separate Sigmoid and Mul took three times ONNX Runtime's time).

// expActRow sets row[i] to SiLU(row[i]), or with sigmoid to
// Sigmoid(row[i]), in place.
func expActRow(row []float32, sigmoid bool) {
	n := len(row)
	if !expActVector || n == 0 {
		expActGo(row, sigmoid)
		return
	}
	body := n &^ 15
	if body > 0 {
		expActAVX512(&row[0], &row[0], body, sigmoid)
	}
	if body < n {
		// The rest through a vector on the stack, so that every element
		// takes the same instructions.
		var buf [16]float32
		copy(buf[:], row[body:])
		expActAVX512(&buf[0], &buf[0], 16, sigmoid)
		copy(row[body:], buf[:n-body])
	}
}

// expActGo is expActRow in Go: the separate kernels' float32 sigmoid
// (times x for SiLU).
func expActGo(row []float32, sigmoid bool) {
	for i, x := range row {
		s := sigmoid32(x)
		if !sigmoid {
			s *= x
		}
		row[i] = s
	}
}
