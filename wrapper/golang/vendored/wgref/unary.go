package wgref

import (
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Elementwise kernels of one input.

func init() {
	floats := map[string]func(float64) float64{
		"Sigmoid": func(x float64) float64 {
			if x >= 0 {
				return 1 / (1 + math.Exp(-x))
			}
			e := math.Exp(x)
			return e / (1 + e)
		},
		"Tanh": math.Tanh, "Exp": math.Exp, "Log": math.Log, "Sqrt": math.Sqrt,
		"Reciprocal": func(x float64) float64 { return 1 / x },
		"Floor":      math.Floor, "Ceil": math.Ceil, "Round": math.RoundToEven, "Erf": erf,
		"Sin": math.Sin, "Cos": math.Cos, "Tan": math.Tan, "Asin": math.Asin, "Acos": math.Acos, "Atan": math.Atan,
		"Sinh": math.Sinh, "Cosh": math.Cosh, "Asinh": math.Asinh, "Acosh": math.Acosh, "Atanh": math.Atanh,
		"Softplus": softplus,
		"Softsign": func(x float64) float64 { return x / (1 + math.Abs(x)) },
		"HardSwish": func(x float64) float64 {
			return x * math.Max(0, math.Min(1, x/6+0.5))
		},
		"Mish": func(x float64) float64 { return x * math.Tanh(softplus(x)) },
	}
	// The functions float32 tensors compute in float32 over rows.
	rows := map[string]unaryKind{"Sigmoid": unarySigmoid, "Tanh": unaryTanh, "Exp": unaryExp, "Sqrt": unarySqrt,
		"Erf": unaryErf, "HardSwish": unaryHardSwish}
	for name, f := range floats {
		op := unaryOp{f: f, vec: unaryF32{kind: rows[name]}}
		register(name, func(c *wgrt.Call) error { return mapUnary(c, op) })
	}
	register("Abs", func(c *wgrt.Call) error {
		return mapUnary(c, unaryOp{f: math.Abs, i: func(x int64) int64 {
			if x < 0 {
				return -x
			}
			return x
		}, u: func(x uint64) uint64 { return x }, vec: unaryF32{kind: unaryAbs}})
	})
	register("Neg", func(c *wgrt.Call) error {
		return mapUnary(c, unaryOp{f: func(x float64) float64 { return -x }, i: func(x int64) int64 { return -x }, vec: unaryF32{kind: unaryNeg}})
	})
	register("Relu", func(c *wgrt.Call) error {
		return mapUnary(c, unaryOp{vec: unaryF32{kind: unaryRelu}, f: func(x float64) float64 {
			if x <= 0 {
				return 0
			}
			return x // a NaN stays, as PyTorch's relu
		}, i: func(x int64) int64 { return max(x, 0) }, u: func(x uint64) uint64 { return x }})
	})
	register("Sign", func(c *wgrt.Call) error {
		return mapUnary(c, unaryOp{f: func(x float64) float64 {
			switch {
			case x > 0:
				return 1
			case x < 0:
				return -1
			}
			return x // 0, -0 or NaN
		}, i: func(x int64) int64 {
			switch {
			case x > 0:
				return 1
			case x < 0:
				return -1
			}
			return 0
		}, u: func(x uint64) uint64 { return min(x, 1) }})
	})
	register("Not", func(c *wgrt.Call) error {
		return mapUnary(c, unaryOp{i: func(x int64) int64 { return 1 - x }})
	})
	register("BitwiseNot", func(c *wgrt.Call) error {
		return mapUnary(c, unaryOp{i: func(x int64) int64 { return ^x }, u: func(x uint64) uint64 { return ^x }})
	})
	// Functions of float attributes, read into params in the order names
	// gives: a function value and its parameters, so a call allocates no
	// closure.
	withAttrs := map[string]struct {
		names []string
		vec   unaryKind // float32 over rows, with the parameters as a and b
		f     func(x float64, p params) float64
	}{
		"HardSigmoid": {[]string{"alpha", "beta"}, unaryHardSigmoid, func(x float64, p params) float64 { return math.Max(0, math.Min(1, p[0]*x+p[1])) }},
		"LeakyRelu": {[]string{"alpha"}, unaryLeakyRelu, func(x float64, p params) float64 {
			if x < 0 {
				return p[0] * x
			}
			return x
		}},
		"Elu": {[]string{"alpha"}, unaryNone, func(x float64, p params) float64 {
			if x < 0 {
				return p[0] * (math.Exp(x) - 1)
			}
			return x
		}},
		"Celu": {[]string{"alpha"}, unaryNone, func(x float64, p params) float64 {
			return math.Max(0, x) + math.Min(0, p[0]*(math.Exp(x/p[0])-1))
		}},
		"ThresholdedRelu": {[]string{"alpha"}, unaryNone, func(x float64, p params) float64 {
			if x <= p[0] {
				return 0
			}
			return x // a NaN stays, as PyTorch's threshold
		}},
		"Selu": {[]string{"alpha", "gamma"}, unaryNone, func(x float64, p params) float64 {
			if x > 0 {
				return p[1] * x
			}
			return p[1] * p[0] * (math.Exp(x) - 1)
		}},
		"Shrink": {[]string{"bias", "lambd"}, unaryNone, func(x float64, p params) float64 {
			switch {
			case x < -p[1]:
				return x + p[0]
			case x > p[1]:
				return x - p[0]
			}
			return x * 0 // 0, or NaN for a NaN (as PyTorch's softshrink)
		}},
	}
	for name, fa := range withAttrs {
		register(name, func(c *wgrt.Call) error {
			a := attrsOf(c)
			op := unaryOp{fp: fa.f, intsViaFloat: true}
			for i, n := range fa.names {
				op.p[i] = a.Float(n)
			}
			op.vec = unaryF32{kind: fa.vec, a: float32(op.p[0]), b: float32(op.p[1])}
			if a.err != nil {
				return a.err
			}
			// Shrink is defined on integers too: computed exactly in float64
			// for the integer widths the tests use.
			return mapUnary(c, op)
		})
	}
	register("Gelu", func(c *wgrt.Call) error {
		a := attrsOf(c)
		approx := a.StringOr("approximate", "none")
		if a.err != nil {
			return a.err
		}
		if approx == "tanh" {
			return mapUnary(c, unaryOp{f: geluTanh, vec: unaryF32{kind: unaryGeluTanh}})
		}
		return mapUnary(c, unaryOp{f: geluErf, vec: unaryF32{kind: unaryGeluErf}})
	})
	register("IsNaN", func(c *wgrt.Call) error { return predicate(c, math.IsNaN) })
	register("IsInf", func(c *wgrt.Call) error {
		a := attrsOf(c)
		neg, pos := a.IntOr("detect_negative", 1) != 0, a.IntOr("detect_positive", 1) != 0
		if a.err != nil {
			return a.err
		}
		return predicate(c, func(x float64) bool { return (pos && math.IsInf(x, 1)) || (neg && math.IsInf(x, -1)) })
	})
	register("Clip", clip)
}

func geluTanh(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
}

func geluErf(x float64) float64 { return 0.5 * x * (1 + erf(x/math.Sqrt2)) }

func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

// predicate writes a bool output of a float input.
func predicate(c *wgrt.Call, f func(float64) bool) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	if familyOf(x.DType) != famFloat {
		return unsupported(c, x.DType)
	}
	eachRow(out.Shape, [][]int{out.Strides, x.Strides}, func(off [maxOperands]int, n int, step [maxOperands]int) {
		for k := 0; k < n; k++ {
			v := byte(0)
			if f(loadF(x, off[1]+k*step[1])) {
				v = 1
			}
			out.Data[off[0]+k*step[0]] = v
		}
	})
	return nil
}

