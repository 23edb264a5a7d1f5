package wgref

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Kernels whose output size depends on the data: NonZero, Compress,
// Unique, NonMaxSuppression. Each sets a run-time size (format v1
// "sets"): the outputs whose shape uses it come laid out at its bound
// (their capacity); the kernel finds the actual size s, writes each such
// output row-major and contiguous from the start of its data as shaped
// with s (not at the capacity's strides), and stores s in its last
// output, an i64 scalar. Outputs that do not use it are written at their
// strides as usual.

func init() {
	register("NonZero", nonZero)
	register("Compress", compress)
	register("Unique", unique)
	register("NonMaxSuppression", nonMaxSuppression)
}

// countOutput is the call's last output, where a run-time size goes.
func countOutput(c *wgrt.Call) (wgrt.Tensor, error) {
	t := c.Outputs[len(c.Outputs)-1]
	if t.DType != wgrt.I64 || t.NumElements() != 1 {
		return t, fmt.Errorf("%s: the last output (the size found) is %s %v, want an i64 scalar", c.Kernel, t.DType, t.Shape)
	}
	return t, nil
}

// overflow is the error for a size beyond an output's capacity: the
// importer's bound and the data disagree.
func overflow(c *wgrt.Call, size, capacity int) error {
	return fmt.Errorf("%s: %d entries found, beyond the %d the output holds (its bound)", c.Kernel, size, capacity)
}

// isNonZero reports whether element off of t is not zero (NaN is not).
func isNonZero(t wgrt.Tensor, fam family, off int) bool {
	switch fam {
	case famFloat:
		return loadF(t, off) != 0
	case famUint:
		return loadU(t, off) != 0
	}
	return loadI(t, off) != 0
}

