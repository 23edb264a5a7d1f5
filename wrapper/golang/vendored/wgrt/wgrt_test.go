package wgrt

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAlignedBytes(t *testing.T) {
	for _, align := range []int{1, 8, 64, 4096} {
		b := AlignedBytes(100, align)
		require.Len(t, b, 100)
		assert.Zero(t, uintptr(unsafe.Pointer(&b[0]))%uintptr(align))
	}
	assert.Empty(t, AlignedBytes(0, 64))
	_, err := CPU{}.Alloc(10, 3)
	assert.Error(t, err)
}

func TestTypedViewsShareMemory(t *testing.T) {
	x := New(F32, 2, 3)
	f := x.Float32s()
	require.Len(t, f, 6)
	f[4] = 2.5
	assert.Equal(t, float32(2.5), x.Float32s()[x.Index(1, 1)])
	assert.True(t, x.Contiguous())
	assert.Equal(t, 6, x.NumElements())
	assert.Panics(t, func() { x.Int64s() }, "reading f32 as i64 is a bug, caught")
	h := New(BF16, 4)
	assert.Len(t, h.Halfs(), 4)
	// A transposed view: strides, not copies.
	tr := Tensor{DType: F32, Shape: []int{3, 2}, Strides: []int{1, 3}, Data: x.Data}
	assert.False(t, tr.Contiguous())
	assert.Equal(t, float32(2.5), tr.Float32s()[tr.Index(1, 1)])
	assert.Equal(t, 0, Extent([]int{0, 5}, []int{5, 1}))
}

func TestCheckTensor(t *testing.T) {
	x := New(F32, 2, 3)
	assert.NoError(t, CheckTensor("x", x, F32, "cpu", []int{2, 3}, []int{3, 1}))
	assert.EqualError(t, CheckTensor("x", x, I32, "cpu", []int{2, 3}, []int{3, 1}), "x: dtype is f32, want i32")
	assert.EqualError(t, CheckTensor("x", x, F32, "cuda:0", []int{2, 3}, []int{3, 1}), `x: device is "cpu", want "cuda:0"`)
	assert.EqualError(t, CheckTensor("x", x, F32, "cpu", []int{2, 3, 1}, []int{3, 1, 1}), "x: rank is 2 (shape [2, 3]), want 3 (shape [2, 3, 1])")
	assert.EqualError(t, CheckTensor("x", x, F32, "cpu", []int{2, 4}, []int{4, 1}), "x: shape is [2, 3], want [2, 4] (dimension 1)")
	short := x
	short.Data = short.Data[:20]
	assert.EqualError(t, CheckTensor("x", short, F32, "cpu", []int{2, 3}, []int{3, 1}), "x: data has 20 bytes, the view needs 24")
}

func TestBindSymbol(t *testing.T) {
	var n int
	var bound bool
	require.NoError(t, BindSymbol(&n, &bound, "n", "x", []int{7, 4}, 2, 0, 2, 1))
	assert.Equal(t, 3, n)
	assert.EqualError(t, BindSymbol(&n, &bound, "n", "y", []int{9}, 1, 0, 2, 1), "y: dimension 0 gives n = 4, but an earlier input gave n = 3")
	assert.EqualError(t, BindSymbol(&n, &bound, "n", "z", []int{8}, 1, 0, 2, 1), "z: dimension 0 is 8, which is not 2*n + 1 for any n")
	assert.EqualError(t, BindSymbol(&n, &bound, "n", "w", []int{8}, 2, 0, 1, 0), "w: rank is 1 (shape [8]), want 2")
	// A rank-0 tensor is not called unset.
	assert.EqualError(t, BindSymbol(&n, &bound, "n", "input v", nil, 1, 0, 1, 0), "input v is not set, or is a rank-0 tensor (want rank 1)")
	assert.EqualError(t, CheckRange("n", 0, 1, -1), "symbol n = 0 is below its minimum 1")
}

type countingAllocator struct{ allocs, frees int }

func (c *countingAllocator) Alloc(size, align int) ([]byte, error) {
	c.allocs++
	return AlignedBytes(size, align), nil
}
func (c *countingAllocator) Free([]byte) { c.frees++ }

func TestKeptPoolsGrowAndReuse(t *testing.T) {
	a := &countingAllocator{}
	p := &KeptPools{Allocators: Allocators{"cpu": a}}
	b1, err := p.Acquire(0, "cpu", 100, 64)
	require.NoError(t, err)
	b2, _ := p.Acquire(0, "cpu", 50, 64)
	assert.Equal(t, &b1[0], &b2[0], "a smaller call reuses the pool")
	_, _ = p.Acquire(0, "cpu", 200, 64)
	assert.Equal(t, 2, a.allocs, "a larger call grows it")
	assert.Equal(t, 1, a.frees)
	p.Close()
	assert.Equal(t, 2, a.frees)
	_, err = (FreshPools{}).Acquire(0, "cuda:0", 10, 64)
	assert.ErrorContains(t, err, `no allocator for device "cuda:0"`)
}

func TestFloorArithmetic(t *testing.T) {
	assert.Equal(t, -3, FloorDiv(-7, 3))
	assert.Equal(t, 2, Mod(-7, 3))
	assert.Equal(t, -3, FloorDiv(7, -3))
	assert.Equal(t, -2, Mod(7, -3))
	assert.Equal(t, 2, FloorDiv(7, 3))
}

func TestDeliver(t *testing.T) {
	src := New(F32, 2)
	src.Float32s()[1] = 4
	var empty Tensor
	Deliver(&empty, src)
	assert.Equal(t, &src.Data[0], &empty.Data[0], "no buffer: the view itself")
	dst := New(F32, 2)
	Deliver(&dst, src)
	assert.Equal(t, float32(4), dst.Float32s()[1], "a buffer: copied into it")

	// A buffer given at the bounds of a run-time size takes the size the
	// kernel reported.
	capacity := New(F32, 2, 6)
	got := New(F32, 2, 3)
	got.Float32s()[5] = 7
	Deliver(&capacity, got)
	assert.Equal(t, []int{2, 3}, capacity.Shape)
	assert.Equal(t, []int{3, 1}, capacity.Strides)
	assert.Equal(t, float32(7), capacity.Float32s()[5])
}
