// Package refscratch is the scratch memory wrapgen's reference kernels
// (package wgref) need, as expressions of an op's operand shapes: the rule
// graph.AddScratch takes, so that the planner places every kernel's
// workspace in a pool and a call with the reference kernels allocates
// nothing. Each rule spells symbolically what the kernel computes from the
// shapes it is given (wgref/scratch.go and the kernels that call
// scratchOf); a kernel handed less than it needs returns an error, which
// the node-test sweep and the real-model tests would report.
package refscratch

import (
	"math"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
)

// wgref's float32 GEMM blocking (sgemm.go, microkernel.go): maxMR and
// maxNR are the largest of its micro-kernels' blocks, which every kernel
// path's divide, so the rule covers whichever path runs.
const (
	maxMR, maxNR           = wgref.ScratchMR, wgref.ScratchNR
	blockK, blockN, blockM = wgref.ScratchBlockK, wgref.ScratchBlockN, wgref.ScratchBlockM
	gemvMaxRows            = wgref.ScratchGemvMaxRows
)

// Rule is the reference kernels' scratch need of op in bytes; ok is false
// for the kernels that need none.
func Rule(op *graph.Op) (bytes expr.Expr, ok bool) { return rule(op, false) }

// RuleWithPackedWeights is Rule for a runner that packs weights once
// (wgref.Prepare, `wrapgen run`): the products whose weight it packs
// into the GEMM's panels (PackedBytes, but for filters laid out for the
// mixed blocks, which a call that falls back to the GEMM packs itself)
// ask for no packing buffer for it.
func RuleWithPackedWeights(op *graph.Op) (bytes expr.Expr, ok bool) { return rule(op, true) }

func rule(op *graph.Op, packedWeights bool) (bytes expr.Expr, ok bool) {
	packed := packedWeights && packedBytes(op) > 0 && !mixedFilters(op)
	switch op.Kernel {
	// A fused kernel (graph/fuse) runs its producer's product.
	case "MatMul", "FusedMatMul":
		return matMul(op, packed), true
	case "Gemm", "FusedGemm":
		return gemm(op, packed), true
	case "Conv", "FusedConv":
		return conv(op, packed), true
	case "ConvTranspose":
		return expr.Scale(elements(op.Outputs[0]), 8), true
	case "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
		"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceSumSquare":
		return expr.Scale(elements(op.Outputs[0]), 8), true
	case "ReduceLogSumExp":
		return expr.Scale(elements(op.Outputs[0]), 16), true
	case "TopK":
		return topK(op), true
	case "Unique":
		return unique(op), true
	case "NonMaxSuppression":
		// One candidate (a float32 score, an int32 index) and one int32
		// selected index per box.
		boxes := op.Inputs[0]
		if len(boxes.Shape) != 3 {
			return expr.Const(0), true
		}
		return expr.Scale(boxes.Shape[1], 12), true
	case "RNN", "GRU", "LSTM":
		return recurrent(op), true
	case "Det":
		x := op.Inputs[0]
		if len(x.Shape) < 2 {
			return expr.Const(0), true
		}
		m := x.Shape[len(x.Shape)-1]
		return expr.Scale(expr.Mul(m, m), 8), true
	case "BatchNormalization":
		x := op.Inputs[0]
		if len(x.Shape) < 2 {
			return expr.Const(0), true
		}
		return expr.Scale(x.Shape[1], 4*8), true
	}
	return expr.Expr{}, false
}

// bForm is how sgemm reads its B operand, which decides what it packs.
type bForm int

const (
	// bRowMajor: B's rows are contiguous, read in place by the
	// micro-kernel; only a last panel narrower than maxNR is packed.
	bRowMajor bForm = iota
	// bStrided: any other layout (a transposed B), packed panel by panel.
	bStrided
	// bIm2col: a convolution's input read as im2col would lay it out,
	// always packed.
	bIm2col
)

// gemmPackFloats is sgemm's packing for a product of m rows of A, n
// columns of B and depth k (wgref's scratch.go): none for m up to
// gemvMaxRows unless B is im2col (the product runs row by row, reading A
// and B in place); else one block of A's rows rounded up to maxMR by one
// block of k, and B's panels: one panel for a row-major B, else one block
// of k by one block of n rounded up to maxNR.
func gemmPackFloats(m, n, k expr.Expr, b bForm) expr.Expr {
	return gemmPackFloatsOf(m, n, k, b, false, false)
}

