package wgref

import (
	"unsafe"

	"github.com/wrapgen/wrapgen/wrapper/golang/wgrt"
)

// elems views t's bytes as elements of E from its first element, without
// copying; index it with t.Strides. The caller has checked t's dtype.
func elems[E any](t wgrt.Tensor) []E {
	var zero E
	n := len(t.Data) / int(unsafe.Sizeof(zero))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(t.Data))), n)
}

// broadcastStrides are t's strides for iterating over shape, which t
// broadcasts to (ONNX multidirectional broadcasting, right-aligned): 0
// where t has no such dimension or has size 1.
func broadcastStrides(shape []int, t wgrt.Tensor) []int {
	s := make([]int, len(shape))
	off := len(shape) - len(t.Shape)
	for i := range t.Shape {
		if t.Shape[i] != 1 {
			s[off+i] = t.Strides[i]
		}
	}
	return s
}

// broadcastShape is the shape ONNX broadcasting gives operands of shapes
// ts, and false when they do not broadcast.
func broadcastShape(ts ...wgrt.Tensor) ([]int, bool) {
	rank := 0
	for _, t := range ts {
		rank = max(rank, len(t.Shape))
	}
	out := make([]int, rank)
	for i := range out {
		out[i] = 1
	}
	for _, t := range ts {
		off := rank - len(t.Shape)
		for i, d := range t.Shape {
			switch {
			case d == out[off+i] || d == 1:
			case out[off+i] == 1:
				out[off+i] = d
			default:
				return nil, false
			}
		}
	}
	return out, true
}

// eachRow calls fn once per row (the last dimension) of shape with the
// offset of the row's first element in each operand and the operands'
// strides along the row: the loop every strided kernel is built on. A
// rank-0 shape is one row of one element.
func eachRow(shape []int, strides [][]int, fn func(off []int, n int, step []int)) {
	rank := len(shape)
	for _, d := range shape {
		if d == 0 {
			return
		}
	}
	off := make([]int, len(strides))
	step := make([]int, len(strides))
	if rank == 0 {
		fn(off, 1, step)
		return
	}
	for k := range strides {
		step[k] = strides[k][rank-1]
	}
	idx := make([]int, rank)
	n := shape[rank-1]
	for {
		fn(off, n, step)
		// Advance the index over every dimension but the last.
		d := rank - 2
		for ; d >= 0; d-- {
			idx[d]++
			for k := range strides {
				off[k] += strides[k][d]
			}
			if idx[d] < shape[d] {
				break
			}
			for k := range strides {
				off[k] -= strides[k][d] * shape[d]
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

// rowMajor is the row-major strides of shape.
func rowMajor(shape []int) []int {
	return wgrt.RowMajor(make([]int, len(shape)), shape)
}

// numElements is the product of shape.
func numElements(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}
