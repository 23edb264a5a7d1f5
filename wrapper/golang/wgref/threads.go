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
//
// The caller waits for the parts, not for the workers: a worker the OS has
// not scheduled yet when the caller has done every part is not waited
// for, and when it wakes finds nothing left of that run. Parts are claimed
// from claim, which packs the run's number, its count of parts and the
// next part, so that a late worker cannot take a part of a run that ended.
type workerPool struct {
	mu      sync.Mutex
	wake    []chan struct{} // one per worker, each parked on its own
	task    parallelTask    // written only while no part of a run is pending
	claim   atomic.Uint64   // run<<40 | parts<<20 | next part
	pending atomic.Int64    // parts of the current run not finished
	done    chan struct{}   // the worker that finishes a run's last part says so
}

const claimBits = 20 // parts of a run, and the next part, below 1<<20

var workers = workerPool{done: make(chan struct{}, 1)}

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
		if p.work() {
			p.done <- struct{}{}
		}
	}
}

// run does parts of t on the caller and the workers and returns when all
// are done. The caller must hold mu.
func (p *workerPool) run(t parallelTask, parts int) {
	if parts >= 1<<claimBits {
		panic("wgref: too many parts for the worker pool")
	}
	p.task = t
	p.pending.Store(int64(parts))
	runs := p.claim.Load()>>(2*claimBits) + 1
	p.claim.Store(runs<<(2*claimBits) | uint64(parts)<<claimBits)
	for _, w := range p.wake[:min(len(p.wake), parts-1)] {
		select {
		case w <- struct{}{}:
		default: // already woken, not yet up: it will find this run
		}
	}
	if !p.work() {
		<-p.done
	}
	p.task = nil
}

// work does parts of the current run until none is left, and reports
// whether it finished the run's last part.
func (p *workerPool) work() (last bool) {
	const mask = 1<<claimBits - 1
	for {
		c := p.claim.Load()
		parts, next := c>>claimBits&mask, c&mask
		if next >= parts {
			return last
		}
		if !p.claim.CompareAndSwap(c, c+1) {
			continue
		}
		// The run cannot end (nor task change) before this part is done.
		p.task.runPart(int(next))
		if p.pending.Add(-1) == 0 {
			last = true
		}
	}
}

// rangeWork is work over [from, to) of some count that parts may share.
type rangeWork interface{ doRange(from, to int) }

// rangeTask cuts [0, n) in parts contiguous ranges of rangeWork.
type rangeTask struct {
	n, parts int
	w        rangeWork
}

func (t *rangeTask) runPart(i int) {
	from, to := share(i, t.parts, t.n)
	t.w.doRange(from, to)
}

// pooledRange is the range task that holds the worker pool (a package
// variable, so that handing it to the workers allocates nothing).
var pooledRange rangeTask

// runRange runs w over [0, n) in up to threads parts on the workers and
// the caller. The caller holds mu, and w is a package variable it filled
// while holding it (as sgemm's pooledJob), so that nothing escapes per
// call.
func (p *workerPool) runRange(n int, w rangeWork) {
	pooledRange = rangeTask{n: n, parts: min(threads, n), w: w}
	p.run(&pooledRange, pooledRange.parts)
	pooledRange = rangeTask{}
}
