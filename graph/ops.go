package graph

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// opLabel is how messages name an op: `ops[12] (kernel "conv2d")`.
func opLabel(place, kernel string) string {
	if kernel == "" {
		return place + " (loop)"
	}
	return fmt.Sprintf("%s (kernel %q)", place, kernel)
}

// Label names op in messages.
func (op *Op) Label() string { return opLabel(op.Place, op.Kernel) }

func (d *decoder) decodeOps(n *jsonNode, place string) []*Op {
	if n.kind != jsonArray {
		d.err(n, place, "expected an array of ops, found %s", n.kind)
		return nil
	}
	var ops []*Op
	for i := range n.kids {
		el := n.elem(i)
		p := place + "[" + strconv.Itoa(i) + "]"
		if op := d.decodeOp(el, p); op != nil {
			ops = append(ops, op)
		}
	}
	return ops
}

func (d *decoder) decodeOp(n *jsonNode, place string) *Op {
	f := d.fields(n, place, "kernel", "inputs", "outputs", "attrs", "inplace", "mutates", "sets", "loop")
	if f == nil {
		return nil
	}
	op := &Op{Place: place}
	d.opPos[op] = n.off
	if l := f.get("loop"); l != nil {
		for _, k := range []string{"kernel", "inputs", "outputs", "attrs", "inplace", "mutates", "sets"} {
			if f.get(k) != nil {
				d.err(f.get(k), place, "a loop op has only the field \"loop\", not %q", k)
			}
		}
		lf := d.fields(l, place+".loop", "count", "body")
		if lf == nil {
			return nil
		}
		op.Loop = &Loop{}
		if c := lf.get("count"); c == nil {
			d.err(l, place+".loop", "missing required field \"count\"")
		} else {
			op.Loop.Count, _ = d.expr(c, place+".loop.count")
		}
		if b := lf.get("body"); b == nil {
			d.err(l, place+".loop", "missing required field \"body\"")
		} else {
			op.Loop.Body = d.decodeOps(b, place+".loop.body")
		}
		return op
	}
	if k := f.get("kernel"); k == nil {
		d.err(n, place, "missing field \"kernel\" (or \"loop\")")
		return nil
	} else if s, ok := d.str(k, place+".kernel"); ok {
		if s == "" {
			d.err(k, place+".kernel", "kernel name is empty")
		}
		op.Kernel = s
	}
	// The op's label is made only for a problem (or for attributes, which
	// few ops have): a large graph has a hundred thousand ops.
	op.Inputs = d.opTensors(f.get("inputs"), op, "inputs")
	op.Outputs = d.opTensors(f.get("outputs"), op, "outputs")
	op.Mutates = d.opTensors(f.get("mutates"), op, "mutates")
	if a := f.get("attrs"); a != nil {
		op.Attrs = d.decodeAttrs(a, op.Label())
	}
	if ip := f.get("inplace"); ip != nil {
		op.Inplace = d.decodeInplace(ip, op)
	}
	if st := f.get("sets"); st != nil {
		op.Sets = d.decodeSets(st, op)
	}
	return op
}

// decodeSets reads an op's "sets": each run-time size it sets, from one
// of its outputs, an i64 scalar.
func (d *decoder) decodeSets(n *jsonNode, op *Op) []SymbolSet {
	if n.kind != jsonObject {
		d.err(n, op.Label(), "sets: expected an object of symbol: output, found %s", n.kind)
		return nil
	}
	var sets []SymbolSet
	for i := range n.kids {
		m := &n.kids[i]
		s := d.symbols[m.key]
		switch {
		case s == nil:
			d.errAt(m.keyOff, op.Label(), "sets: symbol %q is not declared under \"symbols\"", m.key)
			continue
		case !s.RunTime():
			d.errAt(m.keyOff, op.Label(), "sets: symbol %q has no \"bound\": only a run-time size is set by an op", m.key)
			continue
		case s.SetBy != nil:
			d.errAt(m.keyOff, op.Label(), "sets: symbol %q is set by %s already; one op sets each run-time size", m.key, s.SetBy.Place)
			continue
		}
		name, ok := d.str(&m.val, op.Label()+": sets."+m.key)
		if !ok {
			continue
		}
		var count *Tensor
		for _, t := range op.Outputs {
			if t.Name == name {
				count = t
			}
		}
		if count == nil {
			d.err(&m.val, op.Label(), "sets.%s: %q is not one of the op's outputs", m.key, name)
			continue
		}
		if count.DType != "i64" || len(count.Shape) != 0 || count.IsView() {
			d.err(&m.val, op.Label(), "sets.%s: output %q must be an i64 scalar of its own (shape [], no view), the size the kernel reports", m.key, name)
			continue
		}
		s.SetBy = op
		sets = append(sets, SymbolSet{Symbol: s, Count: count})
	}
	return sets
}

