package expr

// NonDecreasing reports whether e never decreases as symbol s grows, the
// other symbols fixed within b: a structural proof that holds where the
// shifted difference e(s) - e(s - t) is beyond NonNeg (sums of minima of
// run-time sizes, for one). Sound, not complete: false means "not proven".
func NonDecreasing(e Expr, s string, b Bounds) bool {
	for _, t := range e.terms() {
		if !termUses(t, s) {
			continue
		}
		// A positive coefficient times non-negative factors that each
		// never decrease in s.
		if t.coef < 0 {
			return false
		}
		for _, a := range t.mono {
			if !atomUses(a, s) {
				if iv := atomBounds(a, b); !iv.loOK || iv.lo < 0 {
					return false
				}
				continue
			}
			if !atomNonDecreasing(a, s, b) {
				return false
			}
			if iv := atomBounds(a, b); !iv.loOK || iv.lo < 0 {
				return false
			}
		}
	}
	return true
}

func atomNonDecreasing(a *atom, s string, b Bounds) bool {
	switch a.kind {
	case atomSym:
		return true // a.name == s: atomUses said it depends on s
	case atomFloorDiv:
		c, ok := a.args[1].IsConst()
		return ok && c > 0 && NonDecreasing(a.args[0], s, b)
	case atomMax, atomMin:
		for _, x := range a.args {
			if !NonDecreasing(x, s, b) {
				return false
			}
		}
		return true
	}
	return false
}

func termUses(t term, s string) bool {
	for _, a := range t.mono {
		if atomUses(a, s) {
			return true
		}
	}
	return false
}

func atomUses(a *atom, s string) bool {
	if a.kind == atomSym {
		return a.name == s
	}
	for _, x := range a.args {
		for _, y := range x.Symbols() {
			if y == s {
				return true
			}
		}
	}
	return false
}