// gemmPackFloatsOf is gemmPackFloats without A's buffer when packedA, nor
// B's when packedB: operands packed once.
func gemmPackFloatsOf(m, n, k expr.Expr, b bForm, packedA, packedB bool) expr.Expr {
	kc := expr.Min(k, expr.Const(blockK))
	pa := expr.Mul(expr.AlignUp(expr.Min(m, expr.Const(blockM)), maxMR), kc)
	if packedA {
		pa = expr.Const(0)
	}
	var pb expr.Expr
	switch b {
	case bRowMajor:
		// One panel, whatever n: the rule must not shrink as n grows.
		pb = expr.Scale(kc, maxNR)
	default:
		pb = expr.Mul(kc, expr.AlignUp(expr.Min(n, expr.Const(blockN)), maxNR))
	}
	if packedB {
		pb = expr.Const(0)
	}
	floats := expr.Add(pa, pb)
	if b == bIm2col {
		return floats
	}
	return expr.Mul(above(m, gemvMaxRows), floats)
}

// above is 1 when the positive integer x exceeds c, else 0.
func above(x expr.Expr, c int64) expr.Expr {
	return expr.Min(expr.Const(1), expr.Max(expr.Const(0), expr.Sub(x, expr.Const(c))))
}

// isOne is 1 when the non-negative integer x is 1, else 0.
func isOne(x expr.Expr) expr.Expr {
	return expr.Sub(expr.Const(1), expr.Min(expr.Const(1), expr.Max(expr.Sub(x, expr.Const(1)), expr.Sub(expr.Const(1), x))))
}

// atLeast2 reports whether x, a product of dimensions, is proven 2 or
// more whenever its symbols are 1 or more (when one is 0, x is 0, which
// asks for the same as 2 or more: no fold).
func atLeast2(x expr.Expr) bool {
	b := expr.Bounds{}
	for _, s := range x.Symbols() {
		b[s] = expr.Range{Min: 1, Max: math.MaxInt64}
	}
	return expr.NonNeg(expr.Sub(x, expr.Const(2)), b)
}

func floorDiv(x expr.Expr, c int64) expr.Expr {
	q, _ := expr.FloorDiv(x, expr.Const(c)) // c > 0: always ok
	return q
}

// rowMajorLast reports whether t's last dimension is contiguous (its
// stride the constant 1), as the kernels test at run time.
func rowMajorLast(t *graph.Tensor) bool {
	if len(t.Strides) != len(t.Shape) || len(t.Shape) == 0 {
		return len(t.Shape) > 0 // strides filled in as row-major
	}
	v, ok := t.Strides[len(t.Strides)-1].IsConst()
	return ok && v == 1
}

func allF32(ts ...*graph.Tensor) bool {
	for _, t := range ts {
		if t.DType != "f32" {
			return false
		}
	}
	return true
}

// matMul is a MatMul's packing; none for B when packedB.
func matMul(op *graph.Op, packedB bool) expr.Expr {
	a, b, out := op.Inputs[0], op.Inputs[1], op.Outputs[0]
	if !allF32(a, b, out) || len(a.Shape) == 0 || len(b.Shape) == 0 {
		return expr.Const(0)
	}
	ra, rb := len(a.Shape), len(b.Shape)
	m, k := expr.Const(1), a.Shape[ra-1]
	if ra >= 2 {
		m = a.Shape[ra-2]
	}
	n, form := expr.Const(1), bStrided
	if rb >= 2 {
		n = b.Shape[rb-1]
		if rowMajorLast(b) {
			form = bRowMajor
		}
	}
	// The kernel folds the rows of all of A's matrices into one GEMM when
	// B's batch is 1 (and the layout allows), and asks for their packing
	// then; else for one matrix's.
	if ra >= 2 {
		rows := product(a.Shape[:ra-1])
		var bBatch expr.Expr = expr.Const(1)
		if rb > 2 {
			bBatch = product(b.Shape[:rb-2])
		}
		switch {
		case atLeast2(bBatch):
		case expr.Equal(bBatch, expr.Const(1)):
			m = rows
		default:
			m = expr.Add(m, expr.Mul(isOne(bBatch), expr.Sub(rows, m)))
		}
	}
	return expr.Scale(gemmPackFloatsOf(m, n, k, form, false, packedB), 4)
}

// gemm is a Gemm's packing; none for B when packedB.
func gemm(op *graph.Op, packedB bool) expr.Expr {
	a, b, out := op.Inputs[0], op.Inputs[1], op.Outputs[0]
	if !allF32(a, b, out) || len(a.Shape) != 2 || len(b.Shape) != 2 {
		return expr.Const(0)
	}
	m, k, n := a.Shape[0], a.Shape[1], b.Shape[1]
	if intAttr(op, "transA", 0) != 0 {
		m, k = k, m
	}
	form := bStrided
	if intAttr(op, "transB", 0) != 0 {
		n = b.Shape[0]
	} else if rowMajorLast(b) {
		form = bRowMajor
	}
	return expr.Scale(gemmPackFloatsOf(m, n, k, form, false, packedB), 4)
}

