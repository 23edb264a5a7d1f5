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
