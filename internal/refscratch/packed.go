package refscratch

import (
	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
)

// PackedBytes is the memory the reference kernels' weights packed once
// take (wgref.Prepare, which `wrapgen run` calls when it binds the
// params): for each Conv, MatMul and Gemm (fused or not) whose weight is
// a param or a constant and whose attributes are constants, the floats
// wgref's packedFloats allocates, at the widest micro-kernel's blocks
// (maxMR rows, maxNR columns), as the runner allocates them on every
// path. It is held beside the params, outside the pools.
func PackedBytes(g *graph.Graph) int64 {
	var total int64
	graph.Walk(g.Ops, func(op *graph.Op, _ []*graph.Op) { total += packedBytes(op) })
	return total
}

// packedBytes is one op's share of PackedBytes.
func packedBytes(op *graph.Op) int64 {
	if len(op.Inputs) < 2 || !constantAttrs(op) {
		return 0
	}
	w := op.Inputs[1]
	ws, ok := fixedShape(w)
	if !ok || w.DType != "f32" || w.Root == nil || !(w.Root.Param || w.Root.Data != nil) {
		return 0
	}
	switch op.Kernel {
	case "Conv", "FusedConv":
		return convPacked(op, ws)
	case "Gemm", "FusedGemm":
		return gemmPacked(op, ws)
	case "MatMul", "FusedMatMul":
		return matMulPacked(op, ws)
	case "RNN", "GRU", "LSTM":
		return recurrentPacked(op, ws)
	}
	return 0
}

// constantAttrs reports whether op's int attributes are all constants:
// the runner prepares only such ops.
func constantAttrs(op *graph.Op) bool {
	for _, a := range op.Attrs {
		switch a.Kind {
		case graph.AttrInt:
			if _, ok := a.Int.IsConst(); !ok {
				return false
			}
		case graph.AttrInts:
			for _, e := range a.Ints {
				if _, ok := e.IsConst(); !ok {
					return false
				}
			}
		}
	}
	return true
}

// fixedShape is t's shape when every size is a constant.
func fixedShape(t *graph.Tensor) ([]int, bool) {
	out := make([]int, len(t.Shape))
	for i, d := range t.Shape {
		v, ok := d.IsConst()
		if !ok {
			return nil, false
		}
		out[i] = int(v)
	}
	return out, true
}

// constStrides is t's strides when constants (row-major when the graph
// gives none).
func constStrides(t *graph.Tensor, shape []int) ([]int, bool) {
	out := make([]int, len(shape))
	if len(t.Strides) != len(t.Shape) {
		s := 1
		for i := len(shape) - 1; i >= 0; i-- {
			out[i], s = s, s*shape[i]
		}
		return out, true
	}
	for i, e := range t.Strides {
		v, ok := e.IsConst()
		if !ok {
			return nil, false
		}
		out[i] = int(v)
	}
	return out, true
}

func convPacked(op *graph.Op, w []int) int64 {
	strides, ok := constStrides(op.Inputs[1], w)
	if !ok || len(w) < 3 || !rowMajorStrides(w, strides) {
		return 0
	}
	group := int(intAttr(op, "group", 1))
	if group <= 0 || w[0]%group != 0 {
		return 0
	}
	sum := fusedSum(op, len(w))
	if f := wgref.ConvMixedFloats(w, group, sum); f > 0 {
		return 4 * int64(f)
	}
	if !wgref.ConvPacksFilters(op.Kernel, w, group, sum, pointwiseAttrs(op)) {
		return 0
	}
	mg, kk := w[0]/group, w[1]
	for _, d := range w[2:] {
		kk *= d
	}
	return 4 * int64(group) * int64(alignUp(mg, maxMR)) * int64(kk)
}

// mixedFilters reports whether op is a conv whose filters Prepare lays
// out for the mixed blocks (wgref.ConvMixedFloats), not the GEMM's
// panels: a call that falls back to the GEMM then packs them itself.
func mixedFilters(op *graph.Op) bool {
	if op.Kernel != "Conv" && op.Kernel != "FusedConv" || len(op.Inputs) < 2 {
		return false
	}
	w, ok := fixedShape(op.Inputs[1])
	if !ok {
		return false
	}
	return wgref.ConvMixedFloats(w, int(intAttr(op, "group", 1)), fusedSum(op, len(w))) > 0
}

