package expr

// Range bounds a symbol: Min <= value <= Max (Max < 0 means unbounded).
type Range struct{ Min, Max int64 }

// Bounds maps symbol names to their ranges. Symbols not listed range over all
// non-negative integers.
type Bounds map[string]Range

// NonNeg reports whether e >= 0 is proven for every symbol value within b. It
// is sound, not complete: false means "not proven".
//
// The proof substitutes s = min + s' (s' >= 0) for every symbol and accepts a
// polynomial whose coefficients are all non-negative over non-negative atoms.
func NonNeg(e Expr, b Bounds) bool {
	if c, ok := e.IsConst(); ok {
		return c >= 0 && !e.Overflowed()
	}
	if e.Overflowed() {
		return false
	}
	// Symbols are never negative: non-negative terms need no shift (which
	// would expand a product of k symbols into 2^k terms).
	if allTermsNonNeg(e, b) {
		return true
	}
	if iv := boundsOf(e, b); iv.loOK && iv.lo >= 0 {
		return true
	}
	if shiftedTerms(e, b) > maxShiftedTerms {
		return false // not proven: too large to expand
	}
	shifted := shiftToMin(e, b)
	for _, t := range shifted.terms() {
		if t.coef < 0 {
			return false
		}
		for _, a := range t.mono {
			if !a.nonNeg(b) {
				return false
			}
		}
	}
	return !shifted.Overflowed()
}

// maxShiftedTerms bounds the expansion NonNeg tries, so that a proof costs
// time polynomial in the expression's size.
const maxShiftedTerms = 1 << 12

func allTermsNonNeg(e Expr, b Bounds) bool {
	for _, t := range e.terms() {
		if t.coef < 0 {
			return false
		}
		for _, a := range t.mono {
			if !a.nonNeg(b) {
				return false
			}
		}
	}
	return true
}

// shiftedTerms bounds how many terms shiftToMin makes of e: each bare
// symbol with a non-zero min doubles its term's (a power s^k makes k+1).
func shiftedTerms(e Expr, b Bounds) int {
	total := 0
	for _, t := range e.terms() {
		n := 1
		for _, a := range t.mono {
			if a.kind == atomSym && b[a.name].Min != 0 {
				n *= 2
				if n > maxShiftedTerms {
					return n
				}
			}
		}
		if total += n; total > maxShiftedTerms {
			return total
		}
	}
	return total
}

// LessEq reports whether a <= b is proven for every symbol value within bounds.
func LessEq(a, b Expr, bounds Bounds) bool { return NonNeg(Sub(b, a), bounds) }

func (a *atom) nonNeg(b Bounds) bool {
	switch a.kind {
	case atomSym:
		return true // shifted symbols are >= 0
	case atomFloorDiv:
		return NonNeg(a.args[0], b) && positive(a.args[1], b)
	case atomMod:
		return positive(a.args[1], b)
	case atomMax:
		for _, x := range a.args {
			if NonNeg(x, b) {
				return true
			}
		}
		return false
	default:
		for _, x := range a.args {
			if !NonNeg(x, b) {
				return false
			}
		}
		return true
	}
}

func positive(e Expr, b Bounds) bool {
	if c, ok := e.IsConst(); ok {
		return c >= 1 && !e.Overflowed() // most divisors: no difference to build
	}
	return NonNeg(Sub(e, Const(1)), b)
}

// shiftToMin rewrites bare symbols s in the polynomial part of e as
// (min_s + s), so the remaining symbols range over values >= 0. Symbols inside
// opaque atoms are left alone: atoms are judged by nonNeg on their own.
func shiftToMin(e Expr, b Bounds) Expr {
	if len(b) == 0 {
		return e
	}
	var out []Expr
	for _, t := range e.terms() {
		acc := Const(t.coef)
		for _, a := range t.mono {
			f := Expr{fromTerms([]term{{coef: 1, mono: []*atom{a}, key: a.key}}, false).p}
			if a.kind == atomSym {
				if r, ok := b[a.name]; ok && r.Min != 0 {
					f = Add(f, Const(r.Min))
				}
			}
			acc = mul2(acc, f)
		}
		out = append(out, acc)
	}
	return Add(out...)
}
