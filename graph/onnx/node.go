package onnx

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// rule infers a node's outputs. It reads inputs and attributes through the
// context, sets every output (with contents when they are computed at import
// time), says which inputs are attributes rather than data, the attributes
// the kernel gets, and whether output 0 is a view of input 0.
type rule func(c *nodeCtx) error

// nodeCtx is one node being imported.
type nodeCtx struct {
	im    *importer
	n     *nodeProto
	index int
	ins   []*value // nil for an omitted optional input
	outs  []*value

	attrs      []docAttr    // passed to the kernel, in order
	attrInputs map[int]bool // inputs consumed as attributes
	view       bool         // output 0 may be a view of input 0
	kernel     string
	// runTime are the run-time sizes the node sets (runTimeSize): its
	// kernel reports each in an extra i64 scalar output, never folded.
	runTime []string
	// attrErr is the first attribute read with the wrong type (typedAttr).
	attrErr error
}

// unsupported is an error whose message the importer prefixes with
// "unsupported: ".
type unsupported struct{ msg string }

func (u *unsupported) Error() string { return "unsupported: " + u.msg }

func unsup(format string, args ...any) error { return &unsupported{fmt.Sprintf(format, args...)} }

func (im *importer) node(i int, n *nodeProto) error {
	return im.nodeAt(fmt.Sprintf("nodes[%d]", i), i, n)
}

// nodeAt imports node n, which at names in messages (nodes[3], or a
// branch's node inside an If).
func (im *importer) nodeAt(at string, i int, n *nodeProto) error {
	place := fmt.Sprintf("%s (op %q, name %q)", at, n.opType, n.name)
	if n.domain == "" {
		switch n.opType {
		case "If":
			return im.ifNode(at, place, i, n)
		case "Loop":
			return im.loopNode(at, place, i, n)
		case "Scan":
			return im.scanNode(at, place, i, n)
		}
	}
	if conv, ok := im.absorbed[n]; ok {
		// Folded into the Conv that computes conv: its output is that.
		im.vals[n.outputs[0]] = im.vals[conv]
		return nil
	}
	key := n.opType
	if n.domain != "" {
		key = n.domain + "." + n.opType
	}
	c := &nodeCtx{im: im, n: n, index: i, attrInputs: map[int]bool{}, kernel: key}
	for k, name := range n.inputs {
		if name == "" {
			c.ins = append(c.ins, nil)
			continue
		}
		v := im.vals[name]
		if v == nil {
			return im.problem(place, "input %d %q is not defined before this node (nodes must be in topological order)", k, name)
		}
		c.ins = append(c.ins, v)
	}
	c.outs = make([]*value, len(n.outputs))
	for k, name := range n.outputs {
		if name != "" && im.vals[name] != nil {
			return im.problem(place, "output %d %q is defined twice", k, name)
		}
	}
	for _, a := range n.attrs {
		if a.refAttr != "" {
			return im.problem(place, "unsupported: attribute %q refers to a function attribute", a.name)
		}
		if a.typ == attrGraph || a.typ == attrGraphs {
			return im.problem(place, "unsupported: control flow (attribute %q holds a subgraph)", a.name)
		}
		if a.typ == attrSparse || a.typ == attrSparses {
			return im.problem(place, "unsupported: sparse tensor attribute %q", a.name)
		}
	}
	if err := checkAttributes(n, im.opset); err != nil {
		return im.problem(place, "%v", err)
	}
	r := rules[key]
	if r == nil {
		if n.domain != "" {
			return im.problem(place, "unsupported: operator domain %q (wrapgen has shape rules for the default domain only)", n.domain)
		}
		return im.problem(place, "unsupported: no shape inference rule for this operator")
	}
	if err := checkInputs(n, key, im.opset); err != nil {
		return im.problem(place, "%v", err)
	}
	err := r(c)
	if c.attrErr != nil {
		// Before the rule's own error, which may come of the attribute
		// read as absent.
		return im.problem(place, "%v", c.attrErr)
	}
	if err != nil {
		return im.problem(place, "%v", err)
	}
	for k, name := range n.outputs {
		if name == "" {
			continue
		}
		if c.outs[k] == nil {
			return im.problem(place, "unsupported: output %d %q (optional output not produced by wrapgen)", k, name)
		}
	}
	im.foldBatchNorm(c)
	return im.finish(c, place)
}

