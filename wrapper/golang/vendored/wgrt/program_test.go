package wgrt

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/emit"
)

// The runtime numbers opcodes and step kinds as package emit does.
func TestOpcodesMatchEmit(t *testing.T) {
	assert.Equal(t, []int{emit.IntConst, emit.IntSym, emit.IntAdd, emit.IntMul, emit.IntFloorDiv, emit.IntMod, emit.IntMax, emit.IntMin},
		[]int{intConst, intSym, intAdd, intMul, intFloorDiv, intMod, intMax, intMin})
	assert.Equal(t, []emit.StepKind{emit.Acquire, emit.Release, emit.View, emit.Unview, emit.Call, emit.Loop, emit.EndLoop, emit.Capacity, emit.SetSymbol},
		[]emit.StepKind{stepAcquire, stepRelease, stepView, stepUnview, stepCall, stepLoop, stepEndLoop, stepCapacity, stepSetSymbol})
	for kind, width := range emit.StepWidth {
		assert.Equal(t, width, stepWidth[kind], "step kind %d", kind)
	}
}

type calls struct {
	ops  []int
	fail int // op whose call fails, -1 none
}

func (c *calls) CallOp(i int) error {
	c.ops = append(c.ops, i)
	if i == c.fail {
		return errors.New("kernel failed")
	}
	return nil
}

// A loop counted zero times is skipped, nested loops run their products,
// and a kernel error stops the run with the op it came from.
func TestExecLoops(t *testing.T) {
	p := &Program{Graph: "g", NumLoops: 2, Ops: []Op{{Index: 0}, {Index: 1, Place: "ops[1]", Kernel: "k"}, {Index: 2}},
		Code: []int{
			intSym, 0, 0, // v0 = symbol 0
			intConst, 2, 0, // v1 = 2
		},
		Plans: []Plan{{Steps: []int32{
			stepCall, 0, // pc 0
			stepLoop, 0, 0, 18, // pc 2: outer, v0 times
			stepLoop, 1, 1, 15, // pc 6: inner, v1 times
			stepCall, 1, // pc 10
			stepEndLoop, 1, 10, // pc 12
			stepEndLoop, 0, 6, // pc 15
			stepCall, 2, // pc 18
		}}}}
	for _, tc := range []struct {
		outer int
		want  []int
	}{{0, []int{0, 2}}, {1, []int{0, 1, 1, 2}}, {3, []int{0, 1, 1, 1, 1, 1, 1, 2}}} {
		f := NewFrame(p, 1)
		f.Sym[0] = tc.outer
		f.Layout(p)
		c := &calls{fail: -1}
		require.NoError(t, f.Exec(p, FreshPools{}, c, nil))
		assert.Equal(t, tc.want, c.ops, "outer loop %d times", tc.outer)
	}
	f := NewFrame(p, 1)
	f.Sym[0] = 2
	f.Layout(p)
	err := f.Exec(p, FreshPools{}, &calls{fail: 1}, nil)
	var opErr *OpError
	require.ErrorAs(t, err, &opErr)
	assert.Equal(t, 1, opErr.Op.Index)
	assert.EqualError(t, err, `g: ops[1] (kernel "k"): kernel failed`)
}

// A pool whose only storage is an output is the caller's buffer when it is
// big enough, and is acquired otherwise; either way no pool is left held.
func TestExecCallerBufferIsThePool(t *testing.T) {
	p := &Program{Graph: "g", Align: 64, Outputs: []int32{0}, Ops: make([]Op, 1),
		Tensors: []int32{int32(U8), 0, 1, 0}, Devices: []string{"cpu"}, Dims: []int32{0, 1},
		Code: []int{
			intConst, 8, 0, // v0 = 8 (size, shape)
			intConst, 1, 0, // v1 = 1 (stride)
			intConst, 0, 0, // v2 = 0
		},
		Plans: []Plan{{PoolDevices: []string{"cpu"}, OutputPools: []int32{0}, Storages: []int32{0, 0, 2, 0, 1}, Steps: []int32{
			stepAcquire, 0, 0, 0, 0,
			stepView, 0, 0, 0, 2, 0,
			stepCall, 0,
		}}}}
	for _, given := range [][]byte{nil, make([]byte, 4), make([]byte, 8)} {
		f := NewFrame(p, 0)
		f.Layout(p)
		f.Out[0] = given
		require.NoError(t, f.Exec(p, FreshPools{}, &calls{fail: -1}, nil))
		assert.Len(t, f.T[0].Data, 8)
		if len(given) >= 8 {
			assert.Same(t, &given[0], &f.T[0].Data[0], "the caller's buffer is the pool")
		} else if len(given) > 0 {
			assert.NotSame(t, &given[0], &f.T[0].Data[0], "a short buffer is not used")
		}
		assert.Nil(t, f.pool[0], "the output's pool is handed over")
	}
}

// An edited table is reported, not run.
func TestExecRefusesUnknownStep(t *testing.T) {
	for _, kind := range []int32{-1, 9, 99} {
		p := &Program{Graph: "g", Plans: []Plan{{Steps: []int32{kind, 0}}}}
		f := NewFrame(p, 0)
		err := f.Exec(p, FreshPools{}, &calls{fail: -1}, nil)
		assert.ErrorContains(t, err, "step 0 has unknown kind", "kind %d", kind)
	}
}

// A program with size buckets runs the plan whose ranges hold the symbols;
// a Runner's kept pools are reused while the bucket stays and freed when
// it changes, so they never hold two buckets' pools at once.
func TestExecPicksPlanByRanges(t *testing.T) {
	p := &Program{Graph: "g", Align: 64, Ops: make([]Op, 1), SymbolNames: []string{"n"},
		Code: []int{
			intSym, 0, 0, // v0 = n
			intConst, 16, 0, // v1 = 16
			intMul, 0, 1, // v2 = 16*n
		},
		Devices: []string{"cpu"},
		Plans: []Plan{
			{Ranges: []int{0, 1, 8}, PoolDevices: []string{"cpu"}, Steps: []int32{stepAcquire, 0, 2, -1, -1, stepCall, 0, stepRelease, 0}},
			{Ranges: []int{0, 9, -1}, PoolDevices: []string{"cpu", "cpu"}, Steps: []int32{
				stepAcquire, 0, 2, -1, -1, stepAcquire, 1, 1, -1, -1, stepCall, 0, stepRelease, 1, stepRelease, 0}},
		}}
	alloc := &countingAllocator{}
	pools := &KeptPools{Allocators: Allocators{"cpu": alloc}}
	f := NewFrame(p, 1)
	run := func(n int) {
		f.Sym[0] = n
		require.NoError(t, f.Layout(p))
		require.NoError(t, f.Exec(p, pools, &calls{fail: -1}, nil))
	}
	for _, tc := range []struct{ n, plan, allocs, frees int }{
		{1, 0, 1, 0}, {8, 0, 2, 1}, {8, 0, 2, 1}, {9, 1, 4, 2}, {100, 1, 5, 3}, {9, 1, 5, 3}, {2, 0, 6, 5},
	} {
		run(tc.n)
		assert.Equal(t, tc.plan, f.Plan(), "n=%d", tc.n)
		assert.Equal(t, []int{tc.allocs, tc.frees}, []int{alloc.allocs, alloc.frees}, "allocations and frees after n=%d", tc.n)
	}
	f.Sym[0] = 0
	assert.ErrorContains(t, f.Layout(p), "g: no plan holds n=0")
}
