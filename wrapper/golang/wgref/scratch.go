package wgref

import (
	"fmt"
	"unsafe"

	"github.com/wrapgen/wrapgen/wrapper/golang/wgrt"
)

// Kernels that need memory beyond their operands (GEMM packing,
// accumulators, sort orders) take it from the call's scratch, which the
// plan places in a pool like any tensor, so that a call allocates nothing.
// What each needs is a function of its operands' shapes below; wrapgen's
// planner holds the same functions symbolically (package refscratch), and
// a kernel given less than it needs says so.

// Scratch needs, in elements of the type each kernel uses.

// gemmPackFloats is sgemm's packing buffers for A (one block of m, rounded
// up to the widest micro-kernel's maxMR, by one block of k) and B (one
// block of k by one of n, rounded up to maxNR): the same on every kernel
// path, as the planner's rule is.
func gemmPackFloats(m, n, k int) int {
	kc := min(k, blockK)
	return ceilTo(min(m, blockM), maxMR)*kc + kc*ceilTo(min(n, blockN), maxNR)
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
