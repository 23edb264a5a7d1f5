package wgref

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// countingTask counts how often each part runs.
type countingTask struct{ runs []atomic.Int32 }

func (c *countingTask) runPart(i int) { c.runs[i].Add(1) }

// Every part of every run runs exactly once, runs following each other
// quickly enough that workers woken for one run come up during the next.
func TestWorkerPoolRunsEachPartOnce(t *testing.T) {
	SetThreads(3)
	defer SetThreads(1)
	task := &countingTask{runs: make([]atomic.Int32, 64)}
	workers.mu.Lock()
	defer workers.mu.Unlock()
	for run := 0; run < 2000; run++ {
		parts := 1 + run%len(task.runs)
		workers.run(task, parts)
		for i := range task.runs {
			want := int32(0)
			if i < parts {
				want = 1
			}
			require.Equal(t, want, task.runs[i].Swap(0), "run %d part %d of %d", run, i, parts)
		}
	}
}

// threadCases are kernel calls whose work the pool splits: GEMMs cut by
// rows (B read in place, a narrow last panel, several column blocks), by
// columns and both ways, convolutions with and without a fused epilogue,
// tap rows, pooling, softmax and layer normalization, transposes and
// splits, and elementwise maps over one long row and over many rows with
// broadcasting. Each is large enough to be split.
func threadCases(r *rand.Rand) []*wgrt.Call {
	mat := func(rows, cols int) wgrt.Tensor { return randomOf(r, wgrt.F32, rows, cols) }
	conv := func(kernel string, x, w []int, group, pad int, extra []wgrt.Attr, more ...wgrt.Tensor) *wgrt.Call {
		k := w[2]
		out := wgrt.New(wgrt.F32, x[0], w[0], x[2]+2*pad-k+1, x[3]+2*pad-k+1)
		attrs := append([]wgrt.Attr{intsAttr("kernel_shape", k, k), intsAttr("strides", 1, 1), intsAttr("pads", pad, pad, pad, pad),
			intsAttr("dilations", 1, 1), intAttr("group", group)}, extra...)
		ins := append([]wgrt.Tensor{randomOf(r, wgrt.F32, x...), randomOf(r, wgrt.F32, w...)}, more...)
		return &wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{out}, Inputs: ins, Attrs: attrs,
			Scratch: make([]byte, 4*convPackFloats(x, w, out.Shape, group, false, false))}
	}
	prepared := func(c *wgrt.Call) *wgrt.Call {
		p, _, err := Prepare(c)
		if err != nil || p == nil {
			panic(fmt.Sprintf("%s: nothing prepared (%v)", c.Kernel, err))
		}
		c.Prepared = p
		return c
	}
	matMul := func(m, n, k int) *wgrt.Call {
		return &wgrt.Call{Kernel: "MatMul", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, m, n)}, Inputs: []wgrt.Tensor{mat(m, k), mat(k, n)},
			Scratch: make([]byte, 4*gemmPackFloats(m, n, k, bRowMajor))}
	}
	unary := func(kernel string, shape ...int) *wgrt.Call {
		return &wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, shape...)}, Inputs: []wgrt.Tensor{randomOf(r, wgrt.F32, shape...)}}
	}
	gemmT := &wgrt.Call{Kernel: "Gemm", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 70, 1500)},
		Inputs: []wgrt.Tensor{mat(70, 300), mat(1500, 300)}, Attrs: []wgrt.Attr{intAttr("transB", 1)}, Scratch: make([]byte, 4*gemmPackFloats(70, 1500, 300, bStrided))}
	return []*wgrt.Call{
		matMul(400, 40, 300), matMul(300, 2100, 300), matMul(40, 2000, 100), gemmT,
		{Kernel: "FusedMatMul", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 256, 1000)}, Inputs: []wgrt.Tensor{mat(256, 200), mat(200, 1000), randomOf(r, wgrt.F32, 1000)},
			Attrs: actAttrs("Sigmoid", 0, 0), Scratch: make([]byte, 4*gemmPackFloats(256, 1000, 200, bRowMajor))},
		conv("Conv", []int{1, 300, 7, 7}, []int{256, 300, 3, 3}, 1, 1, nil),
		conv("Conv", []int{2, 16, 60, 50}, []int{40, 16, 3, 3}, 1, 1, nil, randomOf(r, wgrt.F32, 40)),
		conv("FusedConv", []int{2, 64, 60, 50}, []int{40, 64, 1, 1}, 1, 0, actAttrs("Relu", 0, 0), randomOf(r, wgrt.F32, 40)),
		conv("FusedConv", []int{2, 32, 40, 40}, []int{32, 1, 3, 3}, 32, 1, actAttrs("HardSwish", 0, 0), randomOf(r, wgrt.F32, 32)),
		// Batched products, whole matrices per thread at 2, 3 and 4
		// threads, B's batch broadcast in the second.
		{Kernel: "MatMul", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 3, 4, 64, 80)}, Inputs: []wgrt.Tensor{randomOf(r, wgrt.F32, 3, 4, 64, 48), randomOf(r, wgrt.F32, 3, 4, 48, 80)},
			Scratch: make([]byte, 4*gemmPackFloats(64, 80, 48, bRowMajor))},
		{Kernel: "MatMul", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 3, 4, 64, 80)}, Inputs: []wgrt.Tensor{randomOf(r, wgrt.F32, 3, 4, 64, 48), randomOf(r, wgrt.F32, 1, 4, 48, 80)},
			Scratch: make([]byte, 4*gemmPackFloats(64, 80, 48, bRowMajor))},
		// Split once (sgemm_once.go): by rows, B in place in whole
		// panels, three blocks deep; by columns, filters packed once,
		// im2col and a pointwise conv with a narrow last panel.
		matMul(300, 512, 600),
		prepared(conv("FusedConv", []int{1, 64, 30, 30}, []int{96, 64, 3, 3}, 1, 1, actAttrs("Relu", 0, 0), randomOf(r, wgrt.F32, 96))),
		prepared(conv("Conv", []int{1, 300, 30, 30}, []int{40, 300, 1, 1}, 1, 0, nil)),
		// Block copies: attention's transpose, its keys' Kᵀ (8×8 blocks
		// through registers, whole matrices per thread), a split of q, k
		// and v.
		{Kernel: "Transpose", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 4, 4, 128, 64)}, Inputs: []wgrt.Tensor{randomOf(r, wgrt.F32, 4, 128, 4, 64)},
			Attrs: []wgrt.Attr{intsAttr("perm", 0, 2, 1, 3)}},
		{Kernel: "Transpose", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 4, 4, 64, 131)}, Inputs: []wgrt.Tensor{randomOf(r, wgrt.F32, 4, 131, 4, 64)},
			Attrs: []wgrt.Attr{intsAttr("perm", 0, 2, 3, 1)}},
		{Kernel: "Split", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 4, 128, 256), wgrt.New(wgrt.F32, 4, 128, 256), wgrt.New(wgrt.F32, 4, 128, 256)},
			Inputs: []wgrt.Tensor{randomOf(r, wgrt.F32, 4, 128, 768)}, Attrs: []wgrt.Attr{intAttr("axis", 2)}},
		// Six images: whole images per thread at 2 and 3 threads.
		conv("FusedConv", []int{6, 24, 20, 20}, []int{32, 24, 3, 3}, 1, 1, actAttrs("Relu", 0, 0), randomOf(r, wgrt.F32, 32)),
		{Kernel: "MaxPool", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 2, 24, 56, 56)}, Inputs: []wgrt.Tensor{randomOf(r, wgrt.F32, 2, 24, 112, 112)},
			Attrs: []wgrt.Attr{intsAttr("kernel_shape", 3, 3), intsAttr("strides", 2, 2), intsAttr("pads", 1, 1, 1, 1), intsAttr("dilations", 1, 1)}},
		unary("Erf", 100_003), unary("Sigmoid", 3, 170, 129), unary("Exp", 1, 1, 65_537),
		{Kernel: "Add", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 4, 128, 256)}, Inputs: []wgrt.Tensor{randomOf(r, wgrt.F32, 4, 128, 256), randomOf(r, wgrt.F32, 256)}},
		{Kernel: "Softmax", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 2, 4, 64, 100)}, Inputs: []wgrt.Tensor{randomOf(r, wgrt.F32, 2, 4, 64, 100)},
			Attrs: []wgrt.Attr{intAttr("axis", -1)}},
		{Kernel: "LayerNormalization", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 4, 128, 256)},
			Inputs: []wgrt.Tensor{randomOf(r, wgrt.F32, 4, 128, 256), randomOf(r, wgrt.F32, 256), randomOf(r, wgrt.F32, 256)}, Attrs: []wgrt.Attr{intAttr("axis", -1)}},
		{Kernel: "Mul", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 70_001)}, Inputs: []wgrt.Tensor{randomOf(r, wgrt.F32, 70_001), randomOf(r, wgrt.F32, 70_001)}},
		// An embedding's rows, negative indices among them.
		{Kernel: "Gather", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 4, 128, 256)}, Inputs: []wgrt.Tensor{randomOf(r, wgrt.F32, 3000, 256), embeddingIndices(r, 3000, 4, 128)},
			Attrs: []wgrt.Attr{intAttr("axis", 0)}},
	}
}