// fusedSum reports whether a FusedConv's inputs include a sum, as
// wgref.Prepare decides it (wgref.FusedConvSum): an input after the
// weight of the output's rank, or whose shape is not constant, which
// Prepare is given no shape for (wgrt.PrepareFunc) and takes for a sum.
// Deciding it from the graph's ranks alone would take a sum at a
// symbolic batch for one that Prepare does not see, and lay the filters
// out (mixed blocks, tap rows: none) otherwise than the rule counts.
func fusedSum(op *graph.Op, rank int) bool {
	var ranks []int
	for _, t := range op.Inputs[min(2, len(op.Inputs)):] {
		r := len(t.Shape)
		if _, ok := fixedShape(t); !ok {
			r = -1
		}
		ranks = append(ranks, r)
	}
	return wgref.FusedConvSum(op.Kernel, rank, ranks)
}

// rowMajorStrides reports whether strides lay shape out contiguously
// (wgrt.Tensor.Contiguous: dimensions of 1 take any stride).
func rowMajorStrides(shape, strides []int) bool {
	want := 1
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] != 1 && strides[i] != want {
			return false
		}
		want *= shape[i]
	}
	return true
}

// pointwiseAttrs is wgref's: kernel_shape all 1, strides all 1, pads
// all 0, each given.
func pointwiseAttrs(op *graph.Op) bool {
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
			return len(a.Ints) > 0
		}
		return false
	}
	return all("kernel_shape", 1) && all("strides", 1) && all("pads", 0)
}

func gemmPacked(op *graph.Op, b []int) int64 {
	strides, ok := constStrides(op.Inputs[1], b)
	if !ok || len(b) != 2 {
		return 0
	}
	transA, transB := intAttr(op, "transA", 0) != 0, intAttr(op, "transB", 0) != 0
	if a, ok := fixedShape(op.Inputs[0]); ok && len(a) == 2 {
		m := a[0]
		if transA {
			m = a[1]
		}
		if m <= gemvMaxRows {
			return 0
		}
	}
	k, n, cs := b[0], b[1], strides[1]
	if transB {
		k, n, cs = n, k, strides[0]
	}
	return productPacked(n, k, cs == 1)
}

func matMulPacked(op *graph.Op, b []int) int64 {
	strides, ok := constStrides(op.Inputs[1], b)
	rb := len(b)
	if !ok || rb < 2 {
		return 0
	}
	for _, d := range b[:rb-2] {
		if d != 1 {
			return 0
		}
	}
	if a, ok := fixedShape(op.Inputs[0]); ok {
		rows := 1
		for _, d := range a[:max(len(a)-1, 0)] {
			rows *= d
		}
		if len(a) <= 1 || rows <= gemvMaxRows {
			return 0
		}
	}
	return productPacked(b[rb-1], b[rb-2], strides[rb-1] == 1)
}

// recurrentPacked is wgref's prepareRecurrent: W [directions,
// gates·hidden, input], row-major, each direction packed as the B
// (input×gates·hidden) of its input projection, W[d]ᵀ; none when the op
// runs step by step.
func recurrentPacked(op *graph.Op, w []int) int64 {
	strides, ok := constStrides(op.Inputs[1], w)
	if !ok || len(w) != 3 || w[0] < 1 || w[0] > 2 || !rowMajorStrides(w, strides) || stepwise(op) {
		return 0
	}
	return int64(w[0]) * productPacked(w[1], w[2], w[2] == 1)
}

// productPacked is wgref's packedFloats for a B of k×n, in bytes: a
// row-major B packs its last panel when its width is not whole panels
// of maxNR, any other its every column rounded up to maxNR.
func productPacked(n, k int, rowMajor bool) int64 {
	if rowMajor {
		if n%maxNR == 0 {
			return 0
		}
		return 4 * int64(maxNR) * int64(k)
	}
	return 4 * int64(alignUp(n, maxNR)) * int64(k)
}

func alignUp(x, to int) int { return (x + to - 1) / to * to }
