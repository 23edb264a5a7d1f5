package onnx

import (
	"github.com/wrapgen/wrapgen/graph/expr"
)

// A loop-carried value that starts empty and grows by one slice per
// iteration, x = torch.cat([x, t]) (Keypoint R-CNN's keypoints, one
// detection's per iteration), changes shape across iterations, which a
// format-v1 loop cannot carry. It is the stack of the slices t, a scan
// output: the importer recognizes the pattern in the body (the carried
// value read only through Casts to its own dtype into the Concat that
// makes its next value, along axis 0, from an initial value with 0 rows)
// and imports the carried value as a scan output of t's one row.

// accumulator is a loop-carried value imported as a scan output.
type accumulator struct {
	slice string       // the body value appended each iteration, 1 row
	skip  map[int]bool // the body nodes the scan replaces: the Casts and the Concat
}

// findAccumulators finds the loop-carried values of a Loop node n (with
// body) that accumulate as described above, by carried index.
func (im *importer) findAccumulators(n *nodeProto, body *graphProto) map[int]accumulator {
	producer := map[string]int{}
	uses := map[string]int{}
	for j, b := range body.nodes {
		for _, o := range b.outputs {
			producer[o] = j
		}
		for _, in := range b.inputs {
			uses[in]++
		}
	}
	for _, o := range body.outputs {
		uses[o.name]++
	}
	out := map[int]accumulator{}
	for k, init := range n.inputs[2:] {
		v := im.vals[init]
		if v == nil || len(v.shape) == 0 {
			continue
		}
		if rows, ok := v.shape[0].IsConst(); !ok || rows != 0 {
			continue
		}
		in, next := body.inputs[2+k].name, body.outputs[1+k].name
		j, ok := producer[next]
		if !ok || uses[next] != 1 {
			continue
		}
		cat := body.nodes[j]
		if cat.opType != "Concat" || cat.domain != "" || len(cat.inputs) != 2 || concatAxis(cat) != 0 {
			continue
		}
		skip := map[int]bool{j: true}
		// The first input is the carried value, through Casts.
		name := cat.inputs[0]
		for name != in {
			p, ok := producer[name]
			if !ok || uses[name] != 1 {
				break
			}
			b := body.nodes[p]
			if b.opType != "Cast" || b.domain != "" || len(b.inputs) != 1 || castTo(b) != string(v.dtype) {
				break
			}
			skip[p] = true
			name = b.inputs[0]
		}
		if name != in || uses[in] != 1 {
			continue
		}
		out[k] = accumulator{slice: cat.inputs[1], skip: skip}
	}
	return out
}

func concatAxis(n *nodeProto) int64 {
	for _, a := range n.attrs {
		if a.name == "axis" && a.typ == attrInt {
			return a.i
		}
	}
	return -1
}

// castTo is a Cast node's target dtype ("" when not one wrapgen has).
func castTo(n *nodeProto) string {
	for _, a := range n.attrs {
		if a.name == "to" && a.typ == attrInt {
			d, err := dtypeOf(a.i)
			if err != nil {
				return ""
			}
			return string(d)
		}
	}
	return ""
}

// rowsOf is true when v has one row (its slice for an accumulator).
func rowsOf(v *value) bool {
	if len(v.shape) == 0 {
		return false
	}
	r, ok := v.shape[0].IsConst()
	return ok && r == 1
}

// sliceRow is v's one row as a view without the leading axis, the slice
// an accumulator's scan output stores.
func (lb *loopBody) sliceRow(v *value) *value {
	im := lb.im
	row := &value{name: im.fresh(v.name + ".row"), dtype: v.dtype, shape: append([]expr.Expr{}, v.shape[1:]...), node: lb.node, inDoc: true}
	im.doc.tensors = append(im.doc.tensors, &docTensor{name: row.name, dtype: row.dtype, shape: row.shape, viewOf: v.name})
	im.vals[row.name] = row
	return row
}
