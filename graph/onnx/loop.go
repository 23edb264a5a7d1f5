package onnx

import (
	"fmt"
	"slices"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// Loop and Scan import as format-v1 loops, whose count is known before
// they start (a constant or an expression of the symbols) and whose body
// has no index. What an ONNX body reads from outside the format gives it
// is made explicit:
//   - each loop-carried value is a tensor defined before the loop (a copy
//     of its initial value, named as the node's output) that the body
//     reads and, at its end, overwrites with the new value ("Assign");
//   - the iteration number, when the body uses it, is an i64 counter set
//     to 0 before the loop and incremented at the end of the body;
//   - a scan output is defined before the loop (zeros, the loop may run no
//     iteration) and each iteration writes its slice at the counter
//     ("AssignSlice"); a Scan's scan inputs are read the same way
//     ("Gather" at the counter).
// A body whose values change shape across iterations, or a Loop that may
// stop early (a condition computed at run time), is refused.

// Kernels the importer adds for loops. Neither is an ONNX operator.
const (
	// assignKernel copies input 0 into the tensor the op mutates, of the
	// same dtype and shape.
	assignKernel = "Assign"
	// assignSliceKernel copies input 0 into index input 1 (an i64 scalar)
	// along attribute axis of the tensor it mutates.
	assignSliceKernel = "AssignSlice"
)

// loopBody is a loop being imported: what is defined before it, and its
// body's ops while they are imported.
type loopBody struct {
	im     *importer
	at     string // the node's place prefix, for the body's nodes
	place  string
	node   int
	count  expr.Expr
	g      *graphProto // the body
	prefix string      // names the tensors the importer adds
	// carried are the loop-carried tensors, which become the node's first
	// outputs.
	carried []*value
	// counter is the iteration number (an i64 scalar tensor), nil when no
	// one reads it.
	counter *value
	// reversed is count-1-counter, for reversed scan directions.
	reversed *value
	// scans are the scan output tensors, defined before the loop.
	scans []*value
	// skip are the body's nodes not imported: an accumulator's Concat
	// and Casts, which its scan output replaces.
	skip map[int]bool
}

func (im *importer) loopNode(at, place string, i int, n *nodeProto) error {
	if err := im.checkControlFlow(place, n); err != nil {
		return err
	}
	body := graphAttribute(n, "body")
	if body == nil {
		return im.problem(place, "attribute \"body\" (a graph) is required")
	}
	if len(n.inputs) < 2 {
		return im.problem(place, "Loop takes a trip count M, a condition and the loop-carried values; got %d inputs", len(n.inputs))
	}
	nCarried := len(n.inputs) - 2
	if len(body.inputs) != nCarried+2 {
		return im.problem(place, "the body takes %d inputs; the Loop gives it %d (iteration number, condition, %d loop-carried values)", len(body.inputs), nCarried+2, nCarried)
	}
	if len(body.outputs) < nCarried+1 {
		return im.problem(place, "the body returns %d values; the Loop needs the condition and %d loop-carried values", len(body.outputs), nCarried)
	}
	nScan := len(body.outputs) - 1 - nCarried
	if len(n.outputs) > nCarried+nScan {
		return im.problem(place, "the Loop has %d outputs; its body gives %d loop-carried values and %d scan outputs", len(n.outputs), nCarried, nScan)
	}
	if n.inputs[0] == "" {
		return im.problem(place, "unsupported: no trip count M: the loop runs while its condition holds, which only the data decides")
	}
	count, err := im.knownScalar(place, n.inputs[0], "trip count M")
	if err != nil {
		return err
	}
	if n.inputs[1] != "" {
		c, err := im.knownScalar(place, n.inputs[1], "condition")
		if err != nil {
			return err
		}
		if v, ok := c.IsConst(); !ok {
			return im.problem(place, "unsupported: the condition %s depends on the symbols' values", c)
		} else if v == 0 {
			count = expr.Const(0)
		}
	}
	if err := im.atLeast(count, 0, "trip count"); err != nil {
		return im.problem(place, "%v", err)
	}
	lb := &loopBody{im: im, at: at + ".body", place: place, node: i, count: count, g: body, prefix: loopPrefix(n), skip: map[int]bool{}}
	accs := im.findAccumulators(n, body)
	var inits, initOuts []string
	var kept []int // the carried values that stay carried
	var scans []scanOut
	for k := range nCarried {
		out := ""
		if k < len(n.outputs) {
			out = n.outputs[k]
		}
		if a, ok := accs[k]; ok {
			scans = append(scans, scanOut{name: a.slice, output: out, row: true})
			for j := range a.skip {
				lb.skip[j] = true
			}
			continue
		}
		kept = append(kept, k)
		inits, initOuts = append(inits, n.inputs[2+k]), append(initOuts, out)
	}
	if err := lb.defineCarried(inits, initOuts); err != nil {
		return err
	}
	if nScan > 0 || len(accs) > 0 || usesName(body, body.inputs[0].name) {
		lb.defineCounter()
	}
	lb.enter()
	if lb.counter != nil {
		lb.bind(body.inputs[0].name, lb.counter)
	}
	lb.bind(body.inputs[1].name, &value{dtype: "bool", known: true, ints: []expr.Expr{expr.Const(1)}})
	for i, c := range lb.carried {
		lb.bind(body.inputs[2+kept[i]].name, c)
	}
	if err := lb.importNodes(); err != nil {
		lb.leave()
		return err
	}
	cond := im.vals[body.outputs[0].name]
	if cond == nil {
		lb.leave()
		return im.problem(place, "the body's condition output %q is not defined in the body", body.outputs[0].name)
	}
	if cond.dtype != "bool" || len(cond.shape) > 1 {
		// Likely outputs in another order: say which order Loop wants.
		lb.leave()
		return im.problem(place, "the body's first output %q is %s %s, not the bool condition: a Loop body returns the condition, then the %d loop-carried values, then the scan outputs", cond.name, cond.dtype, shapeText(cond.shape), nCarried)
	}
	if !cond.known || len(cond.ints) != 1 {
		lb.leave()
		return im.problem(place, "unsupported: the body's condition output %q is computed at run time, so the loop may stop early; wrapgen imports loops whose count is known before they start", cond.name)
	}
	if v, ok := cond.ints[0].IsConst(); !ok || v == 0 {
		lb.leave()
		return im.problem(place, "unsupported: the body's condition output %q may be false, so the loop may stop early; wrapgen imports loops whose count is known before they start", cond.name)
	}
	for k := range nScan {
		s := scanOut{name: body.outputs[1+nCarried+k].name, axis: 0}
		if o := 1 + nCarried + k; o-1 < len(n.outputs) {
			s.output = n.outputs[o-1]
		}
		scans = append(scans, s)
	}
	var outs []*valueInfo
	for _, k := range kept {
		outs = append(outs, body.outputs[1+k])
	}
	return lb.finish(outs, scans)
}

func (im *importer) scanNode(at, place string, i int, n *nodeProto) error {
	if err := im.checkControlFlow(place, n); err != nil {
		return err
	}
	if im.opset < 9 {
		return im.problem(place, "unsupported: Scan before opset 9 (with sequence_lens and a batch axis)")
	}
	body := graphAttribute(n, "body")
	if body == nil {
		return im.problem(place, "attribute \"body\" (a graph) is required")
	}
	a := &nodeCtx{im: im, n: n} // its attribute readers
	nIn := int(a.attrInt("num_scan_inputs", 0))
	if a.attrErr != nil {
		return im.problem(place, "%v", a.attrErr)
	}
	if nIn < 1 || nIn > len(n.inputs) {
		return im.problem(place, "num_scan_inputs %d is not between 1 and the number of inputs, %d", nIn, len(n.inputs))
	}
	nState := len(n.inputs) - nIn
	if len(body.inputs) != nState+nIn {
		return im.problem(place, "the body takes %d inputs; the Scan gives it %d (%d states, %d scan inputs)", len(body.inputs), nState+nIn, nState, nIn)
	}
	if len(body.outputs) < nState {
		return im.problem(place, "the body returns %d values; the Scan has %d states", len(body.outputs), nState)
	}
	nScan := len(body.outputs) - nState
	if len(n.outputs) > nState+nScan {
		return im.problem(place, "the Scan has %d outputs; its body gives %d states and %d scan outputs", len(n.outputs), nState, nScan)
	}
	list := func(name string, size int) ([]int64, error) {
		v, given := a.attrInts(name)
		if !given {
			return make([]int64, size), nil
		}
		if len(v) != size {
			return nil, fmt.Errorf("attribute %q has %d entries for %d values", name, len(v), size)
		}
		return v, nil
	}
	inAxes, err := list("scan_input_axes", nIn)
	if err == nil {
		var inDirs, outAxes, outDirs []int64
		if inDirs, err = list("scan_input_directions", nIn); err == nil {
			if outAxes, err = list("scan_output_axes", nScan); err == nil {
				outDirs, err = list("scan_output_directions", nScan)
			}
		}
		if err == nil && a.attrErr == nil {
			return im.scanLoop(at, place, i, n, body, nState, inAxes, inDirs, outAxes, outDirs)
		}
	}
	if a.attrErr != nil {
		err = a.attrErr
	}
	return im.problem(place, "%v", err)
}

func (im *importer) scanLoop(at, place string, i int, n *nodeProto, body *graphProto, nState int, inAxes, inDirs, outAxes, outDirs []int64) error {
	nIn := len(n.inputs) - nState
	xs := make([]*value, nIn)
	axes := make([]int, nIn)
	var count expr.Expr
	for j := range xs {
		name := n.inputs[nState+j]
		x := im.vals[name]
		if x == nil {
			return im.problem(place, "input %d %q is not defined before this node (nodes must be in topological order)", nState+j, name)
		}
		axis, err := normAxis(inAxes[j], len(x.shape))
		if err != nil {
			return im.problem(place, "scan input %d: %v", j, err)
		}
		xs[j], axes[j] = x, axis
		if j == 0 {
			count = x.shape[axis]
		} else if !expr.Equal(count, x.shape[axis]) {
			return im.problem(place, "scan input %d has %s iterations along axis %d, scan input 0 has %s", j, x.shape[axis], axis, count)
		}
	}
	lb := &loopBody{im: im, at: at + ".body", place: place, node: i, count: count, g: body, prefix: loopPrefix(n)}
	inits := make([]string, nState)
	copy(inits, n.inputs[:nState])
	if err := lb.defineCarried(inits, n.outputs); err != nil {
		return err
	}
	lb.defineCounter()
	if slices.Contains(inDirs, 1) || slices.Contains(outDirs, 1) {
		lb.wantReversed()
	}
	lb.enter()
	for k, c := range lb.carried {
		lb.bind(body.inputs[k].name, c)
	}
	for j, x := range xs {
		if err := im.materialize(x, false); err != nil {
			lb.leave()
			return im.problem(place, "scan input %d: %v", j, err)
		}
		at := lb.counter
		if inDirs[j] == 1 {
			at = lb.reversed
		}
		shape := slices.Delete(slices.Clone(x.shape), axes[j], axes[j]+1)
		slice := &value{name: body.inputs[nState+j].name, dtype: x.dtype, shape: shape}
		if im.vals[slice.name] != nil {
			lb.leave()
			return im.problem(place, "the body's input %q is defined twice", slice.name)
		}
		lb.define(slice, &docOp{kernel: "Gather", inputs: []string{x.name, at.name}, outputs: []string{slice.name},
			attrs: []docAttr{{name: "axis", kind: graph.AttrInt, i: expr.Const(int64(axes[j]))}}})
	}
	if err := lb.importNodes(); err != nil {
		lb.leave()
		return err
	}
	scans := make([]scanOut, len(body.outputs)-nState)
	for k := range scans {
		scans[k] = scanOut{name: body.outputs[nState+k].name, axis: outAxes[k], reversed: outDirs[k] == 1}
		if o := nState + k; o < len(n.outputs) {
			scans[k].output = n.outputs[o]
		}
	}
	return lb.finish(body.outputs[:nState], scans)
}

// scanOut is a body output stacked along axis (negative: from the end of
// the stacked shape) into the node's output.
type scanOut struct {
	name     string // in the body
	output   string // the node's output; "" when not produced
	axis     int64
	reversed bool
	// row: the body output has one row, which is the slice (a carried
	// accumulator, accumulate.go).
	row bool
}

// checkControlFlow checks a Loop's or Scan's own attributes and that its
// outputs are new.
func (im *importer) checkControlFlow(place string, n *nodeProto) error {
	if err := checkAttributes(n, im.opset); err != nil {
		return im.problem(place, "%v", err)
	}
	for k, name := range n.outputs {
		if name != "" && im.vals[name] != nil {
			return im.problem(place, "output %d %q is defined twice", k, name)
		}
	}
	return nil
}

// knownScalar is the value of a one-element integer input known at import
// time.
func (im *importer) knownScalar(place, name, what string) (expr.Expr, error) {
	v := im.vals[name]
	if v == nil {
		return expr.Expr{}, im.problem(place, "input %q is not defined before this node (nodes must be in topological order)", name)
	}
	if !v.known || len(v.ints) != 1 {
		return expr.Expr{}, im.problem(place, "unsupported: the %s %q is computed from tensor data at run time; wrapgen imports loops whose count is known before they start", what, name)
	}
	return v.ints[0], nil
}

func graphAttribute(n *nodeProto, name string) *graphProto {
	for _, a := range n.attrs {
		if a.name == name && a.typ == attrGraph {
			return a.g
		}
	}
	return nil
}

// loopPrefix names the tensors the importer adds for a loop after the
// node (its name, else its first output).
func loopPrefix(n *nodeProto) string {
	if n.name != "" {
		return n.name
	}
	if o := firstOutput(n); o != "" {
		return o
	}
	return n.opType
}

// usesName reports whether any node of g, or of a graph nested in one,
// reads name, or g returns it.
func usesName(g *graphProto, name string) bool {
	used := slices.ContainsFunc(g.outputs, func(o *valueInfo) bool { return o.name == name })
	eachNode(g, func(n *nodeProto) { used = used || slices.Contains(n.inputs, name) })
	return used
}

// defineCarried defines, before the loop, a tensor for each loop-carried
// value holding a copy of its initial value, named as the node's output
// that returns it.
func (lb *loopBody) defineCarried(inits, outputs []string) error {
	im := lb.im
	for k, name := range inits {
		init := im.vals[name]
		if name == "" || init == nil {
			return im.problem(lb.place, "loop-carried value %d: initial value %q is not defined before this node", k, name)
		}
		if err := im.materialize(init, false); err != nil {
			return im.problem(lb.place, "loop-carried value %d: %v", k, err)
		}
		out := ""
		if k < len(outputs) {
			out = outputs[k]
		}
		if out == "" {
			out = im.fresh(fmt.Sprintf("%s.carried%d", lb.prefix, k))
		}
		c := &value{name: out, dtype: init.dtype, shape: init.shape, node: lb.node}
		lb.define(c, &docOp{kernel: "Identity", inputs: []string{init.name}, outputs: []string{out}})
		lb.carried = append(lb.carried, c)
	}
	return nil
}

// defineCounter defines the iteration counter, 0 before the loop.
func (lb *loopBody) defineCounter() {
	name := lb.im.fresh(lb.prefix + ".iteration")
	lb.counter = &value{name: name, dtype: "i64", shape: []expr.Expr{}, node: lb.node}
	lb.define(lb.counter, &docOp{kernel: "Constant", outputs: []string{name},
		attrs: []docAttr{{name: "value", kind: graph.AttrInts, ints: []expr.Expr{expr.Const(0)}}}})
}

// wantReversed names count-1-counter, the index of a reversed scan
// direction, which enter computes at the start of the body.
func (lb *loopBody) wantReversed() {
	name := lb.im.fresh(lb.prefix + ".reversed")
	lb.reversed = &value{name: name, dtype: "i64", shape: []expr.Expr{}, node: lb.node}
}

// define adds v to the document as the output of op, appended to the ops
// being imported (the body's once enter has run).
func (lb *loopBody) define(v *value, op *docOp) {
	v.inDoc = true
	lb.im.doc.tensors = append(lb.im.doc.tensors, &docTensor{name: v.name, dtype: v.dtype, shape: v.shape})
	lb.im.doc.ops = append(lb.im.doc.ops, op)
	lb.im.vals[v.name] = v
}

// enter starts the body: ops go to its list from now on, the reversed
// index first when a direction needs it.
func (lb *loopBody) enter() {
	im := lb.im
	im.outer = append(im.outer, im.doc.ops)
	im.doc.ops = nil
	if lb.reversed != nil {
		last := &value{name: im.fresh(lb.prefix + ".last"), dtype: "i64", shape: []expr.Expr{}, known: true,
			ints: []expr.Expr{expr.Sub(lb.count, expr.Const(1))}, node: lb.node}
		im.vals[last.name] = last
		_ = im.materialize(last, false) // an i64 scalar always materializes
		lb.define(lb.reversed, &docOp{kernel: "Sub", inputs: []string{last.name, lb.counter.name}, outputs: []string{lb.reversed.name}})
	}
}

// leave ends the body and returns its ops.
func (lb *loopBody) leave() []*docOp {
	im := lb.im
	body := im.doc.ops
	im.doc.ops = im.outer[len(im.outer)-1]
	im.outer = im.outer[:len(im.outer)-1]
	return body
}

// bind makes a body input name v: reading it reads v's tensor.
func (lb *loopBody) bind(name string, v *value) {
	b := *v
	lb.im.vals[name] = &b
}

func (lb *loopBody) importNodes() error {
	im := lb.im
	for k, t := range lb.g.initializers {
		v, err := tensorValue(t)
		if err != nil {
			return im.problem(fmt.Sprintf("%s.initializer[%d]", lb.at, k), "%v", err)
		}
		v.stored = true
		im.vals[t.name] = v
	}
	for j, n := range lb.g.nodes {
		if lb.skip[j] {
			continue
		}
		if err := im.nodeAt(fmt.Sprintf("%s.node[%d]", lb.at, j), lb.node, n); err != nil {
			return err
		}
	}
	return nil
}

// finish ends the body: the loop-carried values take their new values
// (outs, by body output name), each scan output gets its slice, the
// counter steps; then it adds the scan outputs' definitions and the loop
// to the ops before it, and defines the node's outputs.
func (lb *loopBody) finish(outs []*valueInfo, scans []scanOut) error {
	im := lb.im
	fail := func(format string, args ...any) error {
		lb.leave()
		return im.problem(lb.place, format, args...)
	}
	isCarried := map[string]bool{}
	for _, c := range lb.carried {
		isCarried[c.name] = true
	}
	// Each new value is read before any carried tensor is written: one
	// that is (a view of) a carried tensor is copied first.
	srcs := make([]string, len(outs))
	for k, o := range outs {
		v := im.vals[o.name]
		c := lb.carried[k]
		if v == nil {
			return fail("the body's output %q is not defined in the body", o.name)
		}
		if v.dtype != c.dtype || !sameShape(v.shape, c.shape) {
			return fail("unsupported: loop-carried value %d changes from %s %s to %s %s in an iteration; wrapgen imports loops whose values keep their shapes", k, c.dtype, shapeText(c.shape), v.dtype, shapeText(v.shape))
		}
		if v.name == c.name {
			continue // unchanged
		}
		if err := im.materialize(v, false); err != nil {
			return fail("loop-carried value %d: %v", k, err)
		}
		srcs[k] = v.name
		if isCarried[v.name] || im.isView(v.name) {
			cp := &value{name: im.fresh(c.name + ".next"), dtype: v.dtype, shape: v.shape, node: lb.node}
			lb.define(cp, &docOp{kernel: "Identity", inputs: []string{v.name}, outputs: []string{cp.name}})
			srcs[k] = cp.name
		}
	}
	for k, src := range srcs {
		if src != "" {
			im.doc.ops = append(im.doc.ops, &docOp{kernel: assignKernel, inputs: []string{src}, outputs: []string{}, mutates: []string{lb.carried[k].name}})
		}
	}
	var defs []*value
	for k, s := range scans {
		v := im.vals[s.name]
		if v == nil {
			return fail("the body's output %q is not defined in the body", s.name)
		}
		if s.row {
			if !rowsOf(v) {
				return fail("unsupported: the loop-carried value %q grows by %s, not one row, in an iteration", s.output, shapeText(v.shape))
			}
			if err := im.materialize(v, false); err != nil {
				return fail("scan output %d: %v", k, err)
			}
			v = lb.sliceRow(v)
			s.name = v.name
		}
		axis, err := normAxis(s.axis, len(v.shape)+1)
		if err != nil {
			return fail("scan output %d: %v", k, err)
		}
		for _, d := range v.shape {
			if im.usesRunTime(d) {
				return fail("unsupported: scan output %d has shape %s, set by tensor data in each iteration: its slices may differ in size", k, shapeText(v.shape))
			}
		}
		if err := im.materialize(v, false); err != nil {
			return fail("scan output %d: %v", k, err)
		}
		name := s.output
		if name == "" {
			name = im.fresh(fmt.Sprintf("%s.scan%d", lb.prefix, k))
		}
		shape := slices.Insert(slices.Clone(v.shape), axis, lb.count)
		out := &value{name: name, dtype: v.dtype, shape: shape, node: lb.node}
		defs = append(defs, out)
		at := lb.counter
		if s.reversed {
			at = lb.reversed
		}
		im.doc.ops = append(im.doc.ops, &docOp{kernel: assignSliceKernel, inputs: []string{v.name, at.name}, outputs: []string{},
			mutates: []string{name}, attrs: []docAttr{{name: "axis", kind: graph.AttrInt, i: expr.Const(int64(axis))}}})
	}
	if lb.counter != nil {
		one := &value{name: im.fresh(lb.prefix + ".one"), dtype: "i64", shape: []expr.Expr{}, known: true,
			ints: []expr.Expr{expr.Const(1)}}
		im.vals[one.name] = one
		if err := im.materialize(one, false); err != nil {
			return fail("%v", err)
		}
		next := &value{name: im.fresh(lb.counter.name + ".next"), dtype: "i64", shape: []expr.Expr{}, node: lb.node}
		lb.define(next, &docOp{kernel: "Add", inputs: []string{lb.counter.name, one.name}, outputs: []string{next.name}})
		im.doc.ops = append(im.doc.ops, &docOp{kernel: assignKernel, inputs: []string{next.name}, outputs: []string{}, mutates: []string{lb.counter.name}})
	}
	body := lb.leave()
	for _, d := range defs {
		lb.define(d, &docOp{kernel: "ConstantOfShape", inputs: []string{}, outputs: []string{d.name},
			attrs: []docAttr{{name: "shape", kind: graph.AttrInts, ints: d.shape}, {name: "value", kind: graph.AttrFloat}}})
	}
	im.doc.ops = append(im.doc.ops, &docOp{loop: &docLoop{count: lb.count, body: body}})
	// The node's outputs: the carried tensors' last values, the scans.
	for _, v := range slices.Concat(lb.carried, defs) {
		if err := im.checkInfo(v, lb.place); err != nil {
			return err
		}
		im.vals[v.name] = v
	}
	return nil
}

// isView reports whether the document defines name as a view.
func (im *importer) isView(name string) bool {
	for _, t := range im.doc.tensors {
		if t.name == name {
			return t.viewOf != ""
		}
	}
	return false
}

func sameShape(a, b []expr.Expr) bool {
	return slices.EqualFunc(a, b, expr.Equal)
}
