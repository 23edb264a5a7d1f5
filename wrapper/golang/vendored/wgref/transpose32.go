package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// copyTransposed32 is copyStrided for 4-byte elements when, once the
// dimensions are merged, the two innermost are a transpose: the output's
// last dimension contiguous and the input's second-to-last (a Transpose
// that swaps the last two axes, an attention's Kᵀ, a weight's Wᵀ). Each
// such matrix moves in 8×8 blocks through registers (transposeBlocks)
// instead of one strided load per element; the edges take the loop. False
// (nothing copied) for any other layout, or without the vector kernel.
func copyTransposed32(shape []int, dst wgrt.Tensor, dstStrides []int, dstOff int, src wgrt.Tensor, srcStrides []int, srcOff int) bool {
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
	ds, ss := elems[uint32](dst), elems[uint32](src)
	var outer rowIter
	outer.init(it.shape[:r-2])
	outer.add(it.strides[0][:r-2], it.base[0])
	outer.add(it.strides[1][:r-2], it.base[1])
	for outer.next() {
		d, s := outer.off[0], outer.off[1]
		for k := 0; k < outer.n; k++ {
			transposeMatrix(ds[d:], ldd, ss[s:], lds, rows, cols)
			d, s = d+outer.step[0], s+outer.step[1]
		}
	}
	return true
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
