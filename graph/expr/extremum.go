package expr

import (
	"math"
	"sort"
)

// This file builds max and min. Their canonical form is kept short, since
// a pool's size is the maximum of many buffers' ends, each a sum over the
// buffers below it:
//
//   - nested extrema of the same kind are one: max(a, max(b, c)) is
//     max(a, b, c), and so is max(a, d + max(b, c)) when d + b and d + c
//     as arguments of their own print no longer (or let one drop);
//   - an argument another one provably dominates is dropped;
//   - what every argument shares is taken out: max(c + a, c + b) is
//     c + max(a, b);
//   - so is a factor of every term: max(64*a, 64*b) is 64*max(a, b), and
//     max(n*a, n*b) is n*max(a, b) for a symbol n.
//
// Every rewrite is exact: c + max(a, b) = max(c + a, c + b) for all
// integers, f*max(a, b) = max(f*a, f*b) for f >= 0 (symbols are never
// negative), and the same for min.

// Max returns the largest of xs (at least one). Arguments that another
// argument provably dominates for every non-negative symbol value are dropped.
func Max(xs ...Expr) Expr { return extremum(atomMax, nil, xs) }

// Min returns the smallest of xs (at least one), dropping dominated arguments.
func Min(xs ...Expr) Expr { return extremum(atomMin, nil, xs) }

// MaxIn is Max using the symbol bounds b to drop dominated arguments.
func MaxIn(b Bounds, xs ...Expr) Expr { return extremum(atomMax, b, xs) }

// Bounds on the work of one Max or Min, so that building a pool's size is
// polynomial in its buffers whatever their expressions:
//
//   - maxPairwise: up to this many arguments every pair is tried with the
//     full proof of dominance (dominates, which builds the difference);
//   - above it, each argument is tried against the largest with the full
//     proof and against others with the proof from the terms alone
//     (geqTerms, which builds nothing), at most maxChecks proofs in all:
//     so one reduction is linear in its arguments' size;
//   - maxSpread: an extremum inside an argument is spread into the outer
//     one only while the arguments number at most this;
//   - maxRounds: rounds of reduction (see extremum).
const (
	maxPairwise = 8
	maxChecks   = 4096
	maxSpread   = 256
)

func extremum(kind atomKind, bounds Bounds, xs []Expr) Expr {
	if len(xs) == 0 {
		return opaque(kind) // what a parse that failed half-way builds; never used
	}
	// The result is common + factor*extremum(keep).
	common, keep, again := extremumStep(kind, bounds, xs)
	factor := Const(1)
	// The passes over many arguments are not confluent (which argument
	// leads, which pairs get the full proof, which spread prints shorter,
	// a factor taken out), so the arguments kept may reduce further:
	// repeat until they do not, so that the result parses back to itself.
	// Each round drops an argument, takes a part out or shortens the
	// text; maxRounds bounds them. Few arguments, none spreadable, got
	// every pass already.
	for i := 0; ; i++ {
		if f, k, ok := takeFactor(keep); ok {
			factor, keep, again = Mul(factor, f), k, true
		}
		if i == maxRounds || len(keep) < 2 || !(again || anySpreadable(kind, keep)) {
			break
		}
		c, k, m := extremumStep(kind, bounds, keep)
		if c.IsZeroValue() && len(k) == len(keep) && Equal(build(kind, c, k), build(kind, c, keep)) {
			break
		}
		common, keep, again = Add(common, Mul(factor, c)), k, m
	}
	return Add(common, Mul(factor, build(kind, Expr{}, keep)))
}

