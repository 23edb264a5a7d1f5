package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// copyTransposed32 is copyStrided for 4-byte elements when, once the
// dimensions are merged, the two innermost are a transpose: the output's
// last dimension contiguous and the input's second-to-last (a Transpose
// that swaps the last two axes, an attention's Kᵀ, a weight's Wᵀ). Each
// such matrix moves in 8×8 blocks through registers (transposeBlocks)
// instead of one strided load per element; the edges take the loop.
// Several large matrices (attention heads' Kᵀ) are shared with the
// workers when threads > 1. False (nothing copied) for any other layout,
// or without the vector kernel.
func copyTransposed32(shape []int, dst wgrt.Tensor, dstStrides []int, dstOff int, src wgrt.Tensor, srcStrides []int, srcOff, threads int) bool {
	if !transposeVector {
		return false
	}
	var it rowIter
	if !it.init(shape) {
		return false
	}
	it.add(dstStrides, dstOff)
	it.add(srcStrides, srcOff)
	it.coalesce()
	r := it.rank
	if r < 2 {
		return false
	}
	// The input's matrix: rows j (the output's last dimension), lds apart;
	// columns i (the output's rows), contiguous. The output: rows i, ldd
	// apart; columns j, contiguous.
	rows, cols := it.shape[r-1], it.shape[r-2]
	lds, ldd := it.strides[1][r-1], it.strides[0][r-2]
	if it.strides[0][r-1] != 1 || it.strides[1][r-2] != 1 || lds < cols || ldd < rows || rows < 8 || cols < 8 {
		return false
	}
	t := transposeMatrices{ds: elems[uint32](dst), ss: elems[uint32](src), ldd: ldd, lds: lds, rows: rows, cols: cols}
	t.outer.init(it.shape[:r-2])
	t.outer.add(it.strides[0][:r-2], it.base[0])
	t.outer.add(it.strides[1][:r-2], it.base[1])
	if t.outer.rank > 0 && shares(threads, t.outer.shape[0], walkOf(&t.outer)*rows*cols) {
		pooledTranspose = t
		workers.runRange(t.outer.shape[0], &pooledTranspose)
		pooledTranspose = transposeMatrices{}
		workers.mu.Unlock()
		return true
	}
	t.walk(&t.outer)
	return true
}

// transposeMatrices is copyTransposed32's matrices, walked over the outer
// dimensions, shared by ranges of the first.
type transposeMatrices struct {
	outer                rowIter // not started
	ds, ss               []uint32
	ldd, lds, rows, cols int
}

var pooledTranspose transposeMatrices

func (t *transposeMatrices) doRange(from, to int) {
	it := rowsRange(t.outer, from, to, 1)
	t.walk(&it)
}

func (t *transposeMatrices) walk(outer *rowIter) {
	for outer.next() {
		d, s := outer.off[0], outer.off[1]
		for k := 0; k < outer.n; k++ {
			transposeMatrix(t.ds[d:], t.ldd, t.ss[s:], t.lds, t.rows, t.cols)
			d, s = d+outer.step[0], s+outer.step[1]
		}
	}
}

// transposeMatrix sets dst[i*ldd+j] = src[j*lds+i] for j < rows, i < cols:
// the whole blocks of 8×8 in registers, the rest one by one.
func transposeMatrix(dst []uint32, ldd int, src []uint32, lds, rows, cols int) {
	_ = src[(rows-1)*lds+cols-1]
	_ = dst[(cols-1)*ldd+rows-1]
	r8, c8 := rows&^7, cols&^7
	transposeBlocks(&dst[0], ldd, &src[0], lds, r8, c8)
	for j := 0; j < rows; j++ {
		from := c8
		if j >= r8 {
			from = 0
		}
		for i := from; i < cols; i++ {
			dst[i*ldd+j] = src[j*lds+i]
		}
	}
}
