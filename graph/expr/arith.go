package expr

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
