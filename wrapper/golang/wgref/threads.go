package wgref

// threads is how many goroutines a kernel may use (SetThreads).
var threads = 1

// SetThreads lets the matrix products and convolutions split their work
// over n goroutines (1: run on the caller's goroutine only). Not safe to
// change while kernels run.
func SetThreads(n int) { threads = max(n, 1) }