// nonZero writes the indices of X's nonzero elements, in row-major order,
// as the columns of a [rank, nz] matrix.
func nonZero(c *wgrt.Call) error {
	if err := need(c, 2, 1, 1); err != nil {
		return err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	count, err := countOutput(c)
	if err != nil {
		return err
	}
	fam := familyOf(x.DType)
	if fam == famOther {
		return unsupported(c, x.DType)
	}
	r := len(x.Shape)
	if out.DType != wgrt.I64 || len(out.Shape) != 2 || out.Shape[0] != r {
		return fmt.Errorf("%s: output %s %v for an input of rank %d, want i64 [%d, nz]", c.Kernel, out.DType, out.Shape, r, r)
	}
	nz := 0
	for idx := range indices(x.Shape) {
		if isNonZero(x, fam, offsetOf(idx, x.Strides)) {
			nz++
		}
	}
	if nz > out.Shape[1] {
		return overflow(c, nz, out.Shape[1])
	}
	j := 0
	for idx := range indices(x.Shape) {
		if isNonZero(x, fam, offsetOf(idx, x.Strides)) {
			for d := range r {
				storeI(out, d*nz+j, int64(idx[d]))
			}
			j++
		}
	}
	storeI(count, 0, int64(nz))
	return nil
}

// compress keeps the slices along attribute axis (without one, has_axis
// false, the elements of the flattened input) whose condition entry is true: entries
// beyond the condition's length count as false, and condition entries
// beyond the input are ignored.
func compress(c *wgrt.Call) error {
	if err := need(c, 2, 2, 2); err != nil {
		return err
	}
	out, x, cond := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	count, err := countOutput(c)
	if err != nil {
		return err
	}
	if cond.DType != wgrt.Bool || len(cond.Shape) != 1 {
		return fmt.Errorf("%s: condition %s %v, want bool of rank 1", c.Kernel, cond.DType, cond.Shape)
	}
	if out.DType != x.DType {
		return fmt.Errorf("%s: output dtype %s for input %s", c.Kernel, out.DType, x.DType)
	}
	a := attrsOf(c)
	hasAxis := a.Bool("has_axis")
	if a.err != nil {
		return a.err
	}
	if !hasAxis {
		n := min(x.NumElements(), cond.Shape[0])
		if err := conditionFits(c, cond, x, n, -1); err != nil {
			return err
		}
		k := 0
		for i := range n {
			if loadI(cond, i*cond.Strides[0]) != 0 {
				k++
			}
		}
		if len(out.Shape) != 1 || k > out.Shape[0] {
			return fmt.Errorf("%s: output %v for %d elements kept, want [k] with room for them", c.Kernel, out.Shape, k)
		}
		i, j := 0, 0
		for idx := range indices(x.Shape) {
			if i == n {
				break
			}
			if loadI(cond, i*cond.Strides[0]) != 0 {
				copyElem(out, j, x, offsetOf(idx, x.Strides))
				j++
			}
			i++
		}
		storeI(count, 0, int64(k))
		return nil
	}
	axis, err := axisAttr(c, len(x.Shape))
	if err != nil {
		return err
	}
	n := min(x.Shape[axis], cond.Shape[0])
	if err := conditionFits(c, cond, x, n, axis); err != nil {
		return err
	}
	k := 0
	for i := range n {
		if loadI(cond, i*cond.Strides[0]) != 0 {
			k++
		}
	}
	var shapeBuf, stridesBuf, subBuf [maxRank]int
	shape, sub := shapeBuf[:len(x.Shape)], subBuf[:len(x.Shape)]
	copy(shape, x.Shape)
	copy(sub, x.Shape)
	shape[axis], sub[axis] = k, 1
	if len(out.Shape) != len(x.Shape) || k > out.Shape[axis] {
		return fmt.Errorf("%s: output %v for %d slices kept of input %v along axis %d", c.Kernel, out.Shape, k, x.Shape, axis)
	}
	for d := range shape {
		if d != axis && out.Shape[d] != shape[d] {
			return fmt.Errorf("%s: output %v for %d slices kept of input %v along axis %d", c.Kernel, out.Shape, k, x.Shape, axis)
		}
	}
	strides := wgrt.RowMajor(stridesBuf[:len(shape)], shape)
	j := 0
	for i := range n {
		if loadI(cond, i*cond.Strides[0]) == 0 {
			continue
		}
		for idx := range indices(sub) {
			copyElem(out, offsetOf(idx, strides)+j*strides[axis], x, offsetOf(idx, x.Strides)+i*x.Strides[axis])
		}
		j++
	}
	storeI(count, 0, int64(k))
	return nil
}

// conditionFits refuses a Compress condition that keeps an element (or a
// slice along axis, -1 for none) beyond the n of x there are:
// numpy.compress raises. A shorter condition, or false entries past the
// end, are allowed.
func conditionFits(c *wgrt.Call, cond, x wgrt.Tensor, n, axis int) error {
	for i := n; i < cond.Shape[0]; i++ {
		if loadI(cond, i*cond.Strides[0]) == 0 {
			continue
		}
		if axis < 0 {
			return fmt.Errorf("%s: condition[%d] is true, beyond the input's %d elements", c.Kernel, i, n)
		}
		return fmt.Errorf("%s: condition[%d] is true, beyond the %d slices of input %v along axis %d", c.Kernel, i, n, x.Shape, axis)
	}
	return nil
}

// compareValues orders elements by value: numbers as numbers (-0 equals
// 0), NaN after every number and equal to NaN.
func compareValues(t wgrt.Tensor, fam family, p, q int) int {
	switch fam {
	case famFloat:
		a, b := loadF(t, p), loadF(t, q)
		switch an, bn := math.IsNaN(a), math.IsNaN(b); {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		}
		return cmp.Compare(a, b)
	case famUint:
		return cmp.Compare(loadU(t, p), loadU(t, q))
	}
	return cmp.Compare(loadI(t, p), loadI(t, q))
}

// flatOffset is the offset of element i of t in row-major order.
func flatOffset(t wgrt.Tensor, i int) int {
	off := 0
	for d := len(t.Shape) - 1; d >= 0; d-- {
		off += i % t.Shape[d] * t.Strides[d]
		i /= t.Shape[d]
	}
	return off
}

// unique finds the distinct elements of X (flattened), or its distinct
// slices along attribute axis when has_axis (compared element by element
// in row-major order), u of them: Y holds them in ascending order (attribute sorted,
// else in order of first occurrence), indices each one's first index in
// X, inverse_indices each element's (slice's) position in Y, counts how
// often each occurs. Attribute "outputs" says which of the four are
// present (1 or 0 per ONNX slot). Scratch: four ints per element (slice).
func unique(c *wgrt.Call) error {
	if len(c.Outputs) < 2 || len(c.Inputs) != 1 {
		return fmt.Errorf("%s: %d outputs and %d inputs, want 2 to 5 and 1", c.Kernel, len(c.Outputs), len(c.Inputs))
	}
	x := c.Inputs[0]
	count, err := countOutput(c)
	if err != nil {
		return err
	}
	a := attrsOf(c)
	sorted, present, hasAxis := a.IntOr("sorted", 1) != 0, a.Ints("outputs"), a.Bool("has_axis")
	if a.err != nil {
		return a.err
	}
	var outs [4]*wgrt.Tensor
	next := 0
	for k, p := range present {
		if p != 0 && k < len(outs) && next < len(c.Outputs)-1 {
			outs[k] = &c.Outputs[next]
			next++
		}
	}
	if next != len(c.Outputs)-1 || outs[0] == nil {
		return fmt.Errorf("%s: outputs %v do not match the %d given", c.Kernel, present, len(c.Outputs)-1)
	}
	y := *outs[0]
	fam := familyOf(x.DType)
	if fam == famOther {
		return unsupported(c, x.DType)
	}
	if y.DType != x.DType {
		return fmt.Errorf("%s: Y has dtype %s for X %s", c.Kernel, y.DType, x.DType)
	}
	axis, m := -1, x.NumElements()
	var subBuf [maxRank]int
	sub := subBuf[:len(x.Shape)]
	if hasAxis {
		if axis, err = axisAttr(c, len(x.Shape)); err != nil {
			return err
		}
		if len(x.Shape) == 0 {
			return fmt.Errorf("%s: an axis for a scalar", c.Kernel)
		}
		m = x.Shape[axis]
		copy(sub, x.Shape)
		sub[axis] = 1
	}
	// compare orders items (elements, or slices along axis) i and j.
	compare := func(i, j int) int {
		if axis < 0 {
			return compareValues(x, fam, flatOffset(x, i), flatOffset(x, j))
		}
		for idx := range indices(sub) {
			base := offsetOf(idx, x.Strides)
			if r := compareValues(x, fam, base+i*x.Strides[axis], base+j*x.Strides[axis]); r != 0 {
				return r
			}
		}
		return 0
	}
	work, err := scratchOf[int](c, 4*m)
	if err != nil {
		return err
	}
	// perm: the items in order (stable: equal ones by index); group: each
	// item's group, in that order; first and counts: each group's first
	// item and size. perm then becomes each group's position in Y.
	perm, group, first, counts := work[:m], work[m:2*m], work[2*m:3*m], work[3*m:4*m]
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, compare)
	u := 0
	for k, i := range perm {
		if k == 0 || compare(perm[k-1], i) != 0 {
			first[u], counts[u] = i, 0
			u++
		}
		group[i] = u - 1
		counts[u-1]++
	}
	pos := perm[:u]
	if sorted {
		for g := range pos {
			pos[g] = g
		}
	} else {
		next := 0
		for i := range m {
			if g := group[i]; first[g] == i {
				pos[g] = next
				next++
			}
		}
	}
	// Y, compact at u.
	if axis < 0 {
		if len(y.Shape) != 1 || u > y.Shape[0] {
			return fmt.Errorf("%s: Y %v for %d unique values", c.Kernel, y.Shape, u)
		}
		for g := range u {
			copyElem(y, pos[g], x, flatOffset(x, first[g]))
		}
	} else {
		var shapeBuf, stridesBuf [maxRank]int
		shape := shapeBuf[:len(x.Shape)]
		copy(shape, x.Shape)
		shape[axis] = u
		if len(y.Shape) != len(shape) || u > y.Shape[axis] {
			return fmt.Errorf("%s: Y %v for %d unique slices of X %v along axis %d", c.Kernel, y.Shape, u, x.Shape, axis)
		}
		for d := range shape {
			if d != axis && y.Shape[d] != shape[d] {
				return fmt.Errorf("%s: Y %v for %d unique slices of X %v along axis %d", c.Kernel, y.Shape, u, x.Shape, axis)
			}
		}
		strides := wgrt.RowMajor(stridesBuf[:len(shape)], shape)
		for g := range u {
			for idx := range indices(sub) {
				copyElem(y, offsetOf(idx, strides)+pos[g]*strides[axis], x, offsetOf(idx, x.Strides)+first[g]*x.Strides[axis])
			}
		}
	}
	for k, t := range outs[1:] {
		if t == nil {
			continue
		}
		want := u
		if k == 1 {
			want = m // inverse_indices
		}
		if t.DType != wgrt.I64 || len(t.Shape) != 1 || t.Shape[0] < want || k == 1 && t.Shape[0] != m {
			return fmt.Errorf("%s: output %d is %s %v, want i64 [%d]", c.Kernel, k+1, t.DType, t.Shape, want)
		}
	}
	if t := outs[1]; t != nil {
		for g := range u {
			storeI(*t, pos[g], int64(first[g]))
		}
	}
	if t := outs[2]; t != nil {
		for i := range m {
			storeI(*t, i*t.Strides[0], int64(pos[group[i]]))
		}
	}
	if t := outs[3]; t != nil {
		for g := range u {
			storeI(*t, pos[g], int64(counts[g]))
		}
	}
	storeI(count, 0, int64(u))
	return nil
}

