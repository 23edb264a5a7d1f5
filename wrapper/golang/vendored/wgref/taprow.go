package wgref

import "math"

// A tap row is the inner loop that depthwise convolution and pooling
// share: each output of a row combines the same few input positions
// ("taps") shifted by the output's index times the stride,
//
//	dst[i] = init + Σ_t wts[t]·src[offs[t] + i*stride]   (tapSum)
//	dst[i] = max(init, max_t src[offs[t] + i*stride])   (tapMax, NaN wins)
//
// over the interior of a row, where every tap lies inside the input, so the
// loop needs no bounds checks and vectorizes: with stride 1 the loads are
// contiguous, with stride 2 the assembly loads two vectors and keeps the
// even elements (no gather).

type tapOp int

const (
	tapSum tapOp = iota
	tapMax
)

// maxWindowTaps bounds the taps of one row (the kernel's window, times a
// group's input channels): a depthwise, grouped or pooling kernel of more
// taps takes the generic path. Grouped convolutions of 16 channels per
// group (144 taps for 3x3) still run faster as tap rows than as a GEMM,
// those of 32 not (BenchmarkConvGrouped).
const maxWindowTaps = 160

// tapRow computes dst as above. Every offs[t] + (len(dst)-1)*stride must
// lie in src (the caller's interior); the assembly runs over whole vectors
// that stay inside src and the portable loop does the rest.
func tapRow(dst, src []float32, offs []int, wts []float32, stride int, init float32, op tapOp) {
	n := len(dst)
	if n == 0 {
		return
	}
	hi := 0
	for _, o := range offs {
		if o < 0 {
			panic("tapRow: negative offset")
		}
		hi = max(hi, o)
	}
	if last := hi + (n-1)*stride; last >= len(src) {
		panic("tapRow: taps outside the source")
	}
	if tapRowWide && op == tapSum && (stride == 1 || stride == 2) && len(offs) > 0 {
		tapRowSumWide(dst, src, offs, wts, stride, init, hi)
		return
	}
	done := 0
	if tapRowVector && (stride == 1 || stride == 2) && len(offs) > 0 {
		v := n &^ (tapRowLanes - 1)
		// The stride-2 loads also read the odd element after each vector's
		// last even one.
		for stride == 2 && v > 0 && hi+2*v > len(src) {
			v -= tapRowLanes
		}
		if v > 0 {
			tapRowAsm(dst[:v], src, offs, wts, stride, init, op)
			done = v
		}
		// A tail shorter than a vector: the last whole vector again,
		// overlapping outputs already written (with the same values).
		if t := n - tapRowLanes; done < n && v > 0 && hi+t*stride+stride*tapRowLanes <= len(src) {
			var shifted [maxWindowTaps]int
			for i, o := range offs {
				shifted[i] = o + t*stride
			}
			tapRowAsm(dst[t:], src, shifted[:len(offs)], wts, stride, init, op)
			done = n
		}
	}
	tapRowGo(dst[done:], src[done*stride:], offs, wts, stride, init, op)
}

// tapRowGo is the portable tap row, and the definition the assembly is
// tested against.
func tapRowGo(dst, src []float32, offs []int, wts []float32, stride int, init float32, op tapOp) {
	switch op {
	case tapSum:
		wts = wts[:len(offs)]
		for i := range dst {
			s, at := init, i*stride
			for t, o := range offs {
				s += wts[t] * src[o+at]
			}
			dst[i] = s
		}
	case tapMax:
		for i := range dst {
			m, at := init, i*stride
			for _, o := range offs {
				if v := src[o+at]; v > m || v != v {
					m = v
				}
				if m != m {
					break
				}
			}
			dst[i] = m
		}
	}
}

var negInf32 = float32(math.Inf(-1))
