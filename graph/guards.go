package graph

import (
	"fmt"
	"maps"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// Guard is a fact the plan relies on that wrapgen could neither prove for
// every symbol value in range nor refute (a symbol without a max, a box
// too large to try every point): the generated wrapper checks it whenever
// it binds symbol values, and stops with an error naming the fact and the
// values.
type Guard struct {
	Fact  expr.Expr // must be >= 0
	Place string    // where in the graph, e.g. tensors["v"]
	What  string    // the fact in words, e.g. `view "v" lies inside "t"`
}

func (g Guard) String() string { return g.Place + ": " + g.What }

// factCheck is one fact and how to report it false.
type factCheck struct {
	fact  expr.Expr
	off   int64 // where in the file
	place string
	what  string // the fact in words, for a guard
	// fail says the fact is false: its value v at env, or the error
	// computing it there.
	fail func(v int64, err error, env expr.Env) string
}

// atText is " at n=5, m=2", or "" without symbols.
func atText(env expr.Env) string {
	if len(env) == 0 {
		return ""
	}
	return " at " + envText(env)
}

// decideFact establishes f over every symbol value in range: proven, or
// refuted (reported at f's place, naming the values), or else tried at the
// sample values (a counterexample is reported) and, holding there, kept as
// a guard. It returns false when it reported f false.
func (d *decoder) decideFact(f factCheck) bool { return d.decide(f, false) }

// checkImplied is decideFact for a fact that follows from others (guarded
// when not proven): only values that refute it are looked for, and it
// never becomes a guard of its own.
func (d *decoder) checkImplied(f factCheck) bool { return d.decide(f, true) }

func (d *decoder) decide(f factCheck, implied bool) bool {
	if d.decider == nil {
		d.decider = expr.NewDecider(d.bounds())
	}
	dec := d.decider.Decide(f.fact)
	if dec.Verdict == expr.Refuted {
		// The symbols the fact does not depend on take their hints, so that
		// the message can compute what it quotes.
		env := expr.Env{}
		for name, s := range d.symbols {
			env[name] = s.Hint
		}
		maps.Copy(env, dec.At)
		d.errAt(f.off, f.place, "%s", f.fail(dec.Value, dec.Err, env))
		return false
	}
	// A fact proven >= 0 may still overflow int64 at large values: the
	// samples (the maxima among them) may show it.
	for _, env := range d.sampleEnvs() {
		v, err := f.fact.Eval(env)
		if err != nil || v < 0 {
			d.errAt(f.off, f.place, "%s", f.fail(v, err, env))
			return false
		}
	}
	if dec.Verdict == expr.Proven || implied {
		return true
	}
	key := f.place + "\x00" + f.what + "\x00" + f.fact.String()
	if !d.guardSeen[key] {
		if d.guardSeen == nil {
			d.guardSeen = map[string]bool{}
		}
		d.guardSeen[key] = true
		d.g.Guards = append(d.g.Guards, Guard{Fact: f.fact, Place: f.place, What: f.what})
	}
	return true
}

// negativeOr is the usual failure text: "<what> is negative (v)" or
// "<what>: <error>", then where.
func negativeOr(what string) func(v int64, err error, env expr.Env) string {
	return func(v int64, err error, env expr.Env) string {
		if err != nil {
			return fmt.Sprintf("%s: %v%s", what, err, atText(env))
		}
		return fmt.Sprintf("%s is negative (%d)%s", what, v, atText(env))
	}
}
