package onnx

import (
	"fmt"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// A run-time size that a later op's shapes require to equal a size the
// shapes give: torch.arange(torch.max(lengths)) builds a padding mask of
// max(lengths) columns, which attention reshapes to the key's frames and
// broadcasts against them. ONNX runs such a model only when the two agree,
// so the importer takes the run-time size to be that size from then on:
// every shape, attribute and bound that used the symbol uses the size
// instead, and the op that computed it gets the size as attribute
// "length" and refuses data that gives another (an error at run time,
// where ONNX Runtime would fail the later op). The symbol is no run-time
// size any more: the plan needs no bound for it.

// unifyRunTime makes the run-time size r, a symbol, equal e (an expression
// of the given symbols) as described above; false when r is not a
// run-time size set by a Range, or e uses a run-time size, or (for a
// broadcast) e may be 1: a size 1 broadcasts against anything, so the
// shapes then do not require the two to agree.
func (im *importer) unifyRunTime(r, e expr.Expr, broadcast bool) bool {
	syms := r.Symbols()
	if len(syms) != 1 || !expr.Equal(r, expr.Sym(syms[0])) {
		return false
	}
	name := syms[0]
	op := im.settingOp(name)
	if op == nil || op.kernel != "Range" || im.usesRunTime(e) || broadcast && !expr.LessEq(expr.Const(2), e, im.bounds) {
		return false
	}
	sub := func(x expr.Expr) expr.Expr { return expr.Substitute(x, name, e) }
	subAll := func(xs []expr.Expr) {
		for i := range xs {
			xs[i] = sub(xs[i])
		}
	}
	for _, t := range im.doc.tensors {
		subAll(t.shape)
	}
	subAttrs := func(o *docOp) {
		for i := range o.attrs {
			o.attrs[i].i = sub(o.attrs[i].i)
			subAll(o.attrs[i].ints)
		}
		if o.loop != nil {
			o.loop.count = sub(o.loop.count)
		}
	}
	walkOps(im.doc.ops, subAttrs)
	for _, ops := range im.outer {
		walkOps(ops, subAttrs)
	}
	for _, v := range im.vals {
		subAll(v.shape)
		subAll(v.ints)
		if v.hasMost {
			v.most = sub(v.most)
		}
		if v.hasLeast {
			v.least = sub(v.least)
		}
	}
	for s, b := range im.runTime {
		im.runTime[s] = sub(b)
	}
	for i := range im.doc.symbols {
		if b := im.doc.symbols[i].bound; b != nil {
			nb := sub(*b)
			im.doc.symbols[i].bound = &nb
		}
	}
	// The symbol goes; its name stays taken.
	for i, s := range im.doc.symbols {
		if s.name == name {
			im.doc.symbols = append(im.doc.symbols[:i], im.doc.symbols[i+1:]...)
			break
		}
	}
	for i, s := range op.sets {
		if s.symbol == name {
			op.sets = append(op.sets[:i], op.sets[i+1:]...)
			break
		}
	}
	op.attrs = append(op.attrs, docAttr{name: "length", kind: graph.AttrInt, i: e})
	delete(im.runTime, name)
	delete(im.bounds, name)
	delete(im.unbounded, name)
	// Its note as a run-time size no longer holds.
	notes := im.notes[:0]
	for _, n := range im.notes {
		if !strings.HasPrefix(n, "symbol "+name+" is a size ") {
			notes = append(notes, n)
		}
	}
	im.notes = append(notes, fmt.Sprintf("symbol %s, the length of a Range whose limit is computed from data, must equal %s for the model's shapes to agree: it is %s (the kernel refuses data that gives another length)", name, e, e))
	return true
}

// settingOp is the op whose "sets" sets symbol name, or nil.
func (im *importer) settingOp(name string) *docOp {
	var found *docOp
	find := func(o *docOp) {
		for _, s := range o.sets {
			if s.symbol == name {
				found = o
			}
		}
	}
	walkOps(im.doc.ops, find)
	for _, ops := range im.outer {
		walkOps(ops, find)
	}
	return found
}

// unifyCount makes a reshape's element counts agree, have (its input's) =
// want (its target's), where have is a*r for one run-time size r and want
// is a*e: r becomes e (unifyRunTime). The caller's shapes are substituted
// in place.
func (im *importer) unifyCount(have, want expr.Expr) bool {
	for _, s := range have.Symbols() {
		if _, rt := im.runTime[s]; !rt {
			continue
		}
		a, ok := expr.DivideMonomial(have, expr.Sym(s))
		if !ok || im.usesRunTime(a) || !expr.LessEq(expr.Const(1), a, im.bounds) {
			return false
		}
		e, ok := exactDiv(want, a)
		if !ok || !expr.Equal(expr.Mul(a, e), want) {
			return false
		}
		return im.unifyRunTime(expr.Sym(s), e, false)
	}
	return false
}

// unifyHint is what would let a broadcast of a and b unify a Range's
// run-time size with the other size: that size proven at least 2 (a
// -min), as text for the error; "" when that would not help.
func (im *importer) unifyHint(a, b expr.Expr) string {
	for _, p := range [][2]expr.Expr{{a, b}, {b, a}} {
		r, e := p[0], p[1]
		syms, esyms := r.Symbols(), e.Symbols()
		if len(syms) != 1 || !expr.Equal(r, expr.Sym(syms[0])) || len(esyms) != 1 || !expr.Equal(e, expr.Sym(esyms[0])) {
			continue
		}
		if op := im.settingOp(syms[0]); op == nil || op.kernel != "Range" || im.usesRunTime(e) {
			continue
		}
		return fmt.Sprintf(" (%s is the length of a Range whose limit is computed from data; with %s at least 2 the shapes would require it to equal %s: -min %s=2)", r, e, e, e)
	}
	return im.maxHint(a, b)
}

// maxHintScan bounds the values maxHint tries.
const maxHintScan = 1 << 16

// maxHint suggests a -max for the one symbol a and b depend on when they
// agree from its minimum up to some value and not beyond (a position
// table sliced to the sequence, min(512, seq) against seq: -max seq=512),
// "" otherwise. It is a suggestion: the import run with it proves or
// refuses the sizes again.
func (im *importer) maxHint(a, b expr.Expr) string {
	syms := expr.Sub(a, b).Symbols()
	if len(syms) != 1 || !im.symbols[syms[0]] || im.paramFor[syms[0]] == "" {
		return ""
	}
	s := syms[0]
	r := im.bounds[s]
	for v := max(r.Min, 1); v <= max(r.Min, 1)+maxHintScan && (r.Max < 0 || v <= r.Max); v++ {
		env := expr.Env{s: v}
		av, err1 := a.Eval(env)
		bv, err2 := b.Eval(env)
		if err1 != nil || err2 != nil {
			return ""
		}
		if av != bv {
			if v == max(r.Min, 1) {
				return ""
			}
			return fmt.Sprintf(" (they agree for %s up to %d: give -max %s=%d, on every command that reads the .onnx, or once to wrapgen import)", s, v-1, s, v-1)
		}
	}
	return ""
}
