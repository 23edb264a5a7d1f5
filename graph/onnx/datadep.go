package onnx

import (
	"fmt"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// Operators whose output size depends on tensor data (NonZero, Compress,
// Unique, NonMaxSuppression) import with a run-time size: a symbol their
// kernel sets when it runs, between 0 and a bound the importer derives
// from the input shapes (format v1 "bound", and the op's "sets"). Their
// outputs are laid out at the bound; the kernel writes them compactly at
// the size it finds and reports that size in an extra i64 scalar output,
// the op's last.

// runTimeSize declares that some of the node's output sizes depend on its
// input data: a new symbol, <op type>_<n>, that the node's kernel sets
// when it runs, at most bound. It returns the symbol, to use in the
// outputs' shapes.
func (c *nodeCtx) runTimeSize(bound expr.Expr) (expr.Expr, error) {
	im := c.im
	b, err := im.givenBound(bound)
	if err != nil {
		return expr.Expr{}, err
	}
	if !expr.NonNeg(b, im.bounds) {
		return expr.Expr{}, unsup("the bound %s of the output size may be negative", b)
	}
	name := im.nextRunTimeName(strings.ToLower(c.n.opType))
	im.symbols[name] = true
	im.runTime[name] = b
	r := expr.Range{Min: 0, Max: -1}
	if hi, ok := expr.UpperBound(b, im.bounds); ok {
		r.Max = hi
	}
	im.bounds[name] = r
	im.doc.symbols = append(im.doc.symbols, docSymbol{name: name, max: -1, bound: &b})
	im.notes = append(im.notes, fmt.Sprintf("symbol %s is a size %s sets at run time from tensor data (output %q), at most %s", name, c.n.opType, firstOutput(c.n), b))
	c.runTime = append(c.runTime, name)
	return expr.Sym(name), nil
}

// nextRunTimeName is the name the next run-time size of an op of type op
// (lower case) gets: <op>_<n>, new.
func (im *importer) nextRunTimeName(op string) string {
	base := symbolName(op)
	for k := 1; ; k++ {
		name := fmt.Sprintf("%s_%d", base, k)
		if !im.symbols[name] && im.paramFor[name] == "" && !im.isParam(name) {
			return name
		}
	}
}

// givenBound is an upper bound of e over the symbols the caller gives:
// each run-time size s that e uses is replaced by its bound b, provided e
// does not decrease as s grows (proven from e's structure, or as
// e(b) - e(b - t) >= 0 for every t >= 0).
func (im *importer) givenBound(e expr.Expr) (expr.Expr, error) {
	for _, s := range e.Symbols() {
		b, ok := im.runTime[s]
		if !ok {
			continue
		}
		slack := "slack"
		for k := 2; im.symbols[slack]; k++ {
			slack = fmt.Sprintf("slack_%d", k)
		}
		at := expr.Substitute(e, s, b)
		below := expr.Substitute(e, s, expr.Sub(b, expr.Sym(slack)))
		if !expr.NonDecreasing(e, s, im.bounds) && !expr.NonNeg(expr.Sub(at, below), im.bounds) {
			return expr.Expr{}, unsup("the output size is at most %s, which depends on %s, a size set at run time, in a way wrapgen cannot bound", e, s)
		}
		e = at
	}
	return e, nil
}

// usesRunTime reports whether e depends on a run-time size.
func (im *importer) usesRunTime(e expr.Expr) bool {
	for _, s := range e.Symbols() {
		if _, ok := im.runTime[s]; ok {
			return true
		}
	}
	return false
}

// countName names the output in which c's kernel reports a run-time size:
// <first output>.count, unless the model has that name.
func (im *importer) countName(c *nodeCtx) string {
	return im.fresh(firstOutput(c.n) + ".count")
}

func product(shape []expr.Expr) expr.Expr {
	return expr.Mul(append([]expr.Expr{expr.Const(1)}, shape...)...)
}

// valueDType reports whether the reference kernels read values of d
// (NonZero's test against zero, Unique's order).
func valueDType(d graph.DType) bool {
	switch d {
	case "c64", "c128", "f8e4m3fn", "f8e5m2":
		return false
	}
	return true
}

// nonZero: the indices of X's nonzero elements, one column per element in
// row-major order: [rank(X), nz], nz at most X's element count.
func nonZero(c *nodeCtx) error {
	x := c.input(0)
	if !valueDType(x.dtype) {
		return unsup("NonZero of dtype %s", x.dtype)
	}
	nz, err := c.runTimeSize(product(x.shape))
	if err != nil {
		return err
	}
	c.setOut(0, "i64", []expr.Expr{expr.Const(int64(len(x.shape))), nz})
	return nil
}

// compress: the slices along axis (without one, the elements of the
// flattened input) whose entry of condition is true; condition may be
// shorter than the axis (entries beyond it are false) or longer (entries
// beyond the axis are ignored). Attribute has_axis says whether the node
// has an axis (so that every Compress call has the same attributes).
func compress(c *nodeCtx) error {
	x := c.input(0)
	cond := c.input(1)
	if cond.dtype != "bool" {
		return fmt.Errorf("condition has dtype %s, want bool", cond.dtype)
	}
	if len(cond.shape) != 1 {
		return fmt.Errorf("condition has shape %s, want rank 1", shapeText(cond.shape))
	}
	if a := c.typedAttr("axis", attrInt); a != nil {
		axis, err := normAxis(a.i, len(x.shape))
		if err != nil {
			return err
		}
		k, err := c.runTimeSize(expr.Min(x.shape[axis], cond.shape[0]))
		if err != nil {
			return err
		}
		shape := append([]expr.Expr{}, x.shape...)
		shape[axis] = k
		c.emitInt("axis", int64(axis))
		c.emitBool("has_axis", true)
		c.setOut(0, x.dtype, shape)
		return nil
	}
	k, err := c.runTimeSize(expr.Min(product(x.shape), cond.shape[0]))
	if err != nil {
		return err
	}
	c.emitInt("axis", 0)
	c.emitBool("has_axis", false)
	c.setOut(0, x.dtype, []expr.Expr{k})
	return nil
}

// unique: the distinct values of X (flattened), or its distinct slices
// along axis, u of them, sorted or in order of first occurrence; then
// each one's first index, each element's (or slice's) index in Y, and
// each one's count. The kernel is told which outputs are present
// ("outputs": 1 or 0 per ONNX slot) and whether the node has an axis
// (has_axis).
func unique(c *nodeCtx) error {
	x := c.input(0)
	if !valueDType(x.dtype) {
		return unsup("Unique of dtype %s", x.dtype)
	}
	sorted := c.attrInt("sorted", 1)
	var y []expr.Expr
	var n expr.Expr // elements or slices of X
	axis := -1
	if a := c.typedAttr("axis", attrInt); a != nil {
		var err error
		if axis, err = normAxis(a.i, len(x.shape)); err != nil {
			return err
		}
		n = x.shape[axis]
	} else {
		n = product(x.shape)
	}
	u, err := c.runTimeSize(n)
	if err != nil {
		return err
	}
	if axis >= 0 {
		y = append([]expr.Expr{}, x.shape...)
		y[axis] = u
	} else {
		y = []expr.Expr{u}
	}
	present := []int64{0, 0, 0, 0}
	for k := range present {
		if k < len(c.n.outputs) && c.n.outputs[k] != "" {
			present[k] = 1
		}
	}
	c.emitInt("sorted", sorted)
	c.emitInt("axis", int64(max(axis, 0)))
	c.emitBool("has_axis", axis >= 0)
	c.emitInts("outputs", present)
	c.setOut(0, x.dtype, y)
	c.setOut(1, "i64", []expr.Expr{u})
	c.setOut(2, "i64", []expr.Expr{n})
	c.setOut(3, "i64", []expr.Expr{u})
	return nil
}

// nonMaxSuppression: boxes [B, N, 4], scores [B, C, N]; selected_indices
// [k, 3] (batch, class, box), k at most B*C*min(N, max_output_boxes_per_class)
// when that input is known at import time, else B*C*N. Each optional
// scalar input is an attribute when known at import time, else a kernel
// input after boxes and scores, in order (<name>_from_input says which);
// has_score_threshold says whether scores are filtered.
func nonMaxSuppression(c *nodeCtx) error {
	boxes := c.input(0)
	scores := c.input(1)
	if len(boxes.shape) != 3 || len(scores.shape) != 3 {
		return fmt.Errorf("boxes %s and scores %s: want [num_batches, spatial_dimension, 4] and [num_batches, num_classes, spatial_dimension]", shapeText(boxes.shape), shapeText(scores.shape))
	}
	if d, ok := boxes.shape[2].IsConst(); !ok || d != 4 {
		return fmt.Errorf("boxes %s: the last dimension must be 4", shapeText(boxes.shape))
	}
	for _, p := range [][2]expr.Expr{{boxes.shape[0], scores.shape[0]}, {boxes.shape[1], scores.shape[2]}} {
		// Sizes that may differ (two symbols) are checked by the kernel.
		a, aok := p[0].IsConst()
		b, bok := p[1].IsConst()
		if aok && bok && a != b {
			return fmt.Errorf("boxes %s and scores %s disagree on the batches or the boxes", shapeText(boxes.shape), shapeText(scores.shape))
		}
	}
	for _, v := range []*value{boxes, scores} {
		if v.dtype != "f32" {
			return unsup("NonMaxSuppression of dtype %s (ONNX allows f32)", v.dtype)
		}
	}
	cpb := c.attrInt("center_point_box", 0)
	if cpb != 0 && cpb != 1 {
		return fmt.Errorf("center_point_box is %d, want 0 or 1", cpb)
	}
	b, n, classes := boxes.shape[0], boxes.shape[1], scores.shape[1]
	c.emitInt("center_point_box", cpb)
	perClass := n
	switch m := c.opt(2); {
	case m == nil: // no output
		perClass = expr.Const(0)
		c.emitInt("max_output_boxes_per_class", 0)
		c.emitBool("max_output_boxes_per_class_from_input", false)
	case m.known:
		ms, err := c.intsInput(2, "max_output_boxes_per_class")
		if err != nil {
			return err
		}
		if len(ms) != 1 {
			return fmt.Errorf("max_output_boxes_per_class holds %d values, want 1", len(ms))
		}
		most := ms[0]
		if v, ok := most.IsConst(); ok && v < 0 {
			most = expr.Const(0)
		}
		if !expr.NonNeg(most, c.im.bounds) {
			return unsup("max_output_boxes_per_class %s may be negative", most)
		}
		perClass = expr.Min(n, most)
		c.emitExpr("max_output_boxes_per_class", most)
		c.emitBool("max_output_boxes_per_class_from_input", false)
	default:
		if s, ok := concrete(m.shape); !ok || numel(s) != 1 {
			return fmt.Errorf("input 2 (max_output_boxes_per_class) %q must hold one value, not shape %s", m.name, shapeText(m.shape))
		}
		c.emitInt("max_output_boxes_per_class", 0)
		c.emitBool("max_output_boxes_per_class_from_input", true)
	}
	if err := c.scalarAttr(3, "iou_threshold", 0); err != nil {
		return err
	}
	if err := c.scalarAttr(4, "score_threshold", 0); err != nil {
		return err
	}
	c.emitBool("has_score_threshold", c.opt(4) != nil)
	k, err := c.runTimeSize(expr.Mul(b, classes, perClass))
	if err != nil {
		return err
	}
	c.setOut(0, "i64", []expr.Expr{k, expr.Const(3)})
	return nil
}
