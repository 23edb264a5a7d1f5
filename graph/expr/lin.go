package expr

// Fast affine arithmetic: planners prove and evaluate millions of affine
// offsets, where the general canonical form costs too much. The overflow
// rules are the ones every Expr follows (addInt, mulInt): any overflow makes
// a proof fail or an evaluation fall back to Eval, which reports it.

// Lin is an affine form c[0] + sum(c[i+1] * syms[i]) over a fixed list of
// symbols.
type Lin []int64

// AffineLin is Affine as a Lin.
func AffineLin(e Expr, syms []string) (Lin, bool) {
	coefs, c0, ok := Affine(e, syms)
	if !ok {
		return nil, false
	}
	return append(Lin{c0}, coefs...), true
}

// AddLin is a + b, or false on overflow.
func AddLin(a, b Lin) (Lin, bool) {
	out := make(Lin, len(a))
	for i := range a {
		s, over := addInt(a[i], b[i])
		if over {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// LinLeq proves a <= b for every value of each symbol i at least mins[i]
// (mins >= 0). Any overflow makes the proof fail, which is always safe.
func LinLeq(a, b Lin, mins []int64) bool {
	d := make(Lin, len(a))
	for i := range a {
		neg, over := mulInt(a[i], -1)
		if over {
			return false
		}
		if d[i], over = addInt(b[i], neg); over {
			return false
		}
	}
	v := d[0]
	for i := 1; i < len(d); i++ {
		if d[i] < 0 {
			return false
		}
		p, over := mulInt(d[i], mins[i-1])
		if over {
			return false
		}
		if v, over = addInt(v, p); over {
			return false
		}
	}
	return v >= 0
}

// AffineEval evaluates an expression affine in a list of symbols with a few
// multiplications; any other expression, or any overflow, goes to Eval
// (which reports it).
type AffineEval struct {
	e     Expr
	coefs []int64
	c0    int64
	ok    bool
}

// NewAffineEval prepares e for evaluation over syms.
func NewAffineEval(e Expr, syms []string) AffineEval {
	coefs, c0, ok := Affine(e, syms)
	return AffineEval{e, coefs, c0, ok}
}

// Eval is e's value with syms[i] = vals[i]; env holds the same values, for
// the fallback.
func (a AffineEval) Eval(vals []int64, env Env) (int64, error) {
	if !a.ok {
		return a.e.Eval(env)
	}
	sum := a.c0
	for i, c := range a.coefs {
		if c == 0 {
			continue
		}
		p, over := mulInt(c, vals[i])
		if over {
			return a.e.Eval(env)
		}
		if sum, over = addInt(sum, p); over {
			return a.e.Eval(env)
		}
	}
	return sum, nil
}
