package onnx

import (
	"fmt"
)

// ifNode imports an If whose condition is known at import time (decided
// from constants and the symbols' ranges, as a scripted model's shape
// tests are): the branch taken is imported in its place, its nodes named
// after the If (nodes[5].then_branch.node[2]), and each of the If's
// outputs is the branch's output (a view of it, or its known contents).
// A condition known only at run time is refused: format v1 has no
// branches.
func (im *importer) ifNode(at, place string, i int, n *nodeProto) error {
	if len(n.inputs) != 1 || n.inputs[0] == "" {
		return im.problem(place, "If takes one input, the condition")
	}
	cond := im.vals[n.inputs[0]]
	if cond == nil {
		return im.problem(place, "input 0 %q is not defined before this node (nodes must be in topological order)", n.inputs[0])
	}
	taken := ""
	if !cond.known || len(cond.ints) != 1 {
		return im.problem(place, "unsupported: input 0 (cond) %q is computed from tensor data at run time; wrapgen imports an If whose condition is known at import time", cond.name)
	}
	c, ok := cond.ints[0].IsConst()
	if !ok {
		return im.problem(place, "unsupported: the condition %s depends on the symbols' values", cond.ints[0])
	}
	taken = "else_branch"
	if c != 0 {
		taken = "then_branch"
	}
	var branch *graphProto
	for _, a := range n.attrs {
		if a.name == taken {
			branch = a.g
		}
	}
	if branch == nil {
		return im.problem(place, "attribute %q (a graph) is required", taken)
	}
	if len(branch.outputs) != len(n.outputs) {
		return im.problem(place, "%s has %d outputs, the If %d", taken, len(branch.outputs), len(n.outputs))
	}
	for k, t := range branch.initializers {
		v, err := tensorValue(t)
		if err != nil {
			return im.problem(fmt.Sprintf("%s.%s.initializer[%d]", at, taken, k), "%v", err)
		}
		v.stored = true
		im.vals[t.name] = v
	}
	for j, bn := range branch.nodes {
		if err := im.nodeAt(fmt.Sprintf("%s.%s.node[%d]", at, taken, j), i, bn); err != nil {
			return err
		}
	}
	for k, name := range n.outputs {
		if name == "" {
			continue
		}
		if im.vals[name] != nil {
			return im.problem(place, "output %d %q is defined twice", k, name)
		}
		src := im.vals[branch.outputs[k].name]
		if src == nil {
			return im.problem(place, "%s output %q is not defined in the branch", taken, branch.outputs[k].name)
		}
		v := &value{name: name, dtype: src.dtype, shape: src.shape, node: i,
			known: src.known, ints: src.ints, floats: src.floats, raw: src.raw, stored: src.stored}
		if err := im.checkInfo(v, place); err != nil {
			return err
		}
		im.vals[name] = v
		if v.known {
			continue
		}
		if err := im.materialize(src, false); err != nil {
			return im.problem(place, "output %d: %v", k, err)
		}
		v.inDoc = true
		im.doc.tensors = append(im.doc.tensors, &docTensor{name: name, dtype: v.dtype, shape: v.shape, viewOf: src.name})
	}
	return nil
}