// nmsBox is one box of a class in NonMaxSuppression's scratch: a
// candidate (score and index, sorted), and, at the same position, the
// index of a box selected.
type nmsBox struct {
	score    float32
	idx, sel int32
}

// nonMaxSuppression selects, per batch and class, boxes by decreasing
// score (equal scores by index), skipping any whose IoU with a box already
// selected exceeds iou_threshold, up to max_output_boxes_per_class;
// with score_threshold, only boxes scoring above it. Each selected box is
// a row [batch, class, box]. Computed in float32, as ONNX's reference
// does. Scratch: one nmsBox per box.
func nonMaxSuppression(c *wgrt.Call) error {
	if err := need(c, 2, 2, 5); err != nil {
		return err
	}
	out, boxes, scores := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	count, err := countOutput(c)
	if err != nil {
		return err
	}
	if len(boxes.Shape) != 3 || boxes.Shape[2] != 4 || len(scores.Shape) != 3 ||
		scores.Shape[0] != boxes.Shape[0] || scores.Shape[2] != boxes.Shape[1] {
		return fmt.Errorf("%s: boxes %v and scores %v, want [B, N, 4] and [B, C, N]", c.Kernel, boxes.Shape, scores.Shape)
	}
	if familyOf(boxes.DType) != famFloat || familyOf(scores.DType) != famFloat {
		return fmt.Errorf("%s: boxes %s and scores %s, want floats", c.Kernel, boxes.DType, scores.DType)
	}
	if out.DType != wgrt.I64 || len(out.Shape) != 2 || out.Shape[1] != 3 {
		return fmt.Errorf("%s: output %s %v, want i64 [k, 3]", c.Kernel, out.DType, out.Shape)
	}
	a := attrsOf(c)
	centered := a.Int("center_point_box") != 0
	most := int64(a.Int("max_output_boxes_per_class"))
	mostFromInput := a.Bool("max_output_boxes_per_class_from_input")
	hasScore := a.Bool("has_score_threshold")
	if a.err != nil {
		return a.err
	}
	next := 2
	if mostFromInput {
		if next >= len(c.Inputs) || c.Inputs[next].NumElements() != 1 {
			return fmt.Errorf("%s: max_output_boxes_per_class from input %d, which is missing or not one element", c.Kernel, next)
		}
		most = loadI(c.Inputs[next], 0)
		next++
	}
	iou, err := scalarFromInput(c, a, "iou_threshold", "iou_threshold_from_input", a.Float("iou_threshold"), &next)
	if err != nil {
		return err
	}
	minScore, err := scalarFromInput(c, a, "score_threshold", "score_threshold_from_input", a.Float("score_threshold"), &next)
	if err != nil {
		return err
	}
	if next != len(c.Inputs) {
		return fmt.Errorf("%s: %d inputs, the attributes name %d", c.Kernel, len(c.Inputs), next)
	}
	nb, nc, n := boxes.Shape[0], scores.Shape[1], boxes.Shape[1]
	if n > math.MaxInt32 {
		return fmt.Errorf("%s: %d boxes, beyond the kernel's %d", c.Kernel, n, math.MaxInt32)
	}
	perClass := int(min(max(most, 0), int64(n)))
	threshold, scoreAbove := float32(iou), float32(minScore)
	work, err := scratchOf[nmsBox](c, n)
	if err != nil {
		return err
	}
	k := 0
	for b := range nb {
		for cl := range nc {
			cands := 0
			for i := range n {
				s := float32(loadF(scores, b*scores.Strides[0]+cl*scores.Strides[1]+i*scores.Strides[2]))
				if !hasScore || s > scoreAbove {
					work[cands].score, work[cands].idx = s, int32(i)
					cands++
				}
			}
			cand := work[:cands]
			slices.SortFunc(cand, func(p, q nmsBox) int {
				if r := cmp.Compare(q.score, p.score); r != 0 {
					return r
				}
				return cmp.Compare(p.idx, q.idx)
			})
			chosen := 0
			for _, box := range cand {
				if chosen >= perClass {
					break
				}
				keep := true
				for t := range chosen {
					if suppressByIoU(boxes, b, int(box.idx), int(work[t].sel), centered, threshold) {
						keep = false
						break
					}
				}
				if !keep {
					continue
				}
				if k >= out.Shape[0] {
					return overflow(c, k+1, out.Shape[0])
				}
				work[chosen].sel = box.idx
				chosen++
				storeI(out, 3*k, int64(b))
				storeI(out, 3*k+1, int64(cl))
				storeI(out, 3*k+2, int64(box.idx))
				k++
			}
		}
	}
	storeI(count, 0, int64(k))
	return nil
}

