package expr

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