// Every kernel the pool splits gives the same bits at 2, 3 and 4 threads
// (on the best kernel path, every path in the long tests)
// as at one: the split changes who computes a tile or row, never the order
// of a sum. And none allocates per call with workers.
func TestThreadsGiveIdenticalBits(t *testing.T) {
	forEachKernelPathLong(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(21))
		for _, c := range threadCases(r) {
			c.Threads = 1 // the reference: on the caller alone
			require.NoError(t, Call(c), "%s", c.Kernel)
			c.Threads = 0
			want := slices.Clone(c.Outputs[0].Float32s())
			// Three workers split unevenly, the case most likely to
			// differ; the long tests try two and four as well.
			counts, allocRuns := []int{3}, 5
			if testenv.Long() {
				counts, allocRuns = []int{2, 3, 4}, 20
			}
			for _, n := range counts {
				withThreads(n, func() {
					clear(c.Outputs[0].Float32s())
					runs := workers.claim.Load() >> (2 * claimBits)
					require.NoError(t, Call(c), "%s", c.Kernel)
					require.Greater(t, workers.claim.Load()>>(2*claimBits), runs, "%s %v was not split", c.Kernel, c.Outputs[0].Shape)
					got := c.Outputs[0].Float32s()
					for i := range want {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							require.Failf(t, "threads change the result", "%s %v threads %d: element %d is %g, %g with one thread",
								c.Kernel, c.Outputs[0].Shape, n, i, got[i], want[i])
						}
					}
					// Averaged over several calls: a worker parking on a
					// busy machine may take a new waiter record from the Go
					// runtime once, never per call.
					require.Zero(t, testing.AllocsPerRun(allocRuns, func() { _ = Call(c) }), "%s %v allocates with %d threads", c.Kernel, c.Outputs[0].Shape, n)
				})
			}
		}
	})
}