// finish records a node's outputs and adds what the document needs: nothing
// for a node computed at import time, a view, or a kernel call.
func (im *importer) finish(c *nodeCtx, place string) error {
	im.foldFloatSizes(c)
	im.trackSizeExprs(c)
	allKnown := true
	overridable := readsOverridable(c)
	for k, v := range c.outs {
		if v == nil {
			continue
		}
		v.overridable = overridable
		v.name = c.n.outputs[k]
		v.node = c.index
		if err := im.checkInfo(v, place); err != nil {
			return err
		}
		im.vals[v.name] = v
		if v.known {
			if _, ok := concrete(v.shape); !ok {
				return im.problem(place, "internal: known value %q with a symbolic shape", v.name)
			}
		} else {
			allKnown = false
		}
	}
	if allKnown {
		return nil
	}
	im.trackBound(c)
	if !c.view && im.fold(c) {
		return nil
	}
	if c.view && len(c.outs) >= 1 && c.outs[0] != nil && !im.isOutput[c.outs[0].name] && c.ins[0].inDoc {
		out := c.outs[0]
		out.inDoc = true
		im.doc.tensors = append(im.doc.tensors, &docTensor{name: out.name, dtype: out.dtype, shape: out.shape, viewOf: c.ins[0].name})
		return nil
	}
	op := &docOp{kernel: c.kernel, attrs: c.attrs, inputs: []string{}}
	for k, v := range c.ins {
		if v == nil || c.attrInputs[k] {
			continue
		}
		if err := im.materialize(v, false); err != nil {
			return im.problem(place, "input %d: %v", k, err)
		}
		op.inputs = append(op.inputs, v.name)
	}
	for _, v := range c.outs {
		if v == nil {
			continue
		}
		v.inDoc = true
		v.known = false // its contents are computed by the kernel at run time
		im.doc.tensors = append(im.doc.tensors, &docTensor{name: v.name, dtype: v.dtype, shape: v.shape})
		op.outputs = append(op.outputs, v.name)
	}
	for _, sym := range c.runTime {
		count := im.countName(c)
		im.doc.tensors = append(im.doc.tensors, &docTensor{name: count, dtype: "i64", shape: []expr.Expr{}})
		op.outputs = append(op.outputs, count)
		op.sets = append(op.sets, docSet{symbol: sym, tensor: count})
	}
	im.doc.ops = append(im.doc.ops, op)
	return nil
}

// checkInfo compares an inferred value with the type the file declares for
// it (value_info or a graph output), if any.
func (im *importer) checkInfo(v *value, place string) error {
	vi := im.info[v.name]
	if vi == nil || vi.typ == nil || vi.typ.kind == "" {
		return nil
	}
	if vi.typ.kind != "tensor" {
		return im.problem(place, "unsupported: output %q is declared with a %s type", v.name, vi.typ.kind)
	}
	if vi.typ.elemType != 0 {
		d, err := dtypeOf(vi.typ.elemType)
		if err != nil {
			return im.problem(place, "unsupported: output %q: %v", v.name, err)
		}
		if d != v.dtype {
			return im.problem(place, "output %q is declared %s but inference gives %s", v.name, d, v.dtype)
		}
	}
	if !vi.typ.hasShape {
		return nil
	}
	if len(vi.typ.dims) != len(v.shape) {
		return im.problem(place, "output %q is declared with rank %d but inference gives shape %s", v.name, len(vi.typ.dims), shapeText(v.shape))
	}
	for k, d := range vi.typ.dims {
		got := v.shape[k]
		switch {
		case im.usesRunTime(got):
			// A size set by tensor data: what the file declares (often
			// the size for the data it was exported with) is no check.
		case d.hasValue:
			if c, ok := got.IsConst(); !ok || c != d.value {
				return im.problem(place, "output %q is declared with size %d at dimension %d but inference gives shape %s", v.name, d.value, k, shapeText(v.shape))
			}
		case d.param != "" && im.symbolFor[d.param] != "":
			if !expr.Equal(got, im.symbol(im.symbolFor[d.param])) {
				return im.problem(place, "output %q is declared with size %s at dimension %d but inference gives shape %s", v.name, d.param, k, shapeText(v.shape))
			}
		}
	}
	return nil
}

func shapeText(s []expr.Expr) string {
	out := "["
	for i, e := range s {
		if i > 0 {
			out += ", "
		}
		out += e.String()
	}
	return out + "]"
}

// Inputs.

