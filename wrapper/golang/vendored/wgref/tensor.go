package wgref

import (
	"unsafe"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
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
func broadcastStrides(dst *[maxRank]int, shape []int, t wgrt.Tensor) []int {
	s := dst[:len(shape)]
	clear(s)
	off := len(shape) - len(t.Shape)
	for i := range t.Shape {
		if t.Shape[i] != 1 {
			s[off+i] = t.Strides[i]
		}
	}
	return s
}

// maxRank and maxOperands bound what rowIter holds without allocating.
const (
	maxRank     = 16
	maxOperands = 4
)

// rowIter walks the rows (the last dimension) of a shape, keeping for each
// operand the offset of the row's first element and its stride along the
// row: the loop every strided kernel is built on, in fixed arrays so that
// a kernel allocates nothing. Use:
//
//	var it rowIter
//	it.init(shape)
//	it.add(out.Strides, 0)
//	it.addBroadcast(x)
//	for it.next() {
//		o, i := it.off[0], it.off[1]
//		for k := 0; k < it.n; k++ { ...; o, i = o+it.step[0], i+it.step[1] }
//	}
type rowIter struct {
	rank, nops, n int
	shape         [maxRank]int
	strides       [maxOperands][maxRank]int
	base          [maxOperands]int
	idx           [maxRank]int
	off, step     [maxOperands]int
	started, done bool
}

// initPair starts a walk over out's shape with out and x as operands 0
// and 1, rows merged where both layouts allow: an elementwise map.
func (it *rowIter) initPair(out, x wgrt.Tensor) {
	it.init(out.Shape)
	it.add(out.Strides, 0)
	it.add(x.Strides, 0)
	it.coalesce()
}

// init starts a walk over shape; false when its rank is beyond maxRank.
func (it *rowIter) init(shape []int) bool {
	*it = rowIter{rank: len(shape)}
	if len(shape) > maxRank {
		return false
	}
	copy(it.shape[:], shape)
	return true
}

// add adds an operand with these strides, starting base elements in.
func (it *rowIter) add(strides []int, base int) {
	k := it.nops
	copy(it.strides[k][:it.rank], strides)
	it.base[k] = base
	it.nops++
}

// addBroadcast adds t broadcast to the shape (ONNX's right-aligned
// broadcasting: stride 0 where t has no such dimension or size 1).
func (it *rowIter) addBroadcast(t wgrt.Tensor) {
	k := it.nops
	off := it.rank - len(t.Shape)
	for i := range t.Shape {
		if t.Shape[i] != 1 {
			it.strides[k][off+i] = t.Strides[i]
		}
	}
	it.nops++
}

// next moves to the next row; false when there is none.
func (it *rowIter) next() bool {
	if it.done {
		return false
	}
	r := it.rank
	if !it.started {
		it.started = true
		for d := 0; d < r; d++ {
			if it.shape[d] == 0 {
				it.done = true
				return false
			}
		}
		it.n = 1
		if r > 0 {
			it.n = it.shape[r-1]
		}
		for k := 0; k < it.nops; k++ {
			it.off[k] = it.base[k]
			if r > 0 {
				it.step[k] = it.strides[k][r-1]
			}
		}
		return true
	}
	d := r - 2
	for ; d >= 0; d-- {
		it.idx[d]++
		for k := 0; k < it.nops; k++ {
			it.off[k] += it.strides[k][d]
		}
		if it.idx[d] < it.shape[d] {
			return true
		}
		for k := 0; k < it.nops; k++ {
			it.off[k] -= it.strides[k][d] * it.shape[d]
		}
		it.idx[d] = 0
	}
	it.done = true
	return false
}

// eachRow calls fn once per row of shape with each operand's offset and
// step (a convenience over rowIter for kernels off the hot paths).
func eachRow(shape []int, strides [][]int, fn func(off [maxOperands]int, n int, step [maxOperands]int)) {
	var it rowIter
	if !it.init(shape) || len(strides) > maxOperands {
		panic("wgref: rank or operand count beyond the iterator's bounds")
	}
	for _, st := range strides {
		it.add(st, 0)
	}
	for it.next() {
		fn(it.off, it.n, it.step)
	}
}

// broadcasts reports whether operands of shapes a and b broadcast.
func broadcasts(a, b []int) bool {
	for i := 1; i <= min(len(a), len(b)); i++ {
		x, y := a[len(a)-i], b[len(b)-i]
		if x != y && x != 1 && y != 1 {
			return false
		}
	}
	return true
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
