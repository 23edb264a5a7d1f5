package graph

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// AliasPair says a kernel computes correctly when its output Out (an index
// into an op's outputs) occupies the same memory as its input In (an index
// into the op's inputs).
type AliasPair struct{ Out, In int }

// Traits is what the graph's top-level "kernels" object declares about one
// kernel name (see docs/kernel-traits.md).
type Traits struct {
	MayAlias []AliasPair // in file order, no duplicates
	// Fuse says the kernel set implements this fused kernel (one of
	// FusedKernels), so wrapgen may rewrite the ops it stands for into it
	// (package graph/fuse).
	Fuse bool
}

// FusedKernels are the kernels wrapgen's fusion rewrite (graph/fuse) calls,
// by name, with the most inputs a call has: a convolution or matrix product
// with its bias, residual sum and activation in one kernel. A graph's
// "kernels" object may declare them ("fuse": true) before any op calls
// them.
var FusedKernels = map[string]int{"FusedConv": 4, "FusedGemm": 4, "FusedMatMul": 4}

// Fuses reports whether the graph's kernels implement the fused kernel.
func (g *Graph) Fuses(kernel string) bool { return g.Traits[kernel].Fuse }

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
		f := d.fields(&m.val, place, "may_alias", "fuse")
		if f == nil {
			continue
		}
		var tr Traits
		if n := f.get("fuse"); n != nil {
			if n.kind != jsonBool {
				d.err(n, place+".fuse", "expected true or false, found %s", n.kind)
				continue
			}
			tr.Fuse = n.boolean
		}
		a, called := arities[m.key]
		most, fusable := FusedKernels[m.key]
		switch {
		case tr.Fuse && !fusable:
			d.errAt(m.keyOff, place+".fuse", "wrapgen fuses ops into FusedConv, FusedGemm and FusedMatMul only, not %q", m.key)
			continue
		case !called && tr.Fuse:
			// Declared for the rewrite to call: its indices are checked
			// against the kernel's largest call.
			a = arity{1, most}
		case !called:
			d.errAt(m.keyOff, place, "no op calls kernel %q", m.key)
			continue
		case fusable:
			// A fused kernel's trailing inputs are optional: a pair holds
			// at the calls that have its input.
			a.ins = most
		}
		if _, dup := traits[m.key]; dup {
			d.errAt(m.keyOff, place, "kernel %q is given twice", m.key)
			continue
		}
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

// AliasDoc is the sentence a generated Kernels method's doc adds about its
// may_alias pairs ("" when there are none), e.g. "; out0 may share memory
// with in0 or in1 (read those inputs before writing it)".
func (k *Kernel) AliasDoc() string {
	if len(k.MayAlias) == 0 {
		return ""
	}
	var b strings.Builder
	for out := 0; out < k.Outputs; out++ {
		var ins []string
		for _, p := range k.MayAlias {
			if p.Out == out {
				ins = append(ins, "in"+strconv.Itoa(p.In))
			}
		}
		if len(ins) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " out%d may share memory with %s", out, strings.Join(ins, " or "))
	}
	return ";" + b.String() + " (read those inputs before writing it)"
}