func (c *nodeCtx) nIn() int { return len(c.ins) }

// input returns input i, which the operator requires: checkInputs has
// refused the node without it.
func (c *nodeCtx) input(i int) *value { return c.ins[i] }

// opt returns input i or nil when omitted.
func (c *nodeCtx) opt(i int) *value {
	if i >= len(c.ins) {
		return nil
	}
	return c.ins[i]
}

// intsInput returns the contents of input i, which must be known at import
// time (shape computations, axes…); the input becomes an attribute.
func (c *nodeCtx) intsInput(i int, what string) ([]expr.Expr, error) {
	v := c.input(i)
	if !v.known || v.ints == nil && len(v.floats) == 0 && !isIntDType(v.dtype) {
		return nil, neededAtImport(i, what, v)
	}
	c.attrInputs[i] = true
	if v.ints == nil && numelOf(v) > 0 {
		return nil, unsup("input %d (%s) is not an integer tensor", i, what)
	}
	return v.ints, nil
}

// neededAtImport is the error for input i, computed at run time, that the
// import needs: a graph input can be fixed from the command line.
func neededAtImport(i int, what string, v *value) error {
	if v.inexact != "" {
		return unsup("input %d (%s) %q is computed from tensor data at run time; wrapgen needs it at import time: it is computed in float arithmetic from sizes, and %s", i, what, v.name, v.inexact)
	}
	if v.node == -1 {
		return unsup("input %d (%s) %q is computed from tensor data at run time; wrapgen needs it at import time (it is a graph input: fix it with import -value %s=FILE)", i, what, v.name, v.name)
	}
	return unsup("input %d (%s) %q is computed from tensor data at run time; wrapgen needs it at import time", i, what, v.name)
}

func numelOf(v *value) int64 {
	s, ok := concrete(v.shape)
	if !ok {
		return -1
	}
	return numel(s)
}

// constInts is intsInput where every entry must be a constant.
func (c *nodeCtx) constInts(i int, what string) ([]int64, error) {
	es, err := c.intsInput(i, what)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(es))
	for k, e := range es {
		x, ok := e.IsConst()
		if !ok {
			return nil, unsup("input %d (%s) entry %d is %s, which must be a constant", i, what, k, e)
		}
		out[k] = x
	}
	return out, nil
}

// scalarFloat reads a known scalar input as a float (Clip bounds, Pad value).
func (c *nodeCtx) scalarFloat(i int, what string) (float64, bool, error) {
	v := c.opt(i)
	if v == nil {
		return 0, false, nil
	}
	if !v.known {
		return 0, false, neededAtImport(i, what, v)
	}
	c.attrInputs[i] = true
	switch {
	case len(v.floats) == 1:
		return v.floats[0], true, nil
	case len(v.ints) == 1:
		x, ok := v.ints[0].IsConst()
		if !ok {
			return 0, false, unsup("input %d (%s) is symbolic", i, what)
		}
		return float64(x), true, nil
	}
	return 0, false, unsup("input %d (%s) must be a known scalar", i, what)
}

// scalarAttr emits the float attribute name from input i: its value when
// known at import time (or def when omitted), else the input stays a
// kernel input, which the kernel reads at run time: a value that changes
// no shape (Clip's bounds, Pad's value) needs no import-time constant.
// name+"_from_input" says which.
func (c *nodeCtx) scalarAttr(i int, name string, def float64) error {
	v := c.opt(i)
	if v != nil && !v.known {
		if s, ok := concrete(v.shape); !ok || numel(s) != 1 {
			return fmt.Errorf("input %d (%s) %q must hold one value, not shape %s", i, name, v.name, shapeText(v.shape))
		}
		c.emitFloat(name, def)
		c.emitBool(name+"_from_input", true)
		return nil
	}
	if v != nil {
		x, ok, err := c.scalarFloat(i, name)
		if err != nil {
			return err
		}
		if ok {
			def = x
		}
	}
	c.emitFloat(name, def)
	c.emitBool(name+"_from_input", false)
	return nil
}

// Attributes. Each reader reads an attribute as one type; an attribute of
// another type (LeakyRelu's alpha given as an INT, Softmax's axis as a
// FLOAT) reads as absent and is recorded in c.attrErr, which refuses the
// node by the attribute's name once its rule returns. An attribute without
// a type (type 0, which IR version 1 allowed) is read as what the reader
// wants. An INT is not read as a FLOAT: onnx.checker refuses it too.

