package expr

// Substitute is e with every occurrence of symbol s replaced by with,
// inside floor divisions, modulos, maxima and minima too.
func Substitute(e Expr, s string, with Expr) Expr {
	var sum []Expr
	for _, t := range e.terms() {
		parts := []Expr{Const(t.coef)}
		for _, a := range t.mono {
			parts = append(parts, substituteAtom(a, s, with))
		}
		sum = append(sum, Mul(parts...))
	}
	if len(sum) == 0 {
		return Const(0)
	}
	return Add(sum...)
}

func substituteAtom(a *atom, s string, with Expr) Expr {
	if a.kind == atomSym {
		if a.name == s {
			return with
		}
		return Sym(a.name)
	}
	args := make([]Expr, len(a.args))
	for i, x := range a.args {
		args[i] = Substitute(x, s, with)
	}
	switch a.kind {
	case atomFloorDiv:
		if q, ok := FloorDiv(args[0], args[1]); ok {
			return q
		}
	case atomMod:
		if r, ok := Mod(args[0], args[1]); ok {
			return r
		}
	case atomMax:
		return Max(args...)
	case atomMin:
		return Min(args...)
	}
	// A division by what became zero: keep the atom as it was (evaluating
	// it reports the division).
	return Expr{fromTerms([]term{{coef: 1, mono: []*atom{a}, key: a.key}}, false).p}
}