// boxCoord is coordinate j of box i of batch b, as float32.
func boxCoord(boxes wgrt.Tensor, b, i, j int) float32 {
	return float32(loadF(boxes, b*boxes.Strides[0]+i*boxes.Strides[1]+j*boxes.Strides[2]))
}

// suppressByIoU reports whether boxes i and j of batch b overlap by more
// than threshold (intersection over union), in float32 as ONNX's
// reference computes it; boxes that do not overlap, or of no area, never
// suppress. Every product is rounded to float32 explicitly so that no
// fused multiply-add changes the result.
func suppressByIoU(boxes wgrt.Tensor, b, i, j int, centered bool, threshold float32) bool {
	var x1min, x1max, y1min, y1max, x2min, x2max, y2min, y2max float32
	if !centered { // [y1, x1, y2, x2], any two diagonal corners
		y1min, y1max = minMax(boxCoord(boxes, b, i, 0), boxCoord(boxes, b, i, 2))
		x1min, x1max = minMax(boxCoord(boxes, b, i, 1), boxCoord(boxes, b, i, 3))
		y2min, y2max = minMax(boxCoord(boxes, b, j, 0), boxCoord(boxes, b, j, 2))
		x2min, x2max = minMax(boxCoord(boxes, b, j, 1), boxCoord(boxes, b, j, 3))
	} else { // [x_center, y_center, width, height]
		w1, h1 := boxCoord(boxes, b, i, 2)/2, boxCoord(boxes, b, i, 3)/2
		w2, h2 := boxCoord(boxes, b, j, 2)/2, boxCoord(boxes, b, j, 3)/2
		cx1, cy1 := boxCoord(boxes, b, i, 0), boxCoord(boxes, b, i, 1)
		cx2, cy2 := boxCoord(boxes, b, j, 0), boxCoord(boxes, b, j, 1)
		x1min, x1max, y1min, y1max = cx1-w1, cx1+w1, cy1-h1, cy1+h1
		x2min, x2max, y2min, y2max = cx2-w2, cx2+w2, cy2-h2, cy2+h2
	}
	ixmin, ixmax := max(x1min, x2min), min(x1max, x2max)
	if ixmax <= ixmin {
		return false
	}
	iymin, iymax := max(y1min, y2min), min(y1max, y2max)
	if iymax <= iymin {
		return false
	}
	inter := float32((ixmax - ixmin) * (iymax - iymin))
	if inter <= 0 {
		return false
	}
	area1 := float32((x1max - x1min) * (y1max - y1min))
	area2 := float32((x2max - x2min) * (y2max - y2min))
	union := area1 + area2 - inter
	if area1 <= 0 || area2 <= 0 || union <= 0 {
		return false
	}
	return inter/union > threshold
}

// minMax orders two coordinates (as ONNX's reference: equal ones either
// way).
func minMax(a, b float32) (float32, float32) {
	if a >= b {
		return b, a
	}
	return a, b
}
