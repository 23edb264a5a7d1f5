package expr

// Ops builds values from primitive integer operations, returning a handle
// for each: what an expression is lowered to when it becomes data (a table
// of instructions a generated wrapper evaluates once per symbol binding).
type Ops interface {
	Const(c int64) int
	Sym(name string) int
	Add(a, b int) int
	Mul(a, b int) int
	FloorDiv(a, b int) int
	Mod(a, b int) int
	Max(a, b int) int
	Min(a, b int) int
}

// Lower computes e with o's operations, term by term in canonical order:
// equal expressions lower to equal calls, so an o that shares equal calls
// computes each common subexpression once.
func (e Expr) Lower(o Ops) int {
	ts := e.terms()
	if len(ts) == 0 {
		return o.Const(0)
	}
	sum := -1
	for _, t := range ts {
		v := -1
		for _, a := range t.mono {
			x := a.lower(o)
			if v < 0 {
				v = x
			} else {
				v = o.Mul(v, x)
			}
		}
		switch {
		case v < 0:
			v = o.Const(t.coef)
		case t.coef != 1:
			v = o.Mul(o.Const(t.coef), v)
		}
		if sum < 0 {
			sum = v
		} else {
			sum = o.Add(sum, v)
		}
	}
	return sum
}

func (a *atom) lower(o Ops) int {
	switch a.kind {
	case atomSym:
		return o.Sym(a.name)
	case atomFloorDiv:
		return o.FloorDiv(a.args[0].Lower(o), a.args[1].Lower(o))
	case atomMod:
		return o.Mod(a.args[0].Lower(o), a.args[1].Lower(o))
	}
	v := a.args[0].Lower(o)
	for _, x := range a.args[1:] {
		if a.kind == atomMax {
			v = o.Max(v, x.Lower(o))
		} else {
			v = o.Min(v, x.Lower(o))
		}
	}
	return v
}