// conv is the packing of one image and group's product: M/group output
// channels by the output's positions, C/group times the kernel's taps
// deep; B is the input's rows for a pointwise convolution, else im2col.
// None for the filters (A) when packedFilters.
func conv(op *graph.Op, packedFilters bool) expr.Expr {
	x, w, out := op.Inputs[0], op.Inputs[1], op.Outputs[0]
	if !allF32(x, w, out) || len(x.Shape) < 3 || len(w.Shape) != len(x.Shape) || len(out.Shape) != len(x.Shape) {
		return expr.Const(0)
	}
	group := expr.Const(1)
	for _, a := range op.Attrs {
		if a.Name == "group" && a.Kind == graph.AttrInt {
			group = a.Int
		}
	}
	mg, ok1 := expr.FloorDiv(w.Shape[0], group)
	cg, ok2 := expr.FloorDiv(x.Shape[1], group)
	if !ok1 || !ok2 {
		return expr.Const(0)
	}
	form := bIm2col
	if pointwise(op) {
		form = bRowMajor
	}
	return expr.Scale(gemmPackFloatsOf(mg, product(out.Shape[2:]), expr.Mul(cg, product(w.Shape[2:])), form, packedFilters, false), 4)
}

// pointwise reports whether the kernel runs conv op as a plain product
// with the input's rows (wgref's isPointwise): kernel_shape all 1,
// strides all 1, pads all 0, the output's positions the input's, the
// input's channels spatially contiguous. Where the graph leaves this
// open (symbolic attributes), it reports false, and the im2col packing
// reserved covers either way.
func pointwise(op *graph.Op) bool {
	x, out := op.Inputs[0], op.Outputs[0]
	all := func(name string, want int64) bool {
		for _, a := range op.Attrs {
			if a.Name != name || a.Kind != graph.AttrInts {
				continue
			}
			for _, e := range a.Ints {
				if v, ok := e.IsConst(); !ok || v != want {
					return false
				}
			}
			return true
		}
		return false
	}
	if !all("kernel_shape", 1) || !all("strides", 1) || !all("pads", 0) {
		return false
	}
	for d := 2; d < len(x.Shape); d++ {
		if !expr.Equal(out.Shape[d], x.Shape[d]) {
			return false
		}
	}
	return spatialRowMajor(x)
}

// spatialRowMajor reports whether t's dimensions after the first two are
// row-major contiguous, as the graph says (strides absent: row-major).
func spatialRowMajor(t *graph.Tensor) bool {
	if len(t.Strides) != len(t.Shape) {
		return true
	}
	want := expr.Const(1)
	for d := len(t.Shape) - 1; d >= 2; d-- {
		if v, ok := t.Shape[d].IsConst(); !(ok && v == 1) && !expr.Equal(t.Strides[d], want) {
			return false
		}
		want = expr.Mul(want, t.Shape[d])
	}
	return true
}

// topK sorts one line along the axis at a time: a float64 and an index per
// element.
func topK(op *graph.Op) expr.Expr {
	x := op.Inputs[0]
	axis := intAttr(op, "axis", -1)
	if axis < 0 {
		axis += int64(len(x.Shape))
	}
	if axis < 0 || axis >= int64(len(x.Shape)) {
		return expr.Const(0)
	}
	return expr.Scale(x.Shape[axis], 16)
}

// unique sorts X's elements (its slices along attribute axis, when
// has_axis): four ints (8 bytes each on 64-bit platforms) per element or
// slice.
func unique(op *graph.Op) expr.Expr {
	x := op.Inputs[0]
	if intAttr(op, "has_axis", 0) == 0 {
		return expr.Scale(elements(x), 32)
	}
	axis := intAttr(op, "axis", 0)
	if axis < 0 {
		axis += int64(len(x.Shape))
	}
	if axis < 0 || axis >= int64(len(x.Shape)) {
		return expr.Const(0)
	}
	return expr.Scale(x.Shape[axis], 32)
}

func elements(t *graph.Tensor) expr.Expr { return product(t.Shape) }

func product(xs []expr.Expr) expr.Expr {
	return expr.Mul(append([]expr.Expr{expr.Const(1)}, xs...)...)
}

// intAttr is op's constant int (or bool) attribute name, or def when it
// has none.
func intAttr(op *graph.Op, name string, def int64) int64 {
	for _, a := range op.Attrs {
		switch {
		case a.Name != name:
		case a.Kind == graph.AttrBool && a.Bool:
			return 1
		case a.Kind == graph.AttrBool:
			return 0
		case a.Kind == graph.AttrInt:
			if v, ok := a.Int.IsConst(); ok {
				return v
			}
		}
	}
	return def
}
