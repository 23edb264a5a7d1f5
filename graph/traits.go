package graph

import (
	"fmt"
	"slices"
	"strconv"
)

// AliasPair says a kernel computes correctly when its output Out (an index
// into an op's outputs) occupies the same memory as its input In (an index
// into the op's inputs).
type AliasPair struct{ Out, In int }

// Traits is what the graph's top-level "kernels" object declares about one
// kernel name (see docs/kernel-traits.md).
type Traits struct {
	MayAlias []AliasPair // in file order, no duplicates
}

// MayAlias reports whether the graph declares that kernel's output out may
// share memory with its input in.
func (g *Graph) MayAlias(kernel string, out, in int) bool {
	return slices.Contains(g.Traits[kernel].MayAlias, AliasPair{out, in})
}

// decodeKernels reads the optional top-level "kernels" object. It runs after
// the ops are read: a trait must name a kernel some op calls, with indices
// every op calling it has.
func (d *decoder) decodeKernels(n *jsonNode) map[string]Traits {
	if n.kind != jsonObject {
		d.err(n, "kernels", "expected an object {\"kernel name\": {\"may_alias\": [[out, in], ...]}}, found %s", n.kind)
		return nil
	}
	// The fewest outputs and inputs of any op per kernel: an index must be
	// valid at every call (variadic kernels have fewer inputs at some).
	type arity struct{ outs, ins int }
	arities := map[string]arity{}
	Walk(d.g.Ops, func(op *Op, _ []*Op) {
		a, seen := arities[op.Kernel]
		if !seen {
			a = arity{len(op.Outputs), len(op.Inputs)}
		}
		arities[op.Kernel] = arity{min(a.outs, len(op.Outputs)), min(a.ins, len(op.Inputs))}
	})
	traits := map[string]Traits{}
	for mi := range n.kids {
		m := &n.kids[mi]
		place := fmt.Sprintf("kernels[%q]", m.key)
		a, called := arities[m.key]
		if !called {
			d.errAt(m.keyOff, place, "no op calls kernel %q", m.key)
			continue
		}
		if _, dup := traits[m.key]; dup {
			d.errAt(m.keyOff, place, "kernel %q is given twice", m.key)
			continue
		}
		f := d.fields(&m.val, place, "may_alias")
		if f == nil {
			continue
		}
		var tr Traits
		if pairs := f.get("may_alias"); pairs != nil {
			tr.MayAlias = d.aliasPairs(pairs, place+".may_alias", a.outs, a.ins)
		}
		traits[m.key] = tr
	}
	return traits
}

// aliasPairs reads a may_alias list: [output index, input index] pairs
// within the kernel's outputs and inputs, each given once.
func (d *decoder) aliasPairs(n *jsonNode, place string, outs, ins int) []AliasPair {
	if n.kind != jsonArray {
		d.err(n, place, "expected an array of [output index, input index] pairs, found %s", n.kind)
		return nil
	}
	var pairs []AliasPair
	for i := range n.kids {
		el := n.elem(i)
		p := place + "[" + strconv.Itoa(i) + "]"
		if el.kind != jsonArray || len(el.kids) != 2 {
			d.err(el, p, "expected a pair [output index, input index]")
			continue
		}
		out, okOut := d.int(el.elem(0), p+"[0]")
		in, okIn := d.int(el.elem(1), p+"[1]")
		if !okOut || !okIn {
			continue
		}
		switch {
		case out < 0 || out >= int64(outs):
			d.err(el.elem(0), p+"[0]", "output index %d is out of range: the kernel has %d outputs", out, outs)
		case in < 0 || in >= int64(ins):
			d.err(el.elem(1), p+"[1]", "input index %d is out of range: the kernel has %d inputs (the fewest of any call)", in, ins)
		case slices.Contains(pairs, AliasPair{int(out), int(in)}):
			d.err(el, p, "pair [%d, %d] is listed twice", out, in)
		default:
			pairs = append(pairs, AliasPair{int(out), int(in)})
		}
	}
	return pairs
}