// clip bounds every element to [min, max], the attributes the importer
// gives (float64, covering every integer the tests use exactly).
func clip(c *wgrt.Call) error {
	a := attrsOf(c)
	lo, hi := a.FloatOr("min", math.Inf(-1)), a.FloatOr("max", math.Inf(1))
	if a.err != nil {
		return a.err
	}
	next := 1 // bounds computed at run time follow x, min before max
	var err error
	if lo, err = scalarFromInput(c, a, "min", "min_from_input", lo, &next); err != nil {
		return err
	}
	if hi, err = scalarFromInput(c, a, "max", "max_from_input", hi, &next); err != nil {
		return err
	}
	// mapUnary reads x alone.
	x := wgrt.Call{Kernel: c.Kernel, Op: c.Op, Outputs: c.Outputs, Inputs: c.Inputs[:1], Attrs: c.Attrs, Threads: c.Threads}
	return mapUnary(&x, unaryOp{fp: clamp, p: params{lo, hi}, intsViaFloat: true, vec: unaryF32{kind: unaryClip, a: float32(lo), b: float32(hi)}})
}

// clamp is x within [p[0], p[1]] (NaN stays NaN).
func clamp(x float64, p params) float64 {
	if x < p[0] {
		return p[0]
	}
	if x > p[1] {
		return p[1]
	}
	return x
}

// erf is a rational approximation of the error function (Eigen's and
// XLA's, for float32), within a few float32 ulps and several times faster
// than math.Erf; GELU models spend much of their elementwise time in it.
func erf(x float64) float64 {
	if x != x {
		return x
	}
	if x > 4 {
		x = 4
	} else if x < -4 {
		x = -4
	}
	x2 := x * x
	p := -2.72614225801306e-10
	p = p*x2 + 2.77068142495902e-08
	p = p*x2 - 2.10102402082508e-06
	p = p*x2 - 5.69250639462346e-05
	p = p*x2 - 7.34990630326855e-04
	p = p*x2 - 2.95459980854025e-03
	p = p*x2 - 1.60960333262415e-02
	q := -1.45660718464996e-05
	q = q*x2 - 2.13374055278905e-04
	q = q*x2 - 1.68282697438203e-03
	q = q*x2 - 7.37332916720468e-03
	q = q*x2 - 1.42647390514189e-02
	return x * p / q
}