// takeFactor writes xs (two or more) as f*rest[i], f > 1 the largest
// constant and product of symbols that divides every term of every
// argument: f*max(a, b) = max(f*a, f*b) as symbols are never negative.
func takeFactor(xs []Expr) (f Expr, rest []Expr, ok bool) {
	if len(xs) < 2 {
		return Expr{}, nil, false
	}
	var g int64
	var syms []*atom // in every term so far
	first := true
	for _, x := range xs {
		if x.Overflowed() {
			return Expr{}, nil, false
		}
		for _, t := range x.terms() {
			c := t.coef
			if c < 0 {
				if c == math.MinInt64 {
					return Expr{}, nil, false
				}
				c = -c
			}
			g = gcdInt(g, c)
			if first {
				for _, a := range t.mono {
					if a.kind == atomSym && (len(syms) == 0 || syms[len(syms)-1].key != a.key) {
						syms = append(syms, a)
					}
				}
				first = false
				continue
			}
			kept := syms[:0]
			for _, a := range syms {
				for _, m := range t.mono {
					if m.key == a.key {
						kept = append(kept, a)
						break
					}
				}
			}
			syms = kept
		}
	}
	if g <= 1 && len(syms) == 0 {
		return Expr{}, nil, false
	}
	f = fromTerms([]term{{coef: max(g, 1), mono: syms, key: monoKey(syms)}}, false)
	rest = make([]Expr, len(xs))
	for i, x := range xs {
		if rest[i], ok = DivideMonomial(x, f); !ok {
			return Expr{}, nil, false
		}
	}
	return f, rest, true
}

func gcdInt(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func anySpreadable(kind atomKind, xs []Expr) bool {
	for _, x := range xs {
		if _, _, ok := spreadable(kind, x); ok {
			return true
		}
	}
	return false
}

// maxRounds bounds the rounds of reduction in one Max or Min.
const maxRounds = 8

// extremumStep is the extremum of xs as common + the extremum of keep,
// with inner extrema spread into the arguments when that prints shorter.
// many reports more arguments than get the full pairwise proof.
func extremumStep(kind atomKind, bounds Bounds, xs []Expr) (common Expr, keep []Expr, many bool) {
	plain, _ := flatten(kind, xs, false)
	many = len(plain) > maxPairwise
	common, keep = reduce(kind, bounds, plain)
	if spread, ok := flatten(kind, xs, true); ok {
		// Spreading c + max(a, b) into the arguments repeats c: keep it
		// when it prints shorter, which it does when arguments drop or
		// their common part comes out again.
		c, k := reduce(kind, bounds, spread)
		if len(build(kind, c, k).String()) < len(build(kind, common, keep).String()) {
			return c, k, many || len(spread) > maxPairwise
		}
	}
	return common, keep, many
}

// build is common + the extremum of keep (one or more, already reduced).
func build(kind atomKind, common Expr, keep []Expr) Expr {
	if len(keep) == 1 {
		return Add(common, keep[0])
	}
	return Add(common, opaque(kind, keep...))
}

// flatten lists the arguments of the extremum of xs: an argument that is
// an extremum of the same kind gives its own; with spread, so does one
// that is d + f*extremum (f > 0 a constant times symbols), as d + f*each
// of them. spread reports whether any was spread.
func flatten(kind atomKind, xs []Expr, spread bool) (flat []Expr, spreadAny bool) {
	for i, x := range xs {
		if a := soleAtom(x); a != nil && a.kind == kind {
			flat = append(flat, a.args...)
			continue
		}
		if spread {
			if t, inner, ok := spreadable(kind, x); ok && len(flat)+len(inner.args)+len(xs)-i-1 <= maxSpread {
				rest := Sub(x, fromTerms([]term{t}, false))
				f := Const(t.coef)
				for _, a := range t.mono {
					if a != inner {
						f = mul2(f, fromTerms([]term{{coef: 1, mono: []*atom{a}, key: a.key}}, false))
					}
				}
				for _, y := range inner.args {
					flat = append(flat, Add(rest, mul2(f, y)))
				}
				spreadAny = true
				continue
			}
		}
		flat = append(flat, x)
	}
	return flat, spreadAny
}

// spreadable finds in x a term f*a, with a an extremum of kind and f > 0
// a constant times symbols.
func spreadable(kind atomKind, x Expr) (term, *atom, bool) {
	if x.Overflowed() {
		return term{}, nil, false
	}
	for _, t := range x.terms() {
		if t.coef <= 0 {
			continue
		}
		var inner *atom
		ok := true
		for _, a := range t.mono {
			switch {
			case a.kind == kind && inner == nil:
				inner = a
			case a.kind != atomSym:
				ok = false
			}
		}
		if ok && inner != nil {
			return t, inner, true
		}
	}
	return term{}, nil, false
}

// reduce writes the extremum of args (already flattened) as common + the
// extremum of keep: constants folded, duplicates and dominated arguments
// dropped, the common part taken out.
func reduce(kind atomKind, bounds Bounds, args []Expr) (common Expr, keep []Expr) {
	args = dedupe(foldConsts(kind, args))
	// below reports whether x may be dropped for y: y >= x for max, y <=
	// x for min.
	below := func(x, y Expr, full bool) bool {
		hi, lo := y, x
		if kind == atomMin {
			hi, lo = x, y
		}
		if geqTerms(hi, lo, bounds) {
			return true
		}
		if !full {
			return false
		}
		return dominates(Sub(hi, lo), bounds)
	}
	if len(args) <= maxPairwise {
		// Every pair, with the full proof.
		for i, x := range args {
			dominated := false
			for j, y := range args {
				// For equal pairs keep the first only.
				if i != j && below(x, y, true) && (j < i || !below(y, x, true)) {
					dominated = true
					break
				}
			}
			if !dominated {
				keep = append(keep, x)
			}
		}
	} else {
		keep = dropDominated(kind, args, below)
	}
	if len(keep) == 1 {
		return Expr{}, keep
	}
	if common, rest, ok := takeCommon(keep); ok {
		inner, _ := flatten(kind, rest, false)
		c, k := reduce(kind, bounds, inner)
		return Add(common, c), k
	}
	return Expr{}, keep
}

// dropDominated keeps the arguments of many that no other is proven to
// dominate, trying each only against those kept before it in the order of
// their values at a probe point: y >= x everywhere gives y >= x there, so
// the largest come first and most fall to the first few. The first, most
// likely to dominate, gets the full proof; the others the proof from the
// terms. At most maxChecks proofs in all; past them, arguments are kept.
// The order depends on the arguments only, not on how they were listed.
func dropDominated(kind atomKind, args []Expr, below func(x, y Expr, full bool) bool) []Expr {
	type probed struct {
		x    Expr
		v    int64
		text string
	}
	ps := make([]probed, len(args))
	for i, x := range args {
		ps[i] = probed{x, probeValue(kind, x), x.String()}
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].v != ps[j].v {
			return (ps[i].v > ps[j].v) == (kind == atomMax)
		}
		return ps[i].text < ps[j].text
	})
	var keep []Expr
	checks := 0
	for _, p := range ps {
		dominated := false
		for k, y := range keep {
			if checks >= maxChecks {
				break
			}
			checks++
			if below(p.x, y, k == 0) {
				dominated = true
				break
			}
		}
		if !dominated {
			keep = append(keep, p.x)
		}
	}
	return keep
}

