package expr

import "sort"

// Add returns the canonical sum of its arguments.
func Add(xs ...Expr) Expr {
	if c, ok := constSum(xs); ok {
		return Const(c)
	}
	var ts []term
	of := false
	for _, x := range xs {
		ts = append(ts, x.terms()...)
		of = of || x.Overflowed()
	}
	return fromTerms(ts, of)
}

// constSum adds xs when all are constants without overflow: the common
// case for sizes, which needs no canonicalisation.
func constSum(xs []Expr) (int64, bool) {
	var sum int64
	for _, x := range xs {
		c, ok := x.IsConst()
		if !ok || x.Overflowed() {
			return 0, false
		}
		var of bool
		if sum, of = addInt(sum, c); of {
			return 0, false
		}
	}
	return sum, true
}

// Sub returns a - b.
func Sub(a, b Expr) Expr { return Add(a, Scale(b, -1)) }

// Scale returns c*e.
func Scale(e Expr, c int64) Expr {
	if c == 1 {
		return e
	}
	if v, ok := e.IsConst(); ok && !e.Overflowed() {
		if k, of := mulInt(v, c); !of {
			return Const(k)
		}
	}
	ts := make([]term, 0, len(e.terms()))
	of := e.Overflowed()
	for _, t := range e.terms() {
		k, o := mulInt(t.coef, c)
		of = of || o
		ts = append(ts, term{coef: k, mono: t.mono, key: t.key})
	}
	return fromTerms(ts, of)
}

// Mul returns the canonical product of its arguments.
func Mul(xs ...Expr) Expr {
	acc := Const(1)
	for _, x := range xs {
		acc = mul2(acc, x)
	}
	return acc
}

func mul2(a, b Expr) Expr {
	if c, ok := a.IsConst(); ok && !a.Overflowed() {
		return Scale(b, c)
	}
	if c, ok := b.IsConst(); ok && !b.Overflowed() {
		return Scale(a, c)
	}
	of := a.Overflowed() || b.Overflowed()
	var ts []term
	for _, x := range a.terms() {
		for _, y := range b.terms() {
			k, o := mulInt(x.coef, y.coef)
			of = of || o
			m := mulMono(x.mono, y.mono)
			ts = append(ts, term{coef: k, mono: m, key: monoKey(m)})
		}
	}
	return fromTerms(ts, of)
}

// splitMod writes a = b*q + r with every coefficient of r in [0, b).
func splitMod(a Expr, b int64) (q, r Expr) {
	var qs, rs []term
	for _, t := range a.terms() {
		qc, rc := floorDivInt(t.coef, b), floorModInt(t.coef, b)
		qs = append(qs, term{coef: qc, mono: t.mono, key: t.key})
		rs = append(rs, term{coef: rc, mono: t.mono, key: t.key})
	}
	return fromTerms(qs, a.Overflowed()), fromTerms(rs, false)
}

// FloorDiv returns a // b (rounding toward negative infinity). Division by a
// constant zero yields ok=false.
func FloorDiv(a, b Expr) (Expr, bool) {
	bc, bconst := b.IsConst()
	if bconst && bc == 0 {
		return Expr{}, false
	}
	if bconst && bc > 0 {
		// floor((b*q + r)/b) = q + floor(r/b) for integer q.
		q, r := splitMod(a, bc)
		if rc, ok := r.IsConst(); ok {
			return Add(q, Const(floorDivInt(rc, bc))), true
		}
		return Add(q, opaque(atomFloorDiv, r, b)), true
	}
	return opaque(atomFloorDiv, a, b), true
}

// Mod returns a % b with the sign of b (Python semantics, matching //).
func Mod(a, b Expr) (Expr, bool) {
	bc, bconst := b.IsConst()
	if bconst && bc == 0 {
		return Expr{}, false
	}
	if bconst && bc > 0 {
		_, r := splitMod(a, bc)
		if rc, ok := r.IsConst(); ok {
			return Const(floorModInt(rc, bc)), true
		}
		return opaque(atomMod, r, b), true
	}
	return opaque(atomMod, a, b), true
}

// AlignUp rounds e up to a multiple of the positive constant n.
func AlignUp(e Expr, n int64) Expr {
	if n <= 1 {
		return e
	}
	q, _ := FloorDiv(Add(e, Const(n-1)), Const(n))
	return Scale(q, n)
}

// Max returns the largest of xs (at least one). Arguments that another
// argument provably dominates for every non-negative symbol value are dropped.
func Max(xs ...Expr) Expr { return extremum(atomMax, nil, xs) }

// Min returns the smallest of xs (at least one), dropping dominated arguments.
func Min(xs ...Expr) Expr { return extremum(atomMin, nil, xs) }

// MaxIn is Max using the symbol bounds b to drop dominated arguments.
func MaxIn(b Bounds, xs ...Expr) Expr { return extremum(atomMax, b, xs) }

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

func extremum(kind atomKind, bounds Bounds, xs []Expr) Expr {
	var flat []Expr
	for _, x := range xs {
		if a := soleAtom(x); a != nil && a.kind == kind {
			flat = append(flat, a.args...)
		} else {
			flat = append(flat, x)
		}
	}
	// Fold constants into one.
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
	args = dedupe(args)
	// Drop arguments dominated by the likely largest one (linear), then, if
	// few remain, by each other.
	if len(args) > maxPairwise {
		lead := leadingArg(kind, args)
		var rest []Expr
		for _, x := range args {
			d := Sub(args[lead], x)
			if kind == atomMin {
				d = Sub(x, args[lead])
			}
			if Equal(x, args[lead]) || !dominates(d, bounds) {
				rest = append(rest, x)
			}
		}
		args = rest
	}
	if len(args) > maxPairwise {
		return opaque(kind, args...)
	}
	var keep []Expr
	for i, x := range args {
		dominated := false
		for j, y := range args {
			if i == j {
				continue
			}
			d := Sub(y, x) // max: y >= x drops x; min: y <= x drops x
			if kind == atomMin {
				d = Sub(x, y)
			}
			if dominates(d, bounds) {
				// For equal pairs keep the first only.
				if !dominates(Scale(d, -1), bounds) || j < i {
					dominated = true
					break
				}
			}
		}
		if !dominated {
			keep = append(keep, x)
		}
	}
	if len(keep) == 1 {
		return keep[0]
	}
	return opaque(kind, keep...)
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

// maxPairwise bounds the quadratic dominance check in Max and Min.
const maxPairwise = 8

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

// leadingArg guesses the largest (smallest for min) argument by evaluating
// at a large probe value of every symbol; failures just keep every argument.
func leadingArg(kind atomKind, xs []Expr) int {
	best, bestV := 0, int64(0)
	for i, x := range xs {
		env := Env{}
		x.walkSyms(func(s string) { env[s] = 1 << 20 })
		v, err := x.Eval(env)
		if err != nil {
			continue
		}
		if i == 0 || (kind == atomMax && v > bestV) || (kind == atomMin && v < bestV) {
			best, bestV = i, v
		}
	}
	return best
}
