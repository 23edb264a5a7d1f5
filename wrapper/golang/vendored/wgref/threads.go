package wgref

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// defaultThreads is how many goroutines a kernel may use when its call
// does not say (wgrt.Call.Threads 0; SetThreads); at first the CPUs the
// process may use, as ONNX Runtime's default.
var defaultThreads = 1

func init() { SetThreads(runtime.GOMAXPROCS(0)) }

// SetThreads lets the matrix products, convolutions, pooling, softmax,
// layer normalization, fused epilogues, large copies and large
// elementwise maps split their work over n goroutines (1: run on the
// caller's goroutine only): the caller and n-1 workers started here,
// which poll briefly after each split and are parked between calls.
// Results are the same bits at any n. The default is
// runtime.GOMAXPROCS(0) when the package starts, and n is capped at 1024.
// A call whose wgrt.Call.Threads is set uses that count instead (a
// generated wrapper's Options.Threads). Not safe to change while kernels
// run.
func SetThreads(n int) {
	defaultThreads = min(max(n, 1), maxThreads)
	workers.resize(defaultThreads - 1)
}

// Threads is the goroutines kernels may use when a call does not say
// (SetThreads).
func Threads() int { return defaultThreads }

// maxThreads caps a thread count (SetThreads, wgrt.Call.Threads): a run
// holds fewer parts than claim's bits allow, and each thread beyond the
// first keeps a worker and its copy of the packing scratch.
const maxThreads = 1024

// threadsOf is how many goroutines call c may use.
func threadsOf(c *wgrt.Call) int {
	if c != nil && c.Threads > 0 {
		return min(c.Threads, maxThreads)
	}
	return defaultThreads
}

// parallelTask is work cut in parts that may run in any order, at the same
// time.
type parallelTask interface{ runPart(i int) }

// workerPool is the persistent workers kernels share: no goroutine is
// started and nothing allocated per call. One kernel at a time owns it
// (mu); a kernel that finds it taken, as when two runners are called at
// once, runs on its own goroutine.
//
// A model's parallel runs follow each other closely (the steps of one GEMM
// none apart, those of successive ops by the time a serial op takes), and
// waking a parked goroutine costs tens of microseconds (an OS thread woken,
// the goroutine stolen from the waker's queue). So a worker that finds no
// part left polls for the next run a while before it parks. How long
// adapts (spinNanos): doubled when a poll that waited saw the run in
// time, halved when one gave up, so that on a machine where the other
// goroutine gets no core polls shrink to nothing. A caller waiting for its
// run's last part polls longer (waitParts). Between calls the workers are
// parked and cost nothing.
//
// The caller waits for the parts, not for the workers: a worker not yet
// up when the caller has done every part is not waited for, and when it
// wakes finds nothing left of that run. Parts are claimed from claim,
// which packs the run's number, its count of parts and the next part, so
// that a late worker cannot take a part of a run that ended.
type workerPool struct {
	mu sync.Mutex
	// limit is the thread count of the kernel call holding mu (take): its
	// runs have up to limit parts at once.
	limit int
	sleep []*sleeper   // one per worker
	task  parallelTask // written only while no part of a run is pending
	spin  atomic.Bool  // whether idle goroutines spin before parking
	// spinNanos is how long a poll lasts before it parks.
	spinNanos atomic.Int64
	_         [cacheLine]byte
	claim     atomic.Uint64 // run<<40 | parts<<20 | next part
	_         [cacheLine - 8]byte
	done      atomic.Int64 // parts of the current run finished
	parts     int64        // parts of the current run
	_         [cacheLine - 16]byte
	caller    sleeper // the caller, waiting for the run's last part
}

const (
	claimBits = 20 // parts of a run, and the next part, below 1<<20
	cacheLine = 64
	// A poll lasts from minSpin to maxSpin: at most a few wake-ups' cost
	// and about a part's length, so that the CPU it burns stays small.
	minSpin = int64(time.Microsecond)
	maxSpin = int64(200 * time.Microsecond)
	// callerSpin is how long a caller polls for its run's last part.
	callerSpin = 2 * time.Millisecond
)

var workers = workerPool{caller: newSleeper()}

// A sleeper is one goroutine's place to park until another wakes it. The
// parker sets asleep, then checks its condition once more before it
// blocks; the waker makes the condition true, then takes asleep back. One
// of the two sees the other, so no wake-up is lost.
type sleeper struct {
	state atomic.Int32
	quit  atomic.Bool // a worker the pool no longer keeps
	wake  chan struct{}
	_     [cacheLine]byte
}

const (
	awake int32 = iota
	asleep
)

func newSleeper() sleeper { return sleeper{wake: make(chan struct{}, 1)} }

// park sleeps unless ready reports true once asleep is set.
func (s *sleeper) park(ready func() bool) {
	s.state.Store(asleep)
	if ready() && s.state.CompareAndSwap(asleep, awake) {
		return
	}
	<-s.wake // the waker took asleep back, and sends or has sent
}

// unpark wakes s if it is asleep.
func (s *sleeper) unpark() {
	if s.state.Load() == asleep && s.state.CompareAndSwap(asleep, awake) {
		s.wake <- struct{}{}
	}
}

