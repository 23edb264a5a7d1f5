package wgref

import (
	"sync"
	"sync/atomic"
)

// threads is how many goroutines a kernel may use (SetThreads).
var threads = 1

// SetThreads lets the matrix products and convolutions split their work
// over n goroutines (1: run on the caller's goroutine only): the caller and
// n-1 workers started here, which stay parked between calls. Not safe to
// change while kernels run.
func SetThreads(n int) {
	threads = max(n, 1)
	workers.resize(threads - 1)
}

// parallelTask is work cut in parts that may run in any order, at the same
// time.
type parallelTask interface{ runPart(i int) }

// workerPool is the persistent workers kernels share: no goroutine is
// started and nothing allocated per call. One kernel at a time owns it
// (mu); a kernel that finds it taken, as when two runners are called at
// once, runs on its own goroutine.
type workerPool struct {
	mu    sync.Mutex
	wake  []chan struct{} // one per worker, each parked on its own
	task  parallelTask
	parts int
	next  atomic.Int64 // the next part to take: workers take parts as they come free
	done  sync.WaitGroup
}

var workers workerPool

// resize keeps n workers, starting or stopping the difference.
func (p *workerPool) resize(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.wake) > n {
		close(p.wake[len(p.wake)-1])
		p.wake = p.wake[:len(p.wake)-1]
	}
	for len(p.wake) < n {
		w := make(chan struct{}, 1)
		p.wake = append(p.wake, w)
		go p.serve(w)
	}
}

func (p *workerPool) serve(wake chan struct{}) {
	for range wake {
		p.work()
		p.done.Done()
	}
}

// run does parts of t on the caller and the workers and returns when all
// are done. The caller must hold mu.
func (p *workerPool) run(t parallelTask, parts int) {
	workers := min(len(p.wake), parts-1)
	p.task, p.parts = t, parts
	p.next.Store(0)
	p.done.Add(workers)
	for _, w := range p.wake[:workers] {
		w <- struct{}{}
	}
	p.work()
	p.done.Wait()
	p.task = nil
}

func (p *workerPool) work() {
	for {
		i := int(p.next.Add(1) - 1)
		if i >= p.parts {
			return
		}
		p.task.runPart(i)
	}
}