// A call's own thread count (wgrt.Call.Threads, a wrapper's
// Options.Threads) overrides SetThreads' either way: one thread runs on the
// caller alone though the package default is two, three split the work
// (the pool growing its workers) though the default is one, with the same
// bits and no allocation per call.
func TestCallThreadsOverrideTheDefault(t *testing.T) {
	r := rand.New(rand.NewSource(22))
	for _, c := range threadCases(r) {
		c.Threads = 1
		require.NoError(t, Call(c), "%s", c.Kernel)
		c.Threads = 0
		want := slices.Clone(c.Outputs[0].Float32s())
		for _, tc := range []struct{ def, call int }{{2, 1}, {1, 3}} {
			withThreads(tc.def, func() {
				c.Threads = tc.call
				defer func() { c.Threads = 0 }()
				clear(c.Outputs[0].Float32s())
				runs := workers.claim.Load() >> (2 * claimBits)
				require.NoError(t, Call(c), "%s", c.Kernel)
				split := workers.claim.Load()>>(2*claimBits) > runs
				require.Equal(t, tc.call > 1, split, "%s %v: default %d, call %d threads: split %v", c.Kernel, c.Outputs[0].Shape, tc.def, tc.call, split)
				require.True(t, slices.Equal(want, c.Outputs[0].Float32s()), "%s %v: %d threads change bits", c.Kernel, c.Outputs[0].Shape, tc.call)
				require.Zero(t, testing.AllocsPerRun(5, func() { _ = Call(c) }), "%s %v allocates with %d threads", c.Kernel, c.Outputs[0].Shape, tc.call)
			})
		}
	}
}

// A thread count beyond maxThreads is capped, so that a run's parts stay
// within what the pool can count (claimBits).
func TestThreadCountsAreCapped(t *testing.T) {
	require.Equal(t, maxThreads, threadsOf(&wgrt.Call{Threads: 1 << 30}))
	require.Equal(t, 3, threadsOf(&wgrt.Call{Threads: 3}))
	require.Less(t, maxThreads, 1<<claimBits)
	defer SetThreads(1)
	SetThreads(1 << 30)
	require.Equal(t, maxThreads, Threads())
	require.Equal(t, maxThreads, threadsOf(&wgrt.Call{}))
}

// embeddingIndices are random int64 indices into n rows, about a quarter
// of them negative (counted from the end).
func embeddingIndices(r *rand.Rand, n int, shape ...int) wgrt.Tensor {
	t := wgrt.New(wgrt.I64, shape...)
	for i := range t.NumElements() {
		v := int64(r.Intn(n))
		if r.Intn(4) == 0 {
			v -= int64(n)
		}
		storeI(t, i, v)
	}
	return t
}
