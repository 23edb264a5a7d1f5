package expr

import (
	"math"
	"sort"
)

// Verdict is what Decide established about a fact e >= 0.
type Verdict uint8

const (
	// Unknown: neither proven nor refuted; a plan relying on the fact must
	// check it at run time.
	Unknown Verdict = iota
	// Proven for every symbol value in the bounds.
	Proven
	// Refuted: At is a point of the bounds where e < 0 (Value), or where e
	// cannot be computed (Err: overflow, division by zero).
	Refuted
)

// Decision is Decide's answer.
type Decision struct {
	Verdict Verdict
	At      Env
	Value   int64
	Err     error
}

// Decider decides facts e >= 0 over the symbols' bounds: by evaluating
// every point of the box the fact's symbols span when each has a max and
// the box is small, within a budget of evaluations shared by all the facts
// it decides (counted, not timed, so that answers are deterministic),
// which also finds values where e overflows; else by proof (NonNeg).
// Sampling never establishes a fact: what is neither enumerated nor proven
// is Unknown.
type Decider struct {
	Bounds Bounds
	// MaxPoints bounds one fact's box; Budget is the evaluations left.
	MaxPoints, Budget int64
}

// Decider defaults: a fact over a box of up to 4,096 points is enumerated,
// and a graph's facts together get a million evaluations.
const (
	DefaultMaxPoints = 1 << 12
	DefaultBudget    = 1 << 20
)

// NewDecider decides over b with the default limits.
func NewDecider(b Bounds) *Decider {
	return &Decider{Bounds: b, MaxPoints: DefaultMaxPoints, Budget: DefaultBudget}
}

// Decide decides e >= 0.
func (d *Decider) Decide(e Expr) Decision {
	if dec, ok := d.enumerate(e); ok {
		return dec
	}
	if NonNeg(e, d.Bounds) {
		return Decision{Verdict: Proven}
	}
	if dec, ok := d.polynomial(e); ok {
		return dec
	}
	return Decision{}
}

// polynomial decides a polynomial in one symbol (n*n - 4*n + 4): beyond
// Cauchy's bound R on its roots, 1 + max |c_i / c_d|, its sign is its
// leading coefficient's, so the values from the symbol's min up to R (or
// its max) decide it, when they are few.
func (d *Decider) polynomial(e Expr) (Decision, bool) {
	name, coefs, ok := univariate(e)
	if !ok || len(coefs) < 2 {
		return Decision{}, false
	}
	lead := coefs[len(coefs)-1]
	bound := 0.0
	for _, c := range coefs[:len(coefs)-1] {
		bound = max(bound, math.Abs(float64(c))/math.Abs(float64(lead)))
	}
	r := d.Bounds[name]
	lo, hi := r.Min, r.Min+d.MaxPoints // past R whatever its size, beyond the budget: unknown
	if bound+2 < float64(hi) {
		hi = r.Min + int64(bound) + 2 // > R: the sign there is the leading coefficient's
		hi = max(hi, r.Min)
	}
	bounded := r.Max >= r.Min
	if bounded && r.Max < hi {
		hi = r.Max
	}
	if hi-lo+1 > d.Budget {
		return Decision{}, false
	}
	d.Budget -= hi - lo + 1
	for n := lo; n <= hi; n++ {
		env := Env{name: n}
		v, err := e.Eval(env)
		if err != nil || v < 0 {
			return Decision{Verdict: Refuted, At: env, Value: v, Err: err}, true
		}
	}
	// Every value up to hi holds; past it the leading coefficient decides,
	// when hi is beyond R or the symbol's max.
	beyondRoots := float64(hi) > bound+1
	if (bounded && hi == r.Max) || (beyondRoots && lead > 0) {
		return Decision{Verdict: Proven}, true
	}
	return Decision{}, false
}

// univariate reads e as a polynomial in one symbol: the symbol and the
// coefficients, constant first. False when e has atoms other than one
// symbol.
func univariate(e Expr) (string, []int64, bool) {
	name := ""
	var coefs []int64
	for _, t := range e.terms() {
		deg := len(t.mono)
		for _, a := range t.mono {
			if a.kind != atomSym || (name != "" && a.name != name) {
				return "", nil, false
			}
			name = a.name
		}
		for len(coefs) <= deg {
			coefs = append(coefs, 0)
		}
		coefs[deg] += t.coef
	}
	for len(coefs) > 0 && coefs[len(coefs)-1] == 0 {
		coefs = coefs[:len(coefs)-1]
	}
	return name, coefs, name != "" && !e.Overflowed()
}

// enumerate decides e at every point of its box; false when the box is
// unbounded, too large, or beyond the budget.
func (d *Decider) enumerate(e Expr) (Decision, bool) {
	syms := e.Symbols()
	sort.Strings(syms)
	points := int64(1)
	for _, s := range syms {
		r, ok := d.Bounds[s]
		if !ok || r.Max < r.Min {
			return Decision{}, false // unbounded
		}
		n := r.Max - r.Min + 1
		if n > d.MaxPoints || points > d.MaxPoints/n {
			return Decision{}, false
		}
		points *= n
	}
	if points > d.Budget {
		return Decision{}, false
	}
	d.Budget -= points
	env := Env{}
	for _, s := range syms {
		env[s] = d.Bounds[s].Min
	}
	for {
		v, err := e.Eval(env)
		if err != nil || v < 0 {
			at := Env{}
			for k, x := range env {
				at[k] = x
			}
			return Decision{Verdict: Refuted, At: at, Value: v, Err: err}, true
		}
		// The next point, the last symbol fastest.
		i := len(syms) - 1
		for ; i >= 0; i-- {
			s := syms[i]
			if env[s] < d.Bounds[s].Max {
				env[s]++
				break
			}
			env[s] = d.Bounds[s].Min
		}
		if i < 0 {
			return Decision{Verdict: Proven}, true
		}
	}
}
