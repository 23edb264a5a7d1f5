package graph

import (
	"errors"
	"fmt"
	"slices"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// programChecker follows the ops in order and checks definitions and uses,
// writes, in-place takeovers, loop scopes and kernel signatures.
//
// Per-tensor state is kept in slices indexed by Tensor.Index.
type programChecker struct {
	d         *decoder
	isDefined []bool
	definedBy []*Op     // op that defined the tensor (nil for inputs)
	defOrder  []*Tensor // tensors in the order defined, to forget a loop body's
	consumed  []*Op     // in-place inputs → the op that took them over
	scopedTo  []*Op     // body tensors gone after their loop → the loop
	defLoop   []*Op     // innermost loop around the definition (nil: top level)
	sigs      map[string]*signature
	loops     []*Op
	// set holds the run-time sizes set by the ops seen so far.
	set map[*Symbol]bool
	// anyRunTime says whether the graph has a run-time size at all: most
	// have none, and then no layout need be searched for one.
	anyRunTime bool
}

type signature struct {
	first   *Op
	outputs int
	inputs  int
	attrs   []Attr
}

func (d *decoder) checkProgram(root *jsonNode) {
	g := d.g
	n := len(g.Tensors)
	c := &programChecker{d: d, isDefined: make([]bool, n), definedBy: make([]*Op, n), consumed: make([]*Op, n),
		scopedTo: make([]*Op, n), defLoop: make([]*Op, n), sigs: map[string]*signature{}, set: map[*Symbol]bool{}}
	for _, s := range g.Symbols {
		c.anyRunTime = c.anyRunTime || s.RunTime()
		if s.RunTime() && s.SetBy == nil {
			d.err(root, "symbols", "symbol %q has a bound but no op sets it (an op's \"sets\")", s.Name)
		}
	}
	for _, ts := range [][]*Tensor{g.Inputs, g.Params} {
		for _, t := range ts {
			if s := c.runTimeSymbol(t); s != nil {
				d.err(root, "inputs", "%q has a size set at run time (%s): inputs and params are laid out before any op runs", t.Name, s.Name)
			}
		}
	}
	for _, t := range g.Inputs {
		t.Input = true
		if t.IsView() {
			d.err(root, "inputs", "input %q is a view; inputs own their storage (pass the base instead)", t.Name)
		}
		c.define(t, nil)
	}
	for _, t := range g.Params {
		switch {
		case t.Input:
			d.err(root, "params", "%q is both an input and a param", t.Name)
		case t.IsView():
			d.err(root, "params", "param %q is a view; params own their storage (pass the base instead)", t.Name)
		case t.Data != nil:
			d.err(root, "params", "param %q has inline data: a constant is not a param (drop one of the two)", t.Name)
		}
		for _, s := range t.Shape {
			if _, ok := s.IsConst(); !ok {
				d.err(root, "params", "param %q has shape dimension %s: a param's shape is fixed (it is checked once, before any symbol is known)", t.Name, s)
				break
			}
		}
		t.Param = true
		c.define(t, nil)
	}
	for _, t := range g.Tensors {
		if t.Data == nil {
			continue
		}
		if t.Input {
			d.err(root, "inputs", "input %q has inline data: a constant is not an input", t.Name)
		}
		g.Constants = append(g.Constants, t)
		if !t.Param {
			c.define(t, nil)
		}
	}
	for _, t := range g.Outputs {
		t.Output = true
		if t.Param || t.Data != nil {
			d.err(root, "outputs", "output %q is a %s; the wrapper returns only what its ops compute (copy it with an op)", t.Name, t.Role())
		}
	}
	c.ops(g.Ops)
	for _, t := range g.Outputs {
		if c.available(t) {
			continue
		}
		if loop := c.scopedTo[t.Index]; loop != nil {
			d.err(root, "outputs", "output %q is defined only inside the loop at %s; define outputs outside loops", t.Name, loop.Place)
		} else {
			d.err(root, "outputs", "output %q is never defined by any op", t.Name)
		}
	}
}

func (c *programChecker) ops(ops []*Op) {
	for _, op := range ops {
		if op.Loop != nil {
			c.loop(op)
			continue
		}
		c.kernel(op)
	}
}

func (c *programChecker) errOp(op *Op, format string, args ...any) {
	c.d.errAt(c.d.opPos[op], op.Label(), format, args...)
}

func (c *programChecker) loop(op *Op) {
	for _, env := range c.d.sampleEnvs() {
		if v, err := op.Loop.Count.Eval(env); err != nil || v < 0 {
			c.errOp(op, "loop count %s must be a non-negative int64 (at %s)", op.Loop.Count, envText(env))
			break
		}
	}
	before := len(c.defOrder)
	c.loops = append(c.loops, op)
	c.ops(op.Loop.Body)
	c.loops = c.loops[:len(c.loops)-1]
	// Tensors defined in the body exist only within it.
	for _, t := range c.defOrder[before:] {
		c.isDefined[t.Index], c.definedBy[t.Index] = false, nil
		c.scopedTo[t.Index] = op
	}
	c.defOrder = c.defOrder[:before]
}

func (c *programChecker) define(t *Tensor, by *Op) {
	c.isDefined[t.Index], c.definedBy[t.Index] = true, by
	c.defOrder = append(c.defOrder, t)
}

// available reports whether t can be read now: it, or (for a view) the
// storage it views, has been defined.
func (c *programChecker) available(t *Tensor) bool {
	for v := t; v != nil; v = v.ViewOf {
		if c.isDefined[v.Index] {
			return true
		}
	}
	return false
}

func (c *programChecker) useError(op *Op, field string, t *Tensor) {
	if loop := c.scopedTo[t.Index]; loop != nil {
		c.errOp(op, "%s %q is defined inside the loop at %s and is not visible after it", field, t.Name, loop.Place)
		return
	}
	c.errOp(op, "%s %q is used before it is defined", field, t.Name)
}

// layoutExprs are the expressions t's layout is made of: its shape,
// strides and offset, and those of the tensors it views.
func layoutExprs(t *Tensor) []expr.Expr {
	var es []expr.Expr
	for v := t; v != nil; v = v.ViewOf {
		es = append(append(append(es, v.Offset), v.Shape...), v.Strides...)
	}
	return es
}

// runTimeSize is the first run-time size es use that ready does not
// accept, or nil.
func (c *programChecker) runTimeSize(es []expr.Expr, ready func(*Symbol) bool) *Symbol {
	if !c.anyRunTime {
		return nil
	}
	for _, e := range es {
		for _, name := range e.Symbols() {
			if s := c.d.symbols[name]; s != nil && s.RunTime() && !ready(s) {
				return s
			}
		}
	}
	return nil
}

// runTimeSymbol is a run-time size t's layout uses, or nil.
func (c *programChecker) runTimeSymbol(t *Tensor) *Symbol {
	return c.runTimeSize(layoutExprs(t), func(*Symbol) bool { return false })
}

// checkRunTimeSizes refuses an op touching a tensor shaped by a run-time
// size, or an attribute using one, that no op before it (or, for an
// output, the op itself) sets.
func (c *programChecker) checkRunTimeSizes(op *Op) {
	if !c.anyRunTime {
		return
	}
	setHere := map[*Symbol]bool{}
	for _, ss := range op.Sets {
		setHere[ss.Symbol] = true
	}
	// A size no op sets was reported with the symbols.
	before := func(s *Symbol) bool { return c.set[s] || s.SetBy == nil }
	for _, group := range []struct {
		what string
		ts   []*Tensor
	}{{"input", op.Inputs}, {"mutates", op.Mutates}, {"output", op.Outputs}} {
		ready := before
		if group.what == "output" {
			ready = func(s *Symbol) bool { return before(s) || setHere[s] }
		}
		for _, t := range group.ts {
			if s := c.runTimeSize(layoutExprs(t), ready); s != nil {
				c.errOp(op, "%s %q is shaped by %s, which is set at run time by %s, not before this op", group.what, t.Name, s.Name, s.SetBy.Place)
				return
			}
		}
	}
	for _, a := range op.Attrs {
		if s := c.runTimeSize(append([]expr.Expr{a.Int}, a.Ints...), before); s != nil {
			c.errOp(op, "attribute %q uses %s, which is set at run time by %s, not before this op", a.Name, s.Name, s.SetBy.Place)
			return
		}
	}
	for s := range setHere {
		c.set[s] = true
	}
}

func (c *programChecker) kernel(op *Op) {
	c.checkSignature(op)
	c.checkRunTimeSizes(op)
	for _, t := range op.Inputs {
		if by := c.consumed[t.Index]; by != nil {
			c.errOp(op, "input %q was taken over in place by %s and cannot be read afterwards", t.Name, by.Label())
		} else if !c.available(t) {
			c.useError(op, "input", t)
		}
	}
	for _, t := range op.Mutates {
		switch {
		case t.Root != nil && t.Root.External():
			c.errOp(op, "mutates %q, which is (a view of) %s %q; the wrapper never writes inputs, params or constants", t.Name, t.Root.Role(), t.Root.Name)
		case c.consumed[t.Index] != nil:
			c.errOp(op, "mutates %q, which was taken over in place by %s", t.Name, c.consumed[t.Index].Label())
		case !c.available(t):
			c.useError(op, "mutated tensor", t)
		}
	}
	for i, t := range op.Outputs {
		switch {
		case slices.Contains(op.Outputs[:i], t):
			c.errOp(op, "output %q is listed twice", t.Name)
			continue
		case t.External():
			c.errOp(op, "writes %s %q; the wrapper never writes inputs, params or constants", t.Role(), t.Name)
			continue
		case t.Root != nil && t.Root.External():
			c.errOp(op, "output %q is a view of %s %q; the wrapper never writes inputs, params or constants", t.Name, t.Root.Role(), t.Root.Name)
			continue
		}
		if c.isDefined[t.Index] {
			c.errOp(op, "tensor %q is defined twice (already by %s)", t.Name, labelOf(c.definedBy[t.Index]))
			continue
		}
		c.checkOutputView(op, i, t)
		c.define(t, op)
		c.defLoop[t.Index] = c.innermostLoop()
		// Writing into a view fills part of its base, which counts as
		// defined from here on (ops that build a tensor slice by slice).
		for v := t.ViewOf; v != nil; v = v.ViewOf {
			if !c.isDefined[v.Index] {
				c.define(v, op)
			}
		}
	}
	for _, ip := range op.Inplace {
		c.checkInplace(op, ip)
	}
}

// checkOutputView refuses an output that is a view of one of the same
// op's inputs: the kernel would write memory it is still reading, unless
// its may_alias declares the pair and the view is exactly the input's
// memory (its start, dtype, shape and strides).
func (c *programChecker) checkOutputView(op *Op, outIdx int, out *Tensor) {
	for j, t := range op.Inputs {
		within := false
		for v := out.ViewOf; v != nil && !within; v = v.ViewOf {
			within = v == t
		}
		if !within {
			continue
		}
		if c.d.g.MayAlias(op.Kernel, outIdx, j) && sameMemory(out, t) {
			continue
		}
		c.errOp(op, "output %q is a view of its own input %q: the kernel would write memory it still reads (write a new tensor, or declare the pair in the kernel's may_alias with the view exactly the input's layout)", out.Name, t.Name)
		return
	}
}

// sameMemory reports whether a and b are the same elements of one
// storage: one start in it, one dtype, shape and strides.
func sameMemory(a, b *Tensor) bool {
	if a.Root != b.Root || a.DType != b.DType || len(a.Shape) != len(b.Shape) || !expr.Equal(viewStart(a), viewStart(b)) {
		return false
	}
	for i := range a.Shape {
		if !expr.Equal(a.Shape[i], b.Shape[i]) || !expr.Equal(a.Strides[i], b.Strides[i]) {
			return false
		}
	}
	return true
}

// viewStart is where t begins in its root's storage, in elements.
func viewStart(t *Tensor) expr.Expr {
	off := expr.Const(0)
	for ; t.ViewOf != nil; t = t.ViewOf {
		off = expr.Add(off, t.Offset)
	}
	return off
}

func (c *programChecker) checkInplace(op *Op, ip Inplace) {
	in, out := ip.In, ip.Out
	switch {
	case in.External():
		c.errOp(op, "inplace %q takes over %s %q; the wrapper never writes inputs, params or constants", out.Name, in.Role(), in.Name)
	case in.Output:
		c.errOp(op, "inplace %q takes over graph output %q, which must stay intact", out.Name, in.Name)
	case in.IsView():
		c.errOp(op, "inplace %q takes over %q, which is a view; only a tensor with its own storage can be taken over", out.Name, in.Name)
	case out.IsView():
		c.errOp(op, "inplace output %q is a view; it must be a tensor that would own a storage", out.Name)
	case in.DType != out.DType:
		c.errOp(op, "inplace %q (%s) and %q (%s) differ in dtype", out.Name, out.DType, in.Name, in.DType)
	case in.Device != out.Device:
		c.errOp(op, "inplace %q (%s) and %q (%s) differ in device", out.Name, out.Device, in.Name, in.Device)
	case c.definedOutsideLoop(in):
		c.errOp(op, "inplace takes over %q, defined outside the enclosing loop; a later iteration would read it after the takeover", in.Name)
	default:
		c.checkFits(op, out, in)
		c.consumed[in.Index] = op
	}
}

func (c *programChecker) innermostLoop() *Op {
	if len(c.loops) == 0 {
		return nil
	}
	return c.loops[len(c.loops)-1]
}

// definedOutsideLoop reports whether t was defined outside the innermost
// loop being checked (tensors of deeper loops are out of scope by now).
func (c *programChecker) definedOutsideLoop(t *Tensor) bool {
	return len(c.loops) > 0 && c.defLoop[t.Index] != c.innermostLoop()
}

// checkFits reports an in-place output whose storage may not fit its input's.
func (c *programChecker) checkFits(op *Op, out, in *Tensor) {
	ob, ib := out.StorageBytes(), in.StorageBytes()
	if c.d.lessEq(ob, ib) {
		return
	}
	c.d.decideFact(factCheck{expr.Sub(ib, ob), c.d.opPos[op], op.Label(), fmt.Sprintf("inplace %q fits in %q", out.Name, in.Name),
		func(_ int64, err error, env expr.Env) string {
			o, err1 := ob.Eval(env)
			i, err2 := ib.Eval(env)
			if err = errors.Join(err, err1, err2); err != nil {
				return fmt.Sprintf("inplace %q over %q: sizes %s and %s: %v%s", out.Name, in.Name, ob, ib, err, atText(env))
			}
			return fmt.Sprintf("inplace %q needs %d bytes but %q has only %d%s", out.Name, o, in.Name, i, atText(env))
		}})
}

func (c *programChecker) checkSignature(op *Op) {
	s := c.sigs[op.Kernel]
	if s == nil {
		c.sigs[op.Kernel] = &signature{first: op, outputs: len(op.Outputs), inputs: len(op.Inputs), attrs: op.Attrs}
		return
	}
	if len(op.Outputs) != s.outputs {
		c.errOp(op, "has %d outputs but %s has %d; ops with one kernel name share one signature", len(op.Outputs), s.first.Label(), s.outputs)
	}
	if len(op.Attrs) != len(s.attrs) {
		c.errOp(op, "has attributes %s but %s has %s; ops with one kernel name share one signature", attrsText(op.Attrs), s.first.Label(), attrsText(s.attrs))
		return
	}
	for i, a := range op.Attrs {
		b := s.attrs[i]
		if a.Name != b.Name || a.Kind != b.Kind {
			c.errOp(op, "has attributes %s but %s has %s; ops with one kernel name share one signature", attrsText(op.Attrs), s.first.Label(), attrsText(s.attrs))
			return
		}
	}
}

func attrsText(as []Attr) string {
	s := "("
	for i, a := range as {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %s", a.Name, a.Kind)
	}
	return s + ")"
}

// labelOf names the op that defined a tensor; nil means the graph's inputs.
func labelOf(op *Op) string {
	if op == nil {
		return "the graph's inputs"
	}
	return op.Label()
}