// attr is the node's attribute name of any type, for rules that only ask
// whether it is there.
func (c *nodeCtx) attr(name string) *attribute {
	for _, a := range c.n.attrs {
		if a.name == name {
			return a
		}
	}
	return nil
}

// typedAttr is the node's attribute name when it has type want, else nil
// (recording a mismatch in c.attrErr).
func (c *nodeCtx) typedAttr(name string, want int64) *attribute {
	a := c.attr(name)
	if a == nil || a.typ == want || a.typ == 0 {
		return a
	}
	if c.attrErr == nil {
		c.attrErr = fmt.Errorf("attribute %q has type %s; %s wants %s", name, attrTypeName(a.typ), c.n.opType, attrTypeName(want))
	}
	return nil
}

// attrTypeName is onnx.proto's name of an AttributeType.
func attrTypeName(t int64) string {
	names := [...]string{"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH", "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS", "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"}
	if t >= 0 && t < int64(len(names)) {
		return names[t]
	}
	return fmt.Sprintf("unknown type %d", t)
}

func (c *nodeCtx) attrInt(name string, def int64) int64 {
	if a := c.typedAttr(name, attrInt); a != nil {
		return a.i
	}
	return def
}

func (c *nodeCtx) attrFloat(name string, def float64) float64 {
	if a := c.typedAttr(name, attrFloat); a != nil {
		return a.f
	}
	return def
}

func (c *nodeCtx) attrString(name, def string) string {
	if a := c.typedAttr(name, attrString); a != nil {
		return string(a.s)
	}
	return def
}

func (c *nodeCtx) attrInts(name string) ([]int64, bool) {
	if a := c.typedAttr(name, attrInts); a != nil {
		return a.ints, true
	}
	return nil, false
}

// Emitted attributes.

func (c *nodeCtx) emitInt(name string, v int64) {
	c.attrs = append(c.attrs, docAttr{name: name, kind: graph.AttrInt, i: expr.Const(v)})
}

func (c *nodeCtx) emitExpr(name string, v expr.Expr) {
	c.attrs = append(c.attrs, docAttr{name: name, kind: graph.AttrInt, i: v})
}

func (c *nodeCtx) emitFloat(name string, v float64) {
	if math.IsInf(v, 1) {
		v = math.MaxFloat64
	} else if math.IsInf(v, -1) {
		v = -math.MaxFloat64
	} else if math.IsNaN(v) {
		v = 0
	}
	c.attrs = append(c.attrs, docAttr{name: name, kind: graph.AttrFloat, f: v})
}

func (c *nodeCtx) emitBool(name string, v bool) {
	c.attrs = append(c.attrs, docAttr{name: name, kind: graph.AttrBool, b: v})
}

func (c *nodeCtx) emitString(name, v string) {
	c.attrs = append(c.attrs, docAttr{name: name, kind: graph.AttrString, s: v})
}

func (c *nodeCtx) emitInts(name string, v []int64) {
	c.emitExprs(name, consts(v))
}

func (c *nodeCtx) emitExprs(name string, v []expr.Expr) {
	if v == nil {
		v = []expr.Expr{}
	}
	c.attrs = append(c.attrs, docAttr{name: name, kind: graph.AttrInts, ints: v})
}

// Outputs.

func (c *nodeCtx) setOut(i int, dtype graph.DType, shape []expr.Expr) *value {
	if i >= len(c.outs) || c.n.outputs[i] == "" {
		return &value{} // an omitted optional output: computed, then dropped
	}
	v := &value{dtype: dtype, shape: shape}
	c.outs[i] = v
	return v
}

// setKnown sets output i to a value known at import time, and returns it.
func (c *nodeCtx) setKnown(i int, dtype graph.DType, shape []int64, ints []expr.Expr, floats []float64) *value {
	v := c.setOut(i, dtype, consts(shape))
	v.known, v.ints, v.floats = true, ints, floats
	return v
}

// normAxis turns a possibly negative axis into 0..rank-1; the error names
// the axis as the model gives it.
func normAxis(axis int64, rank int) (int, error) {
	a := axis
	if a < 0 {
		a += int64(rank)
	}
	if a < 0 || a >= int64(rank) {
		return 0, fmt.Errorf("axis %d is out of range for rank %d (want %d to %d)", axis, rank, -rank, rank-1)
	}
	return int(a), nil
}
