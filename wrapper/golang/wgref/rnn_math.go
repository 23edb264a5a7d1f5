package wgref

import "math"

// Float32 exp, sigmoid and tanh for the recurrent gates: a few ulp from
// the correctly rounded values (rnn_math_test checks them against package
// math), several times faster than going through float64 math.Exp.

const (
	log2eF32 = 1.44269504088896341
	// ln 2 split so that k·ln2Hi is exact for the k expF32 meets.
	ln2HiF32 = 0.693145751953125
	ln2LoF32 = 1.42860682030941723212e-6
	// Beyond these exp overflows float32, or falls below its smallest
	// normal number (flushed to 0: no gate needs subnormal values).
	expMaxF32 = 88.72283935546875
	expMinF32 = -87.33654022216797
)

// expm1Reduced is e^r - 1 for |r| <= ln2/2: its Taylor series to r^7,
// whose remainder is below float32's rounding there.
func expm1Reduced(r float32) float32 {
	p := float32(1.0 / 5040)
	p = p*r + 1.0/720
	p = p*r + 1.0/120
	p = p*r + 1.0/24
	p = p*r + 1.0/6
	p = p*r + 0.5
	return r + r*r*p
}

// expF32 is e^x in float32: x = k·ln2 + r with |r| <= ln2/2, then
// 2^k·(1 + expm1Reduced(r)).
func expF32(x float32) float32 {
	switch {
	case x != x:
		return x
	case x > expMaxF32:
		return float32(math.Inf(1))
	case x < expMinF32:
		return 0
	}
	kf := x * log2eF32
	if kf < 0 {
		kf -= 0.5
	} else {
		kf += 0.5
	}
	k := int32(kf) // rounded to nearest (halves away from 0)
	fk := float32(k)
	r := x - fk*ln2HiF32 - fk*ln2LoF32
	y := 1 + expm1Reduced(r)
	if k > 127 { // 2^k itself would overflow; the product does not
		return y * 2 * math.Float32frombits(uint32(k-1+127)<<23)
	}
	return y * math.Float32frombits(uint32(k+127)<<23)
}

// expm1F32 is e^x - 1 in float32, accurate near 0 where expF32(x) - 1
// would cancel.
func expm1F32(x float32) float32 {
	if x > -0.34657359 && x < 0.34657359 {
		return expm1Reduced(x)
	}
	return expF32(x) - 1
}

// sigmoidF32 is 1/(1 + e^-x); 0 and 1 at the ends (e^-x overflowing to
// +Inf gives 0).
func sigmoidF32(x float32) float32 { return 1 / (1 + expF32(-x)) }

// tanhF32 is tanh x = -expm1(-2|x|) / (2 + expm1(-2|x|)) with x's sign,
// exact to a few ulp near 0 too; ±1 beyond |x| = 9, where float32 cannot
// tell tanh from 1.
func tanhF32(x float32) float32 {
	a := x
	if a < 0 {
		a = -a
	}
	if a > 9 {
		if x < 0 {
			return -1
		}
		return 1
	}
	e := expm1F32(-2 * a)
	t := -e / (2 + e)
	if x < 0 {
		return -t
	}
	return t
}
