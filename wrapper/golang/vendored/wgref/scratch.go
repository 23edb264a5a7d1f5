package wgref

import (
	"fmt"
	"unsafe"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Kernels that need memory beyond their operands (GEMM packing,
// accumulators, sort orders) take it from the call's scratch, which the
// plan places in a pool like any tensor, so that a call allocates nothing.
// What each needs is a function of its operands' shapes below; wrapgen's
// planner holds the same functions symbolically (package refscratch), and
// a kernel given less than it needs says so.

// Scratch needs, in elements of the type each kernel uses.

// bForm is how sgemm reads its B operand, which decides what it packs.
type bForm int

const (
	// bRowMajor: B's rows are contiguous (column stride 1); the
	// micro-kernel reads its whole panels in place and only a last panel
	// narrower than nr is packed.
	bRowMajor bForm = iota
	// bStrided: any other layout (a transposed B), packed panel by panel.
	bStrided
	// bIm2col: a convolution's input read as im2col would lay it out,
	// always packed.
	bIm2col
)

// formOf is how sgemm reads b (conv nil) or a convolution's input.
func formOf(b matrix, conv *im2colB) bForm {
	switch {
	case conv != nil:
		return bIm2col
	case b.cs == 1:
		return bRowMajor
	}
	return bStrided
}

// gemmPackFloats is sgemm's packing buffers for a product of m rows of A,
// n columns of B and depth k, the same on every kernel path, as the
// planner's rule is. None for up to gemvMaxRows rows of a B other than
// im2col (gemvRows reads A and B in place). Else A's: one block of m,
// rounded up to the widest micro-kernel's maxMR, by one block of k. And
// B's: one panel of maxNR by a block of k for a row-major B (its last
// panel, when narrower than maxNR), one block of k by one of n rounded up
// to maxNR for the others.
func gemmPackFloats(m, n, k int, b bForm) int { return gemmPackFloatsOf(m, n, k, b, packedSides{}) }

// packedSides says which of sgemm's operands come packed once
// (prepare.go): their buffers are not asked for.
type packedSides struct{ a, b bool }

// gemmPackFloatsOf is gemmPackFloats without the buffers of the operands
// packed once.
func gemmPackFloatsOf(m, n, k int, b bForm, packed packedSides) int {
	if b != bIm2col && m <= gemvMaxRows {
		return 0
	}
	kc := min(k, blockK)
	pa, pb := ceilTo(min(m, blockM), maxMR)*kc, kc*ceilTo(min(n, blockN), maxNR)
	if b == bRowMajor {
		// One panel even when n is a multiple of maxNR, so that the
		// scratch never shrinks as n grows: a plan sized at a run-time
		// size's bound must hold every smaller value.
		pb = kc * maxNR
	}
	if packed.a {
		pa = 0
	}
	if packed.b {
		pb = 0
	}
	return pa + pb
}

func ceilTo(x, to int) int { return (x + to - 1) / to * to }

// scratchOf is the first n elements of c's scratch as E. A kernel called
// without scratch (outside a wrapper whose plan sized it) gets memory of
// its own; one given too little is an error.
func scratchOf[E any](c *wgrt.Call, n int) ([]E, error) {
	var zero E
	size := int(unsafe.Sizeof(zero))
	if c.Scratch == nil {
		return make([]E, n), nil
	}
	if len(c.Scratch) < n*size {
		return nil, fmt.Errorf("%s: scratch of %d bytes, the kernel needs %d (the plan's scratch rule and the kernel disagree: a wrapgen bug)",
			c.Kernel, len(c.Scratch), n*size)
	}
	if n == 0 {
		return nil, nil
	}
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(c.Scratch))), n), nil
}
