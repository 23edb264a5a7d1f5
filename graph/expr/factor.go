package expr

// VanishesWith reports whether e is 0 whenever s is, as far as the form
// shows: s is a single symbol or function atom and every term of e has it
// as a factor (4*n and n*m vanish with n; 1 + 4*(n-1) does not), or e is s.
func VanishesWith(e, s Expr) bool {
	if Equal(e, s) {
		return true
	}
	a := soleAtom(s)
	if a == nil {
		return false
	}
	for _, t := range e.terms() {
		found := false
		for _, m := range t.mono {
			if m.key == a.key {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Divisors lists the right operands of every // and % in e, nested ones
// included: what must never be 0.
func Divisors(e Expr) []Expr {
	var out []Expr
	var walk func(Expr)
	walk = func(e Expr) {
		for _, t := range e.terms() {
			for _, a := range t.mono {
				if a.kind == atomFloorDiv || a.kind == atomMod {
					out = append(out, a.args[1])
				}
				for _, x := range a.args {
					walk(x)
				}
			}
		}
	}
	walk(e)
	return out
}

// DivideMonomial returns e / d when d is a single term c*a1*…*ak (atoms
// of any kind: symbols, minima, floor divisions) and every term of e has
// a coefficient divisible by c and the atoms a1…ak among its factors, so
// the division is exact for every symbol value: 364*min(150, k) divided by
// min(150, k) is 364.
func DivideMonomial(e, d Expr) (Expr, bool) {
	dt := d.terms()
	if len(dt) != 1 || dt[0].coef == 0 {
		return Expr{}, false
	}
	out := make([]term, 0, len(e.terms()))
	for _, t := range e.terms() {
		if t.coef%dt[0].coef != 0 {
			return Expr{}, false
		}
		rest := append([]*atom(nil), t.mono...)
		for _, a := range dt[0].mono {
			found := -1
			for i, m := range rest {
				if m.key == a.key {
					found = i
					break
				}
			}
			if found < 0 {
				return Expr{}, false
			}
			rest = append(rest[:found], rest[found+1:]...)
		}
		out = append(out, term{coef: t.coef / dt[0].coef, mono: rest, key: monoKey(rest)})
	}
	return fromTerms(out, e.Overflowed()), true
}
