package wgref

import "math"

// The portable forms of the row kernels (vec.go), and the float32
// functions they compute: exp, sigmoid, tanh and erf as polynomials with
// range reduction (Cephes' single-precision forms), a few float32 ulps
// from the exact values and several times faster than rounding float64's.
// The assembly computes the same polynomials in the same order with fused
// multiply-adds, so the two agree to an ulp or so.

const (
	// exp: x = n·ln2 + r, |r| ≤ ln2/2, with ln2 split so n·ln2Hi is exact.
	expLog2e = 1.44269504088896341
	expLn2Hi = 0.693359375
	expLn2Lo = -2.12194440e-4
	// Beyond expMax exp overflows float32; below expMin it is below half
	// the smallest denormal. Clamping there keeps 2^n in range.
	expMax = 88.8
	expMin = -104
	expP0  = 1.9875691500e-4
	expP1  = 1.3981999507e-3
	expP2  = 8.3334519073e-3
	expP3  = 4.1665795894e-2
	expP4  = 1.6666665459e-1
	expP5  = 5.0000001201e-1
	// tanh below tanhSmall is x + x·x²·P(x²); above, 1 - 2/(e^2|x| + 1).
	tanhSmall = 0.625
	tanhP0    = -5.70498872745e-3
	tanhP1    = 2.06390887954e-2
	tanhP2    = -5.37397155531e-2
	tanhP3    = 1.33314422036e-1
	tanhP4    = -3.33332819422e-1
	// GELU's tanh form: sqrt(2/π) and the cubic's coefficient.
	geluTanhScale = 0.7978845608028654
	geluTanhCubic = 0.044715
	invSqrt2      = 0.7071067811865476
)

// exp32 is e^x in float32.
func exp32(x float32) float32 {
	if x != x {
		return x
	}
	x = min(max(x, expMin), expMax)
	const round = 1 << 23 * 1.5 // adding it rounds |v| < 2^22 to an integer
	n := x*expLog2e + round
	n -= round
	r := x - n*expLn2Hi
	r -= n * expLn2Lo
	p := float32(expP0)
	p = p*r + expP1
	p = p*r + expP2
	p = p*r + expP3
	p = p*r + expP4
	p = p*r + expP5
	y := (p*(r*r) + r) + 1
	// 2^n in two factors, each a normal float32 for n in [-150, 128]: the
	// product rounds once, into a denormal or infinity where it must.
	ni := int32(n)
	n1 := ni >> 1
	return y * pow2(n1) * pow2(ni-n1)
}

// pow2 is 2^k for k a float32 exponent of a normal number.
func pow2(k int32) float32 { return math.Float32frombits(uint32(k+127) << 23) }

// sigmoid32 is 1/(1+e^-x), from e^-|x| so that neither side cancels.
func sigmoid32(x float32) float32 {
	t := exp32(-abs32(x))
	s := 1 / (1 + t)
	if x < 0 {
		return t * s
	}
	return s
}