// probeValue is x with every symbol at 1024, for ordering arguments: an
// argument that cannot be evaluated there comes first.
func probeValue(kind atomKind, x Expr) int64 {
	env := Env{}
	x.walkSyms(func(s string) { env[s] = 1 << 10 })
	v, err := x.Eval(env)
	if err != nil {
		if kind == atomMax {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return v
}

// foldConsts keeps one constant argument, the largest (max) or smallest.
func foldConsts(kind atomKind, flat []Expr) []Expr {
	var args []Expr
	haveConst := false
	var c int64
	for _, x := range flat {
		if v, ok := x.IsConst(); ok && !x.Overflowed() {
			if !haveConst || (kind == atomMax && v > c) || (kind == atomMin && v < c) {
				c = v
			}
			haveConst = true
			continue
		}
		args = append(args, x)
	}
	if haveConst {
		args = append(args, Const(c))
	}
	return args
}

// takeCommon splits xs (two or more) into common + rest[i]: the terms
// every argument has with coefficients of one sign, at the coefficient
// nearest zero among them. ok is false when there are none.
func takeCommon(xs []Expr) (common Expr, rest []Expr, ok bool) {
	var shared []term
	for _, t := range xs[0].terms() {
		c := t.coef
		for _, x := range xs[1:] {
			d, found := coefOf(x, t)
			if !found || (d > 0) != (c > 0) {
				c = 0
				break
			}
			if (c > 0 && d < c) || (c < 0 && d > c) {
				c = d
			}
		}
		if c != 0 {
			shared = append(shared, term{coef: c, mono: t.mono, key: t.key})
		}
	}
	for _, x := range xs {
		if x.Overflowed() {
			return Expr{}, nil, false
		}
	}
	if len(shared) == 0 {
		return Expr{}, nil, false
	}
	common = fromTerms(shared, false)
	rest = make([]Expr, len(xs))
	for i, x := range xs {
		if rest[i] = Sub(x, common); rest[i].Overflowed() {
			return Expr{}, nil, false
		}
	}
	return common, rest, true
}

// coefOf is the coefficient of t's monomial in x.
func coefOf(x Expr, t term) (int64, bool) {
	ts := x.terms()
	i := sort.Search(len(ts), func(i int) bool { return !termLess(ts[i], t) })
	if i < len(ts) && ts[i].key == t.key && len(ts[i].mono) == len(t.mono) {
		return ts[i].coef, true
	}
	return 0, false
}

// geqTerms proves y - x >= 0 from the terms alone: every term of the
// difference has a non-negative coefficient over atoms that are not
// negative within bounds. It walks the two sorted term lists together and
// builds nothing, so it can be tried for every pair of many arguments.
func geqTerms(y, x Expr, bounds Bounds) bool {
	if y.Overflowed() || x.Overflowed() {
		return false
	}
	yt, xt := y.terms(), x.terms()
	i, j := 0, 0
	for i < len(yt) || j < len(xt) {
		var coef int64
		var mono []*atom
		switch {
		case j == len(xt) || (i < len(yt) && termLess(yt[i], xt[j])):
			coef, mono = yt[i].coef, yt[i].mono
			i++
		case i == len(yt) || termLess(xt[j], yt[i]):
			if xt[j].coef > 0 {
				return false
			}
			coef, mono = 1, xt[j].mono // -coef > 0; only its sign matters
			j++
		default: // the same monomial
			if yt[i].coef < xt[j].coef {
				return false
			}
			coef, mono = yt[i].coef-xt[j].coef, yt[i].mono
			if coef < 0 { // overflowed: y's positive, x's negative
				return false
			}
			i++
			j++
		}
		if coef < 0 {
			return false
		}
		if coef == 0 {
			continue
		}
		for _, a := range mono {
			if !a.nonNeg(bounds) {
				return false
			}
		}
	}
	return true
}

// dominates proves d >= 0 for dropping a dominated argument, cheaply:
// without bounds by NonNeg (symbols from 0); with bounds by the tests
// that need no expansion (every term non-negative, or interval bounds).
// Maxima are built for every candidate offset of every buffer a placement
// tries, so a proof that expands products would dominate planning time.
func dominates(d Expr, bounds Bounds) bool {
	if bounds == nil {
		return NonNeg(d, nil)
	}
	if c, ok := d.IsConst(); ok {
		return c >= 0 && !d.Overflowed()
	}
	if allTermsNonNeg(d, bounds) {
		return !d.Overflowed()
	}
	iv := boundsOf(d, bounds)
	return iv.loOK && iv.lo >= 0 && !d.Overflowed()
}

// soleAtom returns the atom if e is exactly 1*atom.
func soleAtom(e Expr) *atom {
	ts := e.terms()
	if len(ts) == 1 && ts[0].coef == 1 && len(ts[0].mono) == 1 {
		return ts[0].mono[0]
	}
	return nil
}

func opaque(kind atomKind, args ...Expr) Expr {
	of := false
	for _, a := range args {
		of = of || a.Overflowed()
	}
	if kind == atomMax || kind == atomMin {
		args = append([]Expr(nil), args...)
		sort.Slice(args, func(i, j int) bool { return args[i].String() < args[j].String() })
	}
	a := &atom{kind: kind, args: args}
	a.key = atomText(a, plainStyle)
	return fromTerms([]term{{coef: 1, mono: []*atom{a}, key: a.key}}, of)
}

func dedupe(xs []Expr) []Expr {
	seen := map[string]bool{}
	var out []Expr
	for _, x := range xs {
		if k := x.String(); !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}
