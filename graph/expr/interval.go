package expr

import "math"

// interval is [lo, hi] with unbounded ends marked: what an expression can
// be over the symbols' ranges.
type interval struct {
	lo, hi     int64
	loOK, hiOK bool // the end is finite and known
}

// bounds of e over b by interval arithmetic: sound, coarse (each atom is
// bounded on its own). A floor division or modulo by a positive constant
// keeps what the proof by shifting (NonNeg) cannot see: samples//5 - 2 is
// not negative from samples >= 10 on.
func boundsOf(e Expr, b Bounds) interval {
	e = foldRemainders(e)
	sum := interval{loOK: true, hiOK: true}
	for _, t := range e.terms() {
		term := interval{lo: t.coef, hi: t.coef, loOK: true, hiOK: true}
		for _, a := range t.mono {
			term = mulInterval(term, atomBounds(a, b))
		}
		sum = addInterval(sum, term)
	}
	return sum
}

// foldRemainders rewrites each m*x - m*c*(x//c) in e as m*(x % c), for a
// constant c > 0: a remainder written out by hand (ONNX exports write n % 8
// as n - 8*(n//8)), whose range [0, c-1] interval arithmetic cannot see
// from its two terms apart. A rewrite is kept only when it drops terms.
func foldRemainders(e Expr) Expr {
	for _, t := range e.terms() {
		if len(t.mono) != 1 || t.mono[0].kind != atomFloorDiv {
			continue
		}
		c, ok := t.mono[0].args[1].IsConst()
		if !ok || c <= 0 || t.coef%c != 0 {
			continue
		}
		m := -t.coef / c
		x := t.mono[0].args[0]
		if !holdsScaled(e, x, m) {
			continue
		}
		// e = rest + m*(x - c*(x//c)), with x//c as FloorDiv keeps it.
		q := Expr{fromTerms([]term{{coef: 1, mono: t.mono, key: t.key}}, false).p}
		rest := Sub(e, Scale(Sub(x, Scale(q, c)), m))
		r, _ := Mod(x, Const(c))
		folded := Add(rest, Scale(r, m))
		if len(folded.terms()) < len(e.terms()) && !folded.Overflowed() {
			return foldRemainders(folded)
		}
	}
	return e
}

// holdsScaled reports whether folding m*x - m*c*(x//c) out of e could
// drop terms: the fold takes away the quotient's term and adds the
// remainder's, takes away each term of e that m*x matches exactly
// (constants included) and adds one for each term of m*x that e lacks: a
// count made without building an expression, as boundsOf is hot.
func holdsScaled(e, x Expr, m int64) bool {
	gained := 0
	for _, tx := range x.terms() {
		found, exact := false, false
		for _, te := range e.terms() {
			if te.key == tx.key {
				found, exact = true, te.coef == tx.coef*m
				break
			}
		}
		switch {
		case exact:
			gained--
		case !found:
			gained++
		}
	}
	return gained < 0
}

func atomBounds(a *atom, b Bounds) interval {
	switch a.kind {
	case atomSym:
		r, ok := b[a.name]
		if !ok {
			return interval{lo: 0, loOK: true}
		}
		iv := interval{lo: r.Min, loOK: true}
		if r.Max >= r.Min {
			iv.hi, iv.hiOK = r.Max, true
		}
		return iv
	case atomFloorDiv, atomMod:
		c, ok := a.args[1].IsConst()
		if !ok || c <= 0 {
			return interval{}
		}
		if a.kind == atomMod {
			return interval{lo: 0, hi: c - 1, loOK: true, hiOK: true}
		}
		x := boundsOf(a.args[0], b)
		iv := interval{}
		if x.loOK {
			iv.lo, iv.loOK = floorDivInt(x.lo, c), true
		}
		if x.hiOK {
			iv.hi, iv.hiOK = floorDivInt(x.hi, c), true
		}
		return iv
	case atomMax, atomMin:
		var iv interval
		for i, arg := range a.args {
			x := boundsOf(arg, b)
			if i == 0 {
				iv = x
				continue
			}
			if a.kind == atomMax {
				// max's low end is the largest low end; its high end the
				// largest high end (unknown if any is).
				if x.loOK && (!iv.loOK || x.lo > iv.lo) {
					iv.lo, iv.loOK = x.lo, true
				}
				iv.hiOK = iv.hiOK && x.hiOK
				iv.hi = max(iv.hi, x.hi)
			} else {
				if x.hiOK && (!iv.hiOK || x.hi < iv.hi) {
					iv.hi, iv.hiOK = x.hi, true
				}
				iv.loOK = iv.loOK && x.loOK
				iv.lo = min(iv.lo, x.lo)
			}
		}
		return iv
	}
	return interval{}
}

func addInterval(a, b interval) interval {
	out := interval{}
	if a.loOK && b.loOK {
		out.lo, out.loOK = satAdd(a.lo, b.lo)
	}
	if a.hiOK && b.hiOK {
		out.hi, out.hiOK = satAdd(a.hi, b.hi)
	}
	return out
}

// mulInterval multiplies by the four corners; an unknown end makes the
// product's ends unknown unless the other factor is a non-negative
// constant times it.
func mulInterval(a, b interval) interval {
	if !(a.loOK && a.hiOK && b.loOK && b.hiOK) {
		// With both factors non-negative the low end is still the product
		// of the low ends.
		if a.loOK && b.loOK && a.lo >= 0 && b.lo >= 0 {
			lo, ok := satMul(a.lo, b.lo)
			out := interval{lo: lo, loOK: ok}
			if a.hiOK && b.hiOK {
				out.hi, out.hiOK = satMul(a.hi, b.hi)
			}
			return out
		}
		// A non-positive constant times a non-negative factor: the high end
		// is the constant times the low end.
		if a.loOK && a.hiOK && a.lo == a.hi && a.lo <= 0 && b.loOK && b.lo >= 0 {
			hi, ok := satMul(a.lo, b.lo)
			out := interval{hi: hi, hiOK: ok}
			if b.hiOK {
				out.lo, out.loOK = satMul(a.lo, b.hi)
			}
			return out
		}
		return interval{}
	}
	out := interval{lo: math.MaxInt64, hi: math.MinInt64, loOK: true, hiOK: true}
	for _, x := range [2]int64{a.lo, a.hi} {
		for _, y := range [2]int64{b.lo, b.hi} {
			p, ok := satMul(x, y)
			if !ok {
				return interval{}
			}
			out.lo, out.hi = min(out.lo, p), max(out.hi, p)
		}
	}
	return out
}

func satAdd(a, b int64) (int64, bool) {
	s, of := addInt(a, b)
	return s, !of
}

func satMul(a, b int64) (int64, bool) {
	p, of := mulInt(a, b)
	return p, !of
}

// UpperBound is the largest value e can take over b, as interval
// arithmetic bounds it (sound, possibly above the true maximum); false
// when e is unbounded above.
func UpperBound(e Expr, b Bounds) (int64, bool) {
	iv := boundsOf(e, b)
	return iv.hi, iv.hiOK
}
