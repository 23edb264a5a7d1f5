// Package expr implements the symbolic integer expressions of graph format v1:
// sizes, strides, offsets and byte counts that may depend on symbols such as
// batch. An Expr is immutable and kept in a canonical form (a sum of
// coefficient × product-of-atoms terms), so structurally equal values print
// and compare equal: 2*batch*4 and 8*batch are the same Expr.
//
// Symbols range over non-negative integers; callers that know tighter bounds
// pass them as Bounds to the proving functions.
package expr

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
)

// Expr is a canonical symbolic integer. The zero value is the constant 0.
type Expr struct{ p *poly }

type poly struct {
	terms    []term // sorted by canonical term order; no zero coefficients
	overflow bool   // a constant fold overflowed int64
	// key is the canonical text, rendered when first asked for: most
	// expressions built (differences whose sign a proof looks at) are
	// never printed, and rendering long ones was most of their cost. An
	// atomic pointer, as Exprs are shared between goroutines.
	key atomic.Pointer[string]
}

// newPoly is a poly of sorted, merged terms.
func newPoly(ts []term, overflow bool) *poly { return &poly{terms: ts, overflow: overflow} }

// constPoly is the poly of the constant c, its text rendered now.
func constPoly(c int64) *poly {
	p := newPoly([]term{{coef: c}}, false)
	k := formatInt(c)
	p.key.Store(&k)
	return p
}

type term struct {
	coef int64
	mono []*atom // sorted by atom key; repeated atoms are powers
	key  string  // atom keys joined by "*", "" for the constant term
}

type atomKind uint8

const (
	atomSym atomKind = iota
	atomFloorDiv
	atomMod
	atomMax
	atomMin
)

// atom is an irreducible factor: a symbol or an opaque function of Exprs.
type atom struct {
	kind atomKind
	name string // symbol name
	args []Expr
	key  string
}

// Const returns the constant c.
func Const(c int64) Expr {
	if c == 0 {
		return Expr{}
	}
	if c > 0 && c < int64(len(smallConsts)) {
		return smallConsts[c]
	}
	return Expr{constPoly(c)}
}

// smallConsts are shared: sizes and strides repeat the same few numbers.
var smallConsts = func() []Expr {
	out := make([]Expr, 4096)
	for i := 1; i < len(out); i++ {
		out[i] = Expr{constPoly(int64(i))}
	}
	return out
}()

// Sym returns the symbol named name.
func Sym(name string) Expr {
	a := &atom{kind: atomSym, name: name, key: name}
	return fromTerms([]term{{coef: 1, mono: []*atom{a}, key: a.key}}, false)
}

func (e Expr) terms() []term {
	if e.p == nil {
		return nil
	}
	return e.p.terms
}

// Overflowed reports whether building e overflowed int64 in a constant part.
func (e Expr) Overflowed() bool { return e.p != nil && e.p.overflow }

// IsConst reports whether e has no symbols, and its value.
func (e Expr) IsConst() (int64, bool) {
	ts := e.terms()
	switch {
	case len(ts) == 0:
		return 0, true
	case len(ts) == 1 && len(ts[0].mono) == 0:
		return ts[0].coef, true
	}
	return 0, false
}

// Equal reports whether a and b are the same canonical expression.
func Equal(a, b Expr) bool { return a.String() == b.String() }

// String prints e in the format's own syntax, canonical and re-parsable.
func (e Expr) String() string {
	if e.p == nil {
		return "0"
	}
	if k := e.p.key.Load(); k != nil {
		return *k
	}
	k := render(e.p.terms, plainStyle)
	e.p.key.Store(&k)
	return k
}

// Symbols returns the sorted names of the symbols e depends on.
func (e Expr) Symbols() []string {
	seen := map[string]bool{}
	e.walkSyms(func(s string) { seen[s] = true })
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func (e Expr) walkSyms(f func(string)) {
	for _, t := range e.terms() {
		for _, a := range t.mono {
			if a.kind == atomSym {
				f(a.name)
			}
			for _, x := range a.args {
				x.walkSyms(f)
			}
		}
	}
}

// fromTerms merges like terms, drops zeros, sorts and keys the result.
func fromTerms(ts []term, overflow bool) Expr {
	merged := make([]term, 0, len(ts))
	var byKey map[string]int
	if len(ts) > 8 {
		byKey = make(map[string]int, len(ts))
	}
	for _, t := range ts {
		i, ok := -1, false
		if byKey != nil {
			i, ok = byKey[t.key]
		} else {
			for j := range merged {
				if merged[j].key == t.key {
					i, ok = j, true
					break
				}
			}
		}
		if ok {
			var of bool
			merged[i].coef, of = addInt(merged[i].coef, t.coef)
			overflow = overflow || of
			continue
		}
		if byKey != nil {
			byKey[t.key] = len(merged)
		}
		merged = append(merged, t)
	}
	out := merged[:0]
	for _, t := range merged {
		if t.coef != 0 {
			out = append(out, t)
		}
	}
	if len(out) == 0 && !overflow {
		return Expr{}
	}
	sort.Slice(out, func(i, j int) bool { return termLess(out[i], out[j]) })
	return Expr{newPoly(out, overflow)}
}

// termLess orders higher-degree terms first, then by key; constants last.
func termLess(a, b term) bool {
	if len(a.mono) != len(b.mono) {
		return len(a.mono) > len(b.mono)
	}
	return a.key < b.key
}

func monoKey(m []*atom) string {
	if len(m) == 0 {
		return ""
	}
	parts := make([]string, len(m))
	for i, a := range m {
		parts[i] = a.key
	}
	return strings.Join(parts, "*")
}

func mulMono(a, b []*atom) []*atom {
	m := make([]*atom, 0, len(a)+len(b))
	m = append(m, a...)
	m = append(m, b...)
	sort.SliceStable(m, func(i, j int) bool { return m[i].key < m[j].key })
	return m
}

func addInt(a, b int64) (int64, bool) {
	s := a + b
	return s, (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0)
}

func mulInt(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, false
	}
	if (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, true
	}
	p := a * b
	return p, p/b != a
}

func floorDivInt(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorModInt(a, b int64) int64 { return a - floorDivInt(a, b)*b }

func formatInt(c int64) string { return strconv.FormatInt(c, 10) }

// IsZeroValue reports whether e is the zero Expr{} (also the constant 0).
func (e Expr) IsZeroValue() bool { return e.p == nil }
