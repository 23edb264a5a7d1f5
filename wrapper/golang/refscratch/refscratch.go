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
	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// wgref's float32 GEMM blocking (sgemm.go, microkernel.go): mr and nr
// are the largest of its micro-kernels' (maxMR, maxNR), which every
// kernel path's divide, so the rule covers whichever path runs.
const (
	mr, nr                 = 12, 32
	blockK, blockN, blockM = 256, 1024, 528
)

// Rule is the reference kernels' scratch need of op in bytes; ok is false
// for the kernels that need none.
func Rule(op *graph.Op) (bytes expr.Expr, ok bool) {
	switch op.Kernel {
	// A fused kernel (graph/fuse) runs its producer's product.
	case "MatMul", "FusedMatMul":
		return matMul(op), true
	case "Gemm", "FusedGemm":
		return gemm(op), true
	case "Conv", "FusedConv":
		return conv(op), true
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

// gemmPackFloats is sgemm's packing buffers: one block of A's m rows
// rounded up to mr by one block of k, and one block of k by one block of
// n rounded up to nr.
func gemmPackFloats(m, n, k expr.Expr) expr.Expr {
	kc := expr.Min(k, expr.Const(blockK))
	return expr.Add(expr.Mul(expr.AlignUp(expr.Min(m, expr.Const(blockM)), mr), kc), expr.Mul(kc, expr.AlignUp(expr.Min(n, expr.Const(blockN)), nr)))
}

func allF32(ts ...*graph.Tensor) bool {
	for _, t := range ts {
		if t.DType != "f32" {
			return false
		}
	}
	return true
}

func matMul(op *graph.Op) expr.Expr {
	a, b, out := op.Inputs[0], op.Inputs[1], op.Outputs[0]
	if !allF32(a, b, out) || len(a.Shape) == 0 || len(b.Shape) == 0 {
		return expr.Const(0)
	}
	// The rows of all of A's matrices: the kernel folds its batch into
	// one GEMM's rows when B is shared and the layout allows, and asks
	// for their packing either way.
	m, k := expr.Const(1), a.Shape[len(a.Shape)-1]
	if len(a.Shape) >= 2 {
		m = product(a.Shape[:len(a.Shape)-1])
	}
	n := expr.Const(1)
	if len(b.Shape) >= 2 {
		n = b.Shape[len(b.Shape)-1]
	}
	return expr.Scale(gemmPackFloats(m, n, k), 4)
}

func gemm(op *graph.Op) expr.Expr {
	a, b, out := op.Inputs[0], op.Inputs[1], op.Outputs[0]
	if !allF32(a, b, out) || len(a.Shape) != 2 || len(b.Shape) != 2 {
		return expr.Const(0)
	}
	m, k, n := a.Shape[0], a.Shape[1], b.Shape[1]
	if intAttr(op, "transA", 0) != 0 {
		m, k = k, m
	}
	if intAttr(op, "transB", 0) != 0 {
		n = b.Shape[0]
	}
	return expr.Scale(gemmPackFloats(m, n, k), 4)
}

// conv is the packing of one image and group's product: M/group output
// channels by the output's positions, C/group times the kernel's taps deep.
func conv(op *graph.Op) expr.Expr {
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
	return expr.Scale(gemmPackFloats(mg, product(out.Shape[2:]), expr.Mul(cg, product(w.Shape[2:]))), 4)
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
