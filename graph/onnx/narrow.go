package onnx

import (
	"fmt"
	"slices"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// A size fact can hold for some values of an input's symbol and not
// others: a UNet concatenates an upsampled map, 2*((h+1)//2), with the
// encoder's h, equal exactly when h is even; a patch unfold reshapes a
// size into (size//2, 2), exact when it is even. The model works only at
// those values (PyTorch fails at the others too). The importer then takes
// the symbol as a multiple of m: a new symbol h_divm stands for h/m, every
// size becomes exact in it (the floor divisions simplify) and the plan is
// exact at every allowed size. The wrapper reads h_divm from the input's
// dimension as m*h_divm, refusing any other size when it binds the inputs.

// narrowMultiples are the multiples tried, smallest first.
var narrowMultiples = []int64{2, 3, 4, 8, 16, 32, 64, 128}

// maxNarrowRounds bounds the imports run again with one more symbol
// narrowed (or one narrowed further).
const maxNarrowRounds = 8

// narrowing is one symbol of the model's inputs to be taken as a
// multiple.
type narrowing struct {
	symbol   string // the dim_param's symbol, as first named
	multiple int64  // the whole multiple (a symbol narrowed twice multiplies)
	node     string // the node that needs it, for the note
}

// narrowed is the symbol standing for symbol/m.
func narrowedName(symbol string, m int64) string { return fmt.Sprintf("%s_div%d", symbol, m) }

// narrowFor looks for the smallest multiple of the input symbols a - b
// depends on at which a == b for every value, and records it on the
// importer (Import then runs again with them narrowed): it reports
// whether it found one. A fact that holds at no multiple is left to its
// caller's refusal.
func (c *nodeCtx) narrowFor(a, b expr.Expr) bool {
	return c.narrowWhere([]expr.Expr{a, b}, func(at func(expr.Expr) expr.Expr) bool { return expr.Equal(at(a), at(b)) })
}

// narrowWhere is narrowFor for any fact about exprs: holds says whether
// the fact is proven with the sizes rewritten by at. One symbol is tried
// at a time, then all of them together (a reshape of both a height and a
// width), each at the multiples in turn.
func (c *nodeCtx) narrowWhere(exprs []expr.Expr, holds func(at func(expr.Expr) expr.Expr) bool) bool {
	im := c.im
	if im.narrow != nil {
		return false
	}
	var syms []string
	for _, e := range exprs {
		for _, s := range e.Symbols() {
			if _, _, ok := im.narrowable(s); ok && !slices.Contains(syms, s) {
				syms = append(syms, s)
			}
		}
	}
	sets := [][]string{}
	for _, s := range syms {
		sets = append(sets, []string{s})
	}
	if len(syms) > 1 {
		sets = append(sets, syms)
	}
	for _, set := range sets {
		for _, m := range narrowMultiples {
			fits := true
			for _, s := range set {
				r := im.bounds[s]
				fits = fits && (r.Max < 0 || r.Max/m >= max((r.Min+m-1)/m, 1))
			}
			if !fits {
				break // no multiple of m in range
			}
			at := func(e expr.Expr) expr.Expr {
				for _, s := range set {
					e = expr.Substitute(e, s, expr.Scale(expr.Sym(s), m))
				}
				return e
			}
			if !holds(at) {
				continue
			}
			for _, s := range set {
				orig, have, _ := im.narrowable(s)
				im.narrow = append(im.narrow, narrowing{symbol: orig, multiple: have * m, node: fmt.Sprintf("node %q", c.n.name)})
			}
			return true
		}
	}
	return false
}

// narrowable reports whether symbol s is one of the model inputs' (or one
// an earlier round narrowed), with the symbol it was first named and the
// multiple it already stands for.
func (im *importer) narrowable(s string) (string, int64, bool) {
	for name, m := range im.multiples {
		if narrowedName(name, m) == s {
			return name, m, true
		}
	}
	return s, 1, im.symbols[s] && im.paramFor[s] != ""
}

// narrowedSymbol is symbol name (an input's) as multiple*name_divm when
// an earlier round asked for it, with the new symbol's range from name's
// and a note saying why.
func (im *importer) narrowedSymbol(name string, r expr.Range, hint int64) (expr.Expr, bool) {
	m := im.multiples[name]
	if m <= 1 {
		return expr.Expr{}, false
	}
	k := narrowedName(name, m)
	if !im.symbols[k] {
		im.symbols[name] = true
		im.symbols[k] = true
		kr := expr.Range{Min: max((r.Min+m-1)/m, 1), Max: -1}
		if r.Max >= 0 {
			kr.Max = r.Max / m
		}
		doc := fmt.Sprintf("%s/%d: %s must be a multiple of %d (%s)", name, m, name, m, im.multipleWhy[name])
		im.doc.symbols = append(im.doc.symbols, docSymbol{name: k, hint: max(hint/m, kr.Min), min: kr.Min, max: kr.Max, doc: doc})
		im.bounds[k] = kr
		im.notes = append(im.notes, fmt.Sprintf("%s must be a multiple of %d (%s): symbol %s stands for %s/%d, and the wrapper refuses other sizes",
			name, m, im.multipleWhy[name], k, name, m))
	}
	return expr.Scale(expr.Sym(k), m), true
}
