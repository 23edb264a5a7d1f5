package onnx

import (
	"fmt"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// ifNode imports an If. A condition known at import time (decided from
// constants and the symbols' ranges, as a scripted model's shape tests
// are) imports the branch taken in the If's place, its nodes named after
// the If (nodes[5].then_branch.node[2]), and each of the If's outputs is
// the branch's output (a view of it, or its known contents). A condition
// known only at run time runs both branches (predicatedIf).
func (im *importer) ifNode(at, place string, i int, n *nodeProto) error {
	if len(n.inputs) != 1 || n.inputs[0] == "" {
		return im.problem(place, "If takes one input, the condition")
	}
	cond := im.vals[n.inputs[0]]
	if cond == nil {
		return im.problem(place, "input 0 %q is not defined before this node (nodes must be in topological order)", n.inputs[0])
	}
	if !cond.known {
		return im.predicatedIf(at, place, i, n, cond)
	}
	if len(cond.ints) != 1 {
		return im.problem(place, "the condition %q has %d elements, want 1", cond.name, len(cond.ints))
	}
	c, ok := cond.ints[0].IsConst()
	if !ok {
		return im.problem(place, "unsupported: the condition %s depends on the symbols' values", cond.ints[0])
	}
	taken := "else_branch"
	if c != 0 {
		taken = "then_branch"
	}
	branch, err := im.importBranch(at, place, i, n, taken)
	if err != nil {
		return err
	}
	return im.eachIfOutput(place, n, func(k int, name string) error {
		src := im.vals[branch.outputs[k].name]
		v := &value{name: name, dtype: src.dtype, shape: src.shape, node: i,
			known: src.known, ints: src.ints, floats: src.floats, raw: src.raw, stored: src.stored}
		if err := im.checkInfo(v, place); err != nil {
			return err
		}
		im.vals[name] = v
		if v.known {
			return nil
		}
		if err := im.materialize(src, false); err != nil {
			return im.problem(place, "output %d: %v", k, err)
		}
		v.inDoc = true
		im.doc.tensors = append(im.doc.tensors, &docTensor{name: name, dtype: v.dtype, shape: v.shape, viewOf: src.name})
		return nil
	})
}

// eachIfOutput calls f for each output of the If that is not omitted,
// after checking that no earlier node defined it.
func (im *importer) eachIfOutput(place string, n *nodeProto, f func(k int, name string) error) error {
	for k, name := range n.outputs {
		if name == "" {
			continue
		}
		if im.vals[name] != nil {
			return im.problem(place, "output %d %q is defined twice", k, name)
		}
		if err := f(k, name); err != nil {
			return err
		}
	}
	return nil
}

// importBranch imports the If's branch attribute named taken (its
// initializers and nodes) and checks that it defines one output per
// output of the If.
func (im *importer) importBranch(at, place string, i int, n *nodeProto, taken string) (*graphProto, error) {
	var branch *graphProto
	for _, a := range n.attrs {
		if a.name == taken {
			branch = a.g
		}
	}
	if branch == nil {
		return nil, im.problem(place, "attribute %q (a graph) is required", taken)
	}
	if len(branch.outputs) != len(n.outputs) {
		return nil, im.problem(place, "%s has %d outputs, the If %d", taken, len(branch.outputs), len(n.outputs))
	}
	for k, t := range branch.initializers {
		if im.vals[t.name] != nil {
			return nil, im.problem(fmt.Sprintf("%s.%s.initializer[%d]", at, taken, k), "%q is defined twice", t.name)
		}
		v, err := tensorValue(t)
		if err != nil {
			return nil, im.problem(fmt.Sprintf("%s.%s.initializer[%d]", at, taken, k), "%v", err)
		}
		v.stored = true
		im.vals[t.name] = v
	}
	for j, bn := range branch.nodes {
		if err := im.nodeAt(fmt.Sprintf("%s.%s.node[%d]", at, taken, j), i, bn); err != nil {
			return nil, err
		}
	}
	for k, out := range branch.outputs {
		if n.outputs[k] != "" && im.vals[out.name] == nil {
			return nil, im.problem(place, "%s output %q is not defined in the branch", taken, out.name)
		}
	}
	return branch, nil
}

// Kernels of a predicated If: Choose copies input 1 (then) or input 2
// (else) into its output as input 0 (the condition, one bool) says.
// Where the branches' shapes differ, ChooseN reports the chosen sizes of
// the N axes attribute axes lists (run-time sizes, bounded by the larger
// branch) and writes the output row-major and contiguous at those sizes.
const chooseKernel = "Choose"

// predicatedIf imports an If whose condition is computed from tensor data:
// both branches run, and each output is chosen from the two after them
// (as TensorRT may run both sides of a conditional). An output whose size
// differs between the branches gets a run-time size per differing axis,
// at most the larger of the two. Running the branch not taken costs its
// time but changes nothing: ONNX branches have no effects beyond their
// outputs, and wrapgen's kernels accept any data (an empty input, a NaN),
// so they do not fail on the data the other branch was meant for.
func (im *importer) predicatedIf(at, place string, i int, n *nodeProto, cond *value) error {
	if cond.dtype != "bool" {
		return im.problem(place, "the condition %q has dtype %s, want bool", cond.name, cond.dtype)
	}
	if c, ok := product(cond.shape).IsConst(); !ok || c != 1 {
		return im.problem(place, "the condition %q has shape %s, want one element", cond.name, shapeText(cond.shape))
	}
	then, err := im.importBranch(at, place, i, n, "then_branch")
	if err != nil {
		return err
	}
	els, err := im.importBranch(at, place, i, n, "else_branch")
	if err != nil {
		return err
	}
	return im.eachIfOutput(place, n, func(k int, name string) error {
		t, e := im.vals[then.outputs[k].name], im.vals[els.outputs[k].name]
		if t.dtype != e.dtype {
			return im.problem(place, "output %d is %s in then_branch but %s in else_branch", k, t.dtype, e.dtype)
		}
		if len(t.shape) != len(e.shape) {
			return im.problem(place, "unsupported: output %d has rank %d in then_branch but %d in else_branch", k, len(t.shape), len(e.shape))
		}
		c := &nodeCtx{im: im, n: &nodeProto{opType: n.opType, name: n.name, outputs: []string{name}}, index: i,
			attrInputs: map[int]bool{}, kernel: chooseKernel, ins: []*value{cond, t, e}, outs: make([]*value, 1)}
		shape := append([]expr.Expr(nil), t.shape...)
		var axes []int64
		for d := range shape {
			if expr.Equal(t.shape[d], e.shape[d]) {
				continue
			}
			s, err := c.runTimeSize(expr.MaxIn(im.bounds, t.shape[d], e.shape[d]))
			if err != nil {
				return im.problem(place, "output %d: %v", k, err)
			}
			shape[d] = s
			axes = append(axes, int64(d))
		}
		if len(axes) > 0 {
			c.kernel = fmt.Sprintf("%s%d", chooseKernel, len(axes))
			c.emitInts("axes", axes)
		}
		c.setOut(0, t.dtype, shape)
		return im.finish(c, place)
	})
}
