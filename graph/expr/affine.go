package expr

import "sort"

// Affine reports e as c0 + sum(coef[i] * syms[i]) when e is affine in the
// named symbols (degree at most one, no opaque atoms).
func Affine(e Expr, syms []string) (coefs []int64, c0 int64, ok bool) {
	if e.Overflowed() {
		return nil, 0, false
	}
	coefs = make([]int64, len(syms))
	for _, t := range e.terms() {
		switch len(t.mono) {
		case 0:
			c0 = t.coef
		case 1:
			a := t.mono[0]
			if a.kind != atomSym {
				return nil, 0, false
			}
			found := false
			for i, s := range syms {
				if s == a.name {
					coefs[i], found = t.coef, true
				}
			}
			if !found {
				return nil, 0, false
			}
		default:
			return nil, 0, false
		}
	}
	return coefs, c0, true
}

// MultipleOf reports whether every coefficient of e is a multiple of n, so
// e is a multiple of n for every symbol value.
func MultipleOf(e Expr, n int64) bool {
	for _, t := range e.terms() {
		if t.coef%n != 0 {
			return false
		}
	}
	return !e.Overflowed()
}

// Linear returns c0 + sum(coefs[i] * syms[i]), the inverse of Affine: built
// directly in canonical form, without the general sum's merging.
func Linear(c0 int64, coefs []int64, syms []string) Expr {
	ts := make([]term, 0, len(coefs)+1)
	for i, c := range coefs {
		if c != 0 {
			a := &atom{kind: atomSym, name: syms[i], key: syms[i]}
			ts = append(ts, term{coef: c, mono: []*atom{a}, key: a.key})
		}
	}
	if len(ts) == 0 {
		return Const(c0)
	}
	if c0 != 0 {
		ts = append(ts, term{coef: c0})
	}
	if !sort.SliceIsSorted(ts, func(i, j int) bool { return termLess(ts[i], ts[j]) }) {
		sort.Slice(ts, func(i, j int) bool { return termLess(ts[i], ts[j]) })
	}
	return Expr{newPoly(ts, false)}
}
