package wgref

import "sync"

// Scratch memory for kernels that need it (im2col, a contiguous copy of a
// strided operand): taken from a pool and given back after the call, so a
// steady stream of calls allocates nothing.
var scratchPool = sync.Pool{New: func() any { return new([]float32) }}

// scratch returns n float32s (contents undefined) and the function that
// gives them back.
func scratch(n int) ([]float32, *[]float32) {
	p := scratchPool.Get().(*[]float32)
	if cap(*p) < n {
		*p = make([]float32, n)
	}
	return (*p)[:n], p
}

func release(p *[]float32) { scratchPool.Put(p) }

// threads is how many goroutines a kernel may use (SetThreads).
var threads = 1

// SetThreads lets the matrix products and convolutions split their work
// over n goroutines (1: run on the caller's goroutine only). Not safe to
// change while kernels run.
func SetThreads(n int) { threads = max(n, 1) }