// tanh32 is tanh(x) in float32.
func tanh32(x float32) float32 {
	ax := abs32(x)
	if ax < tanhSmall {
		z := x * x
		p := float32(tanhP0)
		p = p*z + tanhP1
		p = p*z + tanhP2
		p = p*z + tanhP3
		p = p*z + tanhP4
		return (x*z)*p + x
	}
	y := 1 - 2/(exp32(ax+ax)+1) // NaN stays NaN
	return math.Float32frombits(math.Float32bits(y) | math.Float32bits(x)&(1<<31))
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// erf32 is a rational approximation of the error function (Eigen's and
// XLA's for float32), within a few float32 ulps.
func erf32(x float32) float32 {
	if x != x {
		return x
	}
	x = min(max(x, -4), 4)
	x2 := x * x
	p := float32(erfP0)
	p = p*x2 + erfP1
	p = p*x2 + erfP2
	p = p*x2 + erfP3
	p = p*x2 + erfP4
	p = p*x2 + erfP5
	p = p*x2 + erfP6
	q := float32(erfQ0)
	q = q*x2 + erfQ1
	q = q*x2 + erfQ2
	q = q*x2 + erfQ3
	q = q*x2 + erfQ4
	return x * (p / q) // p/q first: x·p would underflow for tiny x
}

const (
	erfP0 = -2.72614225801306e-10
	erfP1 = 2.77068142495902e-08
	erfP2 = -2.10102402082508e-06
	erfP3 = -5.69250639462346e-05
	erfP4 = -7.34990630326855e-04
	erfP5 = -2.95459980854025e-03
	erfP6 = -1.60960333262415e-02
	erfQ0 = -1.45660718464996e-05
	erfQ1 = -2.13374055278905e-04
	erfQ2 = -1.68282697438203e-03
	erfQ3 = -7.37332916720468e-03
	erfQ4 = -1.42647390514189e-02
)

func geluErf32(x float32) float32 { return (0.5 * x) * (1 + erf32(x*invSqrt2)) }

func geluTanh32(x float32) float32 {
	return (0.5 * x) * (1 + tanh32(geluTanhScale*(x+geluTanhCubic*(x*x*x))))
}

// rowGo is u over a row in Go; dst may be src.
func (u unaryF32) rowGo(dst, src []float32) {
	src = src[:len(dst)]
	a, b := u.a, u.b
	switch u.kind {
	case unaryRelu:
		// A NaN stays (as PyTorch's relu); -0 becomes +0.
		for i, x := range src {
			if x <= 0 {
				x = 0
			}
			dst[i] = x
		}
	case unaryLeakyRelu:
		for i, x := range src {
			if x < 0 {
				x *= a
			}
			dst[i] = x
		}
	case unaryClip:
		for i, x := range src {
			if x < a {
				x = a
			} else if x > b {
				x = b
			}
			dst[i] = x
		}
	case unaryHardSigmoid:
		for i, x := range src {
			dst[i] = max(0, min(1, a*x+b))
		}
	case unaryHardSwish:
		for i, x := range src {
			dst[i] = x * max(0, min(1, x*(1.0/6)+0.5))
		}
	case unaryNeg:
		for i, x := range src {
			dst[i] = -x
		}
	case unaryAbs:
		for i, x := range src {
			dst[i] = abs32(x)
		}
	case unarySqrt:
		for i, x := range src {
			dst[i] = float32(math.Sqrt(float64(x)))
		}
	case unaryExp:
		for i, x := range src {
			dst[i] = exp32(x)
		}
	case unarySigmoid:
		for i, x := range src {
			dst[i] = sigmoid32(x)
		}
	case unaryTanh:
		for i, x := range src {
			dst[i] = tanh32(x)
		}
	case unaryErf:
		for i, x := range src {
			dst[i] = erf32(x)
		}
	case unaryGeluErf:
		for i, x := range src {
			dst[i] = geluErf32(x)
		}
	case unaryGeluTanh:
		for i, x := range src {
			dst[i] = geluTanh32(x)
		}
	default:
		panic("wgref: no row function for unary kind")
	}
}

// binaryVVGo is dst = k(a, b) elementwise in Go; dst may be a or b.
func binaryVVGo(k binaryKind, dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	switch k {
	case binaryAdd:
		for i := range dst {
			dst[i] = a[i] + b[i]
		}
	case binarySub:
		for i := range dst {
			dst[i] = a[i] - b[i]
		}
	case binaryMul:
		for i := range dst {
			dst[i] = a[i] * b[i]
		}
	case binaryDiv:
		for i := range dst {
			dst[i] = a[i] / b[i]
		}
	case binaryMax:
		for i := range dst {
			dst[i] = max(a[i], b[i])
		}
	case binaryMin:
		for i := range dst {
			dst[i] = min(a[i], b[i])
		}
	case binaryPRelu:
		for i := range dst {
			x := a[i]
			if x < 0 {
				x *= b[i]
			}
			dst[i] = x
		}
	case binaryRSub:
		for i := range dst {
			dst[i] = b[i] - a[i]
		}
	case binaryRDiv:
		for i := range dst {
			dst[i] = b[i] / a[i]
		}
	default:
		panic("wgref: no row function for binary kind")
	}
}

// binaryVSGo is dst = k(a, s) elementwise in Go; dst may be a.
func binaryVSGo(k binaryKind, dst, a []float32, s float32) {
	a = a[:len(dst)]
	switch k {
	case binaryAdd:
		for i, x := range a {
			dst[i] = x + s
		}
	case binarySub:
		for i, x := range a {
			dst[i] = x - s
		}
	case binaryMul:
		for i, x := range a {
			dst[i] = x * s
		}
	case binaryDiv:
		for i, x := range a {
			dst[i] = x / s
		}
	case binaryMax:
		for i, x := range a {
			dst[i] = max(x, s)
		}
	case binaryMin:
		for i, x := range a {
			dst[i] = min(x, s)
		}
	case binaryPRelu:
		for i, x := range a {
			if x < 0 {
				x *= s
			}
			dst[i] = x
		}
	case binaryRSub:
		for i, x := range a {
			dst[i] = s - x
		}
	case binaryRDiv:
		for i, x := range a {
			dst[i] = s / x
		}
	default:
		panic("wgref: no row function for binary kind")
	}
}

// scaleShiftRowsGo is scaleShiftRows in Go: the conversion rounds the
// product, so that no FMA fuses it with the sum.
func scaleShiftRowsGo(dst []float32, ldd int, src []float32, lds, cols int, scale, shift []float32) {
	for i, m := range scale {
		s := shift[i]
		d, x := dst[i*ldd:i*ldd+cols], src[i*lds:i*lds+cols]
		for j, v := range x {
			d[j] = float32(v*m) + s
		}
	}
}
