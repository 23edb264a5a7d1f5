package expr

import "fmt"

// Env gives each symbol a value.
type Env map[string]int64

// EvalError says why an expression has no int64 value.
type EvalError struct{ Msg string }

func (e *EvalError) Error() string { return e.Msg }

// Eval computes e at env, reporting int64 overflow, division by zero and
// unbound symbols as errors.
func (e Expr) Eval(env Env) (int64, error) {
	if e.Overflowed() {
		return 0, &EvalError{"constant overflows int64"}
	}
	var sum int64
	for _, t := range e.terms() {
		v := t.coef
		for _, a := range t.mono {
			x, err := a.eval(env)
			if err != nil {
				return 0, err
			}
			var of bool
			if v, of = mulInt(v, x); of {
				return 0, &EvalError{fmt.Sprintf("%s overflows int64", e)}
			}
		}
		var of bool
		if sum, of = addInt(sum, v); of {
			return 0, &EvalError{fmt.Sprintf("%s overflows int64", e)}
		}
	}
	return sum, nil
}

func (a *atom) eval(env Env) (int64, error) {
	if a.kind == atomSym {
		v, ok := env[a.name]
		if !ok {
			return 0, &EvalError{fmt.Sprintf("symbol %q has no value", a.name)}
		}
		return v, nil
	}
	// Evaluated without a slice of argument values: offsets are nested
	// max() atoms, evaluated for every buffer of every plan verified.
	first, err := a.args[0].Eval(env)
	if err != nil {
		return 0, err
	}
	switch a.kind {
	case atomFloorDiv, atomMod:
		d, err := a.args[1].Eval(env)
		if err != nil {
			return 0, err
		}
		if d == 0 {
			return 0, &EvalError{fmt.Sprintf("division by zero in %s", a.key)}
		}
		if a.kind == atomFloorDiv {
			if first == -1<<63 && d == -1 {
				return 0, &EvalError{fmt.Sprintf("%s overflows int64", a.key)}
			}
			return floorDivInt(first, d), nil
		}
		return floorModInt(first, d), nil
	}
	m := first
	for _, x := range a.args[1:] {
		v, err := x.Eval(env)
		if err != nil {
			return 0, err
		}
		if a.kind == atomMax {
			m = max(m, v)
		} else {
			m = min(m, v)
		}
	}
	return m, nil
}