// take reports whether a kernel call that may use threads goroutines
// should split its work, and takes the pool if so: when threads > 1 and no
// other call holds it. The holder's runs then have up to threads parts,
// and the pool has threads-1 workers at least; the holder unlocks mu.
func (p *workerPool) take(threads int) bool {
	if threads <= 1 || !p.mu.TryLock() {
		return false
	}
	p.limit = threads
	if len(p.sleep) < threads-1 {
		p.grow(threads - 1)
	}
	return true
}

// resize keeps n workers, starting or stopping the difference.
func (p *workerPool) resize(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.grow(n)
}

// grow keeps n workers, starting or stopping the difference. The caller
// holds mu.
func (p *workerPool) grow(n int) {
	for len(p.sleep) > n {
		s := p.sleep[len(p.sleep)-1]
		s.quit.Store(true)
		s.unpark()
		p.sleep = p.sleep[:len(p.sleep)-1]
	}
	for len(p.sleep) < n {
		s := newSleeper()
		p.sleep = append(p.sleep, &s)
		go p.serve(&s)
	}
	// Spinning goroutines must not take the processors the others need.
	p.spin.Store(n+1 <= runtime.GOMAXPROCS(0))
	p.spinNanos.Store(50 * int64(time.Microsecond))
}

func (p *workerPool) serve(s *sleeper) {
	for !s.quit.Load() {
		p.work()
		if !p.spinUntil(func() bool { return p.hasParts() || s.quit.Load() }) {
			s.park(func() bool { return p.hasParts() || s.quit.Load() })
		}
	}
}

// spinUntil polls cond for spinNanos, when the pool spins, and reports
// whether it became true, adapting spinNanos: a worker's poll for the
// next run.
func (p *workerPool) spinUntil(cond func() bool) bool {
	if cond() {
		return true
	}
	if !p.spin.Load() {
		return false
	}
	start, limit := time.Now(), time.Duration(p.spinNanos.Load())
	for i := 0; ; i++ {
		if cond() {
			// Seen in time, not after the OS took the core away.
			if time.Since(start) <= limit {
				p.spinNanos.Store(min(maxSpin, 2*int64(limit)))
			}
			return true
		}
		if i%256 == 255 && time.Since(start) > limit {
			p.spinNanos.Store(max(minSpin, int64(limit)/2))
			return false
		}
	}
}

// waitParts polls, when the pool spins, for up to callerSpin until the
// current run's parts are done, and reports whether they were. The
// caller's wait is for work under way, not for work that may never come,
// so it neither adapts spinNanos nor gives up soon: parked, the caller
// would be woken a wake-up late at the end of every split op (100 to 250
// µs on this kind of VM, against parts of a millisecond).
func (p *workerPool) waitParts() bool {
	if p.finished() {
		return true
	}
	if !p.spin.Load() {
		return false
	}
	start := time.Now()
	for i := 0; ; i++ {
		if p.finished() {
			return true
		}
		if i%256 == 255 && time.Since(start) > callerSpin {
			return false
		}
	}
}

// hasParts reports whether the current run has parts no one claimed.
func (p *workerPool) hasParts() bool {
	const mask = 1<<claimBits - 1
	c := p.claim.Load()
	return c&mask < c>>claimBits&mask
}

// run does parts of t on the caller and the workers and returns when all
// are done. The caller must hold mu.
func (p *workerPool) run(t parallelTask, parts int) {
	if parts >= 1<<claimBits {
		panic("wgref: too many parts for the worker pool")
	}
	p.task, p.parts = t, int64(parts)
	p.done.Store(0)
	// The caller does part 0 itself, before it claims any other: the
	// first share of a product or a pass stays on the caller's core from
	// op to op (with two threads, the second on the worker's), so that an
	// op reads from its own core's cache what the op before it wrote.
	runs := p.claim.Load()>>(2*claimBits) + 1
	p.claim.Store(runs<<(2*claimBits) | uint64(parts)<<claimBits | 1)
	for _, s := range p.sleep[:min(len(p.sleep), parts-1)] {
		s.unpark()
	}
	t.runPart(0)
	p.done.Add(1)
	p.work()
	if !p.waitParts() {
		p.caller.park(p.finished)
	}
	p.task = nil
}

// finished reports whether every part of the current run is done.
func (p *workerPool) finished() bool { return p.done.Load() == p.parts }

// work does parts of the current run until none is left to claim; whoever
// finishes the run's last part wakes the caller if it parked.
func (p *workerPool) work() {
	const mask = 1<<claimBits - 1
	for {
		c := p.claim.Load()
		parts, next := c>>claimBits&mask, c&mask
		if next >= parts {
			return
		}
		if !p.claim.CompareAndSwap(c, c+1) {
			continue
		}
		// The run cannot end (nor task change) before this part is done.
		p.task.runPart(int(next))
		if p.done.Add(1) == int64(parts) {
			p.caller.unpark()
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

// runRange runs w over [0, n) in up to limit parts on the workers and
// the caller. The caller holds mu, and w is a package variable it filled
// while holding it (as sgemm's pooledJob), so that nothing escapes per
// call.
func (p *workerPool) runRange(n int, w rangeWork) {
	pooledRange = rangeTask{n: n, parts: min(p.limit, n), w: w}
	p.run(&pooledRange, pooledRange.parts)
	pooledRange = rangeTask{}
}