func (d *decoder) opTensors(n *jsonNode, op *Op, field string) []*Tensor {
	if n == nil {
		return nil
	}
	if n.kind != jsonArray {
		d.err(n, op.Label(), "%s: expected an array of tensor names, found %s", field, n.kind)
		return nil
	}
	out := make([]*Tensor, 0, len(n.kids))
	for i := range n.kids {
		el := n.elem(i)
		name := el.str
		if el.kind != jsonString {
			d.str(el, fmt.Sprintf("%s: %s[%d]", op.Label(), field, i)) // reports it
			continue
		}
		t := d.g.byName[name]
		if t == nil {
			d.err(el, op.Label(), "%s[%d]: tensor %q is not defined under \"tensors\"", field, i, name)
			continue
		}
		out = append(out, t)
	}
	return out
}

func (d *decoder) decodeAttrs(n *jsonNode, label string) []Attr {
	if n.kind != jsonObject {
		d.err(n, label, "attrs: expected an object, found %s", n.kind)
		return nil
	}
	var out []Attr
	for mi := range n.kids {
		m := &n.kids[mi]
		place := fmt.Sprintf("%s: attrs[%q]", label, m.key)
		a := Attr{Name: m.key}
		v := &m.val
		switch v.kind {
		case jsonNumber:
			if strings.ContainsAny(v.str, ".eE") {
				f, err := strconv.ParseFloat(v.str, 64)
				if err != nil {
					d.err(v, place, "float %s is out of range", v.str)
					continue
				}
				if f == 0 && !zeroText(v.str) {
					d.err(v, place, "float %s is too small for a float64 (it would become 0)", v.str)
					continue
				}
				a.Kind, a.Float = AttrFloat, f
			} else {
				i, ok := d.int(v, place)
				if !ok {
					continue
				}
				a.Kind, a.Int = AttrInt, expr.Const(i)
			}
		case jsonBool:
			a.Kind, a.Bool = AttrBool, v.boolean
		case jsonString:
			a.Kind, a.Str = AttrString, v.str
		case jsonObject:
			e, ok := d.exprObject(v, place)
			if !ok {
				continue
			}
			a.Kind, a.Int = AttrInt, e
		case jsonArray:
			a.Kind = AttrInts
			a.Ints = []expr.Expr{}
			for i := range v.kids {
				el := v.elem(i)
				p := fmt.Sprintf("%s[%d]", place, i)
				var e expr.Expr
				ok := false
				switch el.kind {
				case jsonNumber:
					var c int64
					c, ok = d.int(el, p)
					e = expr.Const(c)
				case jsonObject:
					e, ok = d.exprObject(el, p)
				default:
					d.err(el, p, "list entries must be integers or {\"expr\": ...}, found %s", el.kind)
				}
				if ok {
					a.Ints = append(a.Ints, e)
				}
			}
		default:
			d.err(v, place, "attribute values are integers, floats, booleans, strings, integer lists or {\"expr\": ...}; found %s", v.kind)
			continue
		}
		out = append(out, a)
	}
	return out
}

func (d *decoder) exprObject(n *jsonNode, place string) (expr.Expr, bool) {
	f := d.fields(n, place, "expr")
	if f == nil {
		return expr.Expr{}, false
	}
	if f.get("expr") == nil {
		d.err(n, place, "missing field \"expr\"")
		return expr.Expr{}, false
	}
	if f.get("expr").kind != jsonString {
		d.err(f.get("expr"), place, "expr: expected an expression string, found %s", f.get("expr").kind)
		return expr.Expr{}, false
	}
	return d.expr(f.get("expr"), place)
}

func (d *decoder) decodeInplace(n *jsonNode, op *Op) []Inplace {
	if n.kind != jsonObject {
		d.err(n, op.Label(), "inplace: expected an object {\"out\": \"in\"}, found %s", n.kind)
		return nil
	}
	var out []Inplace
	for mi := range n.kids {
		m := &n.kids[mi]
		place := func() string { return fmt.Sprintf("%s: inplace[%q]", op.Label(), m.key) }
		if m.val.kind != jsonString {
			d.str(&m.val, place()) // reports it
			continue
		}
		inName := m.val.str
		o, in := d.g.byName[m.key], d.g.byName[inName]
		switch {
		case o == nil || !contains(op.Outputs, o):
			d.errAt(m.keyOff, place(), "%q is not one of this op's outputs", m.key)
		case in == nil || !contains(op.Inputs, in):
			d.err(&m.val, place(), "%q is not one of this op's inputs", inName)
		case takenBy(out, in) != nil:
			// One storage cannot become two tensors that are both alive.
			d.err(&m.val, place(), "%q is already taken over by %q; each input can be taken over by one output only", inName, takenBy(out, in).Name)
		default:
			out = append(out, Inplace{Out: o, In: in})
		}
	}
	return out
}

// takenBy is the output that takes over in among pairs, or nil.
func takenBy(pairs []Inplace, in *Tensor) *Tensor {
	for _, p := range pairs {
		if p.In == in {
			return p.Out
		}
	}
	return nil
}

func contains(ts []*Tensor, t *Tensor) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// zeroText reports whether a JSON number's text is a zero (0, -0.0, 0e5),
// as opposed to a nonzero value that underflows.
func zeroText(s string) bool {
	mant, _, _ := strings.Cut(strings.ToLower(s), "e")
	return strings.Trim(mant, "-+0.") == ""
}
