package sentinel

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Two storages at one address: a write through one corrupts the other,
// and the checker names the tensor and op.
func TestDetectsOverlap(t *testing.T) {
	c := New([]Storage{{"x", 16}, {"a", 16}, {"b", 16}},
		map[string]View{"x": {0, 0}, "a": {1, 0}, "b": {2, 0}}, nil)
	x := c.Input("x", wgrt.F32, "cpu", []int{4}, []int{1})
	mem := wgrt.AlignedBytes(16, 64)
	a := wgrt.Tensor{DType: wgrt.F32, Shape: []int{4}, Strides: []int{1}, Data: mem}
	b := a // same memory: the fault
	op0 := &wgrt.Op{Index: 0, Place: "ops[0]", Kernel: "k", Inputs: []string{"x"}, Outputs: []string{"a"}}
	op1 := &wgrt.Op{Index: 1, Place: "ops[1]", Kernel: "k", Inputs: []string{"x"}, Outputs: []string{"b"}}
	op2 := &wgrt.Op{Index: 2, Place: "ops[2]", Kernel: "k", Inputs: []string{"a"}, Outputs: nil}
	require.NoError(t, c.Call(&wgrt.Call{Kernel: "k", Op: op0, Inputs: []wgrt.Tensor{x}, Outputs: []wgrt.Tensor{a}}))
	require.NoError(t, c.Call(&wgrt.Call{Kernel: "k", Op: op1, Inputs: []wgrt.Tensor{x}, Outputs: []wgrt.Tensor{b}}))
	err := c.Call(&wgrt.Call{Kernel: "k", Op: op2, Inputs: []wgrt.Tensor{a}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `input "a" (storage of "a") is corrupted`)
	assert.Equal(t, err, c.Err())
}

// Strided views: only the elements are written and checked, so a view
// that skips bytes leaves them alone.
func TestStridedViews(t *testing.T) {
	c := New([]Storage{{"s", 32}}, map[string]View{"even": {0, 0}, "odd": {0, 4}}, nil)
	mem := wgrt.AlignedBytes(32, 64)
	even := wgrt.Tensor{DType: wgrt.F32, Shape: []int{4}, Strides: []int{2}, Data: mem[0:28]}
	odd := wgrt.Tensor{DType: wgrt.F32, Shape: []int{4}, Strides: []int{2}, Data: mem[4:32]}
	w := &wgrt.Op{Index: 0, Place: "ops[0]", Kernel: "w", Outputs: []string{"even"}}
	w2 := &wgrt.Op{Index: 1, Place: "ops[1]", Kernel: "w", Outputs: []string{"odd"}}
	r := &wgrt.Op{Index: 2, Place: "ops[2]", Kernel: "r", Inputs: []string{"even", "odd"}}
	require.NoError(t, c.Call(&wgrt.Call{Op: w, Outputs: []wgrt.Tensor{even}}))
	require.NoError(t, c.Call(&wgrt.Call{Op: w2, Outputs: []wgrt.Tensor{odd}}))
	require.NoError(t, c.Call(&wgrt.Call{Op: r, Inputs: []wgrt.Tensor{even, odd}}))
	assert.Equal(t, int64(32), c.BytesRead)
}

// A new call forgets what earlier calls wrote to planned storages (their
// memory may hold anything now) but keeps the inputs.
func TestBeginCallForgetsAllButInputs(t *testing.T) {
	c := New([]Storage{{"x", 16}, {"a", 16}}, map[string]View{"x": {0, 0}, "a": {1, 0}}, nil)
	x := c.Input("x", wgrt.F32, "cpu", []int{4}, []int{1})
	a := wgrt.Tensor{DType: wgrt.F32, Shape: []int{4}, Strides: []int{1}, Data: wgrt.AlignedBytes(16, 64)}
	w := &wgrt.Op{Index: 0, Place: "ops[0]", Kernel: "w", Inputs: []string{"x"}, Outputs: []string{"a"}}
	r := &wgrt.Op{Index: 1, Place: "ops[1]", Kernel: "r", Inputs: []string{"x", "a"}}
	c.BeginCall()
	require.NoError(t, c.Call(&wgrt.Call{Op: w, Inputs: []wgrt.Tensor{x}, Outputs: []wgrt.Tensor{a}}))
	c.BeginCall()
	fresh := a
	fresh.Data = wgrt.AlignedBytes(16, 64) // the next call's memory, never written
	require.NoError(t, c.Call(&wgrt.Call{Op: r, Inputs: []wgrt.Tensor{x, fresh}}), "unwritten memory of a new call is not corrupted")
	x.Data[0] ^= 1
	err := c.Call(&wgrt.Call{Op: r, Inputs: []wgrt.Tensor{x, fresh}})
	require.Error(t, err, "inputs stay known across calls")
	assert.Contains(t, err.Error(), `input "x" (storage of "x") is corrupted`)
}

// Fake devices hand out host memory and refuse a buffer freed twice.
func TestFakeDevices(t *testing.T) {
	c := New(nil, nil, nil)
	as := c.Allocators("cuda:0")
	a, err := as.For("cuda:0")
	require.NoError(t, err)
	buf, err := a.Alloc(100, 64)
	require.NoError(t, err)
	assert.Len(t, buf, 100)
	a.Free(buf)
	require.NoError(t, c.Err())
	a.Free(buf)
	require.Error(t, c.Err())
	assert.Contains(t, c.Err().Error(), `device "cuda:0"`)
	_, err = as.For("cuda:1")
	assert.Error(t, err, "only the devices named get an allocator")
}

// writeOp and readOp call the checker as a kernel of one output or one
// input.
func writeOp(c *Checker, index int, name string, t wgrt.Tensor) error {
	op := &wgrt.Op{Index: index, Place: "test", Kernel: "k", Outputs: []string{name}}
	return c.Call(&wgrt.Call{Kernel: "k", Op: op, Outputs: []wgrt.Tensor{t}})
}

func readOp(c *Checker, index int, name string, t wgrt.Tensor) error {
	op := &wgrt.Op{Index: index, Place: "test", Kernel: "k", Inputs: []string{name}}
	return c.Call(&wgrt.Call{Kernel: "k", Op: op, Inputs: []wgrt.Tensor{t}})
}

// corrupt flips a byte and says what the checker must report of it.
func corrupt(p *byte, elem, byt int) string {
	was := *p
	*p ^= 0x5A
	return fmt.Sprintf("element %d byte %d is 0x%02x, but 0x%02x was written there", elem, byt, *p, was)
}

func view(mem []byte, dtype wgrt.DType, shape, strides []int) wgrt.Tensor {
	return wgrt.Tensor{DType: dtype, Shape: shape, Strides: strides, Data: mem[:wgrt.Extent(shape, strides)*dtype.Size()]}
}

// A 3x5 f32 tensor, contiguous (one run), transposed in memory (strides
// 1, 3: a permuted block, checked as a block, then element by element to
// name the bad one) and with gaps (strides 1, 4: element by element): a
// byte flipped in element 7 (row 1, column 2) is reported as element 7
// every way, and an untouched tensor reads clean.
func TestSameVerdictsContiguousAndStrided(t *testing.T) {
	c := New([]Storage{{"a", 60}, {"b", 60}, {"c", 80}}, map[string]View{"a": {0, 0}, "b": {1, 0}, "c": {2, 0}}, nil)
	ma, mb, mc := make([]byte, 60), make([]byte, 60), make([]byte, 80)
	a := view(ma, wgrt.F32, []int{3, 5}, []int{5, 1})
	b := view(mb, wgrt.F32, []int{3, 5}, []int{1, 3})
	g := view(mc, wgrt.F32, []int{3, 5}, []int{1, 4})
	c.BeginCall()
	require.NoError(t, writeOp(c, 0, "a", a))
	require.NoError(t, writeOp(c, 1, "b", b))
	require.NoError(t, writeOp(c, 2, "c", g))
	assert.Equal(t, int64(180), c.BytesWrote)
	require.NoError(t, readOp(c, 3, "a", a))
	require.NoError(t, readOp(c, 4, "b", b))
	require.NoError(t, readOp(c, 5, "c", g))
	assert.Equal(t, int64(180), c.BytesRead)
	wantA := corrupt(&ma[(1*5+2)*4+3], 7, 3)
	wantB := corrupt(&mb[(1*1+2*3)*4+3], 7, 3)
	wantC := corrupt(&mc[(1*1+2*4)*4+3], 7, 3)
	errA, errB, errC := readOp(c, 6, "a", a), readOp(c, 7, "b", b), readOp(c, 8, "c", g)
	require.Error(t, errA)
	require.Error(t, errB)
	require.Error(t, errC)
	assert.Equal(t, `input "a" (storage of "a") is corrupted: `+wantA, errA.Error())
	assert.Equal(t, `input "b" (storage of "b") is corrupted: `+wantB, errB.Error())
	assert.Equal(t, `input "c" (storage of "c") is corrupted: `+wantC, errC.Error())
	assert.Equal(t, int64(180+3*7*4), c.BytesRead, "the elements before the corrupt one were read whole")
	assert.Zero(t, c.NeverWrittenBytes)
	assert.Equal(t, errA, c.Err())
	// Put back, c reads clean, and a byte in a gap of c is no element's.
	mc[(1*1+2*4)*4+3] ^= 0x5A
	mc[3*4] ^= 1
	require.NoError(t, readOp(c, 9, "c", g))
}

// A tensor tiles a block when its strides, sorted, are row-major for its
// shape: contiguous or permuted, not with gaps, overlaps or broadcasts.
func TestDense(t *testing.T) {
	for _, tc := range []struct {
		shape, strides []int
		want           bool
	}{
		{[]int{3, 5}, []int{5, 1}, true},
		{[]int{3, 5}, []int{1, 3}, true},
		{[]int{2, 3, 4}, []int{4, 8, 1}, true},
		{[]int{2, 1, 4}, []int{4, 99, 1}, true},
		{[]int{1}, []int{7}, true},
		{[]int{3, 5}, []int{1, 4}, false},
		{[]int{3, 5}, []int{6, 1}, false},
		{[]int{3, 5}, []int{0, 1}, false},
		{[]int{2, 2}, []int{1, 1}, false},
		{[]int{0, 5}, []int{5, 1}, false},
	} {
		x := wgrt.Tensor{DType: wgrt.F32, Shape: tc.shape, Strides: tc.strides}
		assert.Equal(t, tc.want, dense(x), "shape %v strides %v", tc.shape, tc.strides)
	}
}

// A stale block: a contiguous run holds, in its middle, bytes of an
// earlier write to the same place. The first byte that differs is named.
func TestStaleBlockInARun(t *testing.T) {
	c := New([]Storage{{"s", 4096}}, map[string]View{"t": {0, 0}}, nil)
	mem := make([]byte, 4096)
	x := view(mem, wgrt.F16, []int{2048}, []int{1})
	require.NoError(t, writeOp(c, 0, "t", x))
	first := slices.Clone(mem)
	require.NoError(t, writeOp(c, 1, "t", x))
	same := 0
	for i := range mem {
		if mem[i] == first[i] {
			same++
		}
	}
	assert.Less(t, same, 4096/64, "a new write changes (nearly) every byte")
	bad := 0
	for i := 1001; i < 1041; i++ {
		if bad == 0 && mem[i] != first[i] {
			bad = i
		}
		mem[i] = first[i]
	}
	require.True(t, bad >= 1001 && bad < 1016, "each 8-byte word of a new write differs somewhere: %d", bad)
	err := readOp(c, 2, "t", x)
	require.Error(t, err)
	assert.Contains(t, err.Error(), fmt.Sprintf("element %d byte %d is 0x%02x, but ", bad/2, bad%2, first[bad]))
	assert.Equal(t, int64(bad/2*2), c.BytesRead)
}

// Bytes no op wrote are counted, not held against the plan: a base read
// whole after a strided view wrote every other element of it, and
// corruption of a written one is still found with the base's element
// number.
func TestNeverWrittenBytes(t *testing.T) {
	c := New([]Storage{{"base", 80}}, map[string]View{"even": {0, 0}, "base": {0, 0}, "wide": {0, 0}}, nil)
	mem := make([]byte, 80)
	even := view(mem, wgrt.C128, []int{3}, []int{2}) // elements 0, 2, 4 of 16 bytes
	base := view(mem, wgrt.F64, []int{10}, []int{1})
	require.NoError(t, writeOp(c, 0, "even", even))
	assert.Equal(t, int64(48), c.BytesWrote)
	for i := 16; i < 32; i++ {
		mem[i] = 0xEE // a gap
	}
	require.NoError(t, readOp(c, 1, "base", base))
	assert.Equal(t, int64(32), c.NeverWrittenBytes)
	assert.Equal(t, int64(80), c.BytesRead)
	// The same bytes element by element, out of order (2x5, strides 1, 2).
	cols := view(mem, wgrt.F64, []int{2, 5}, []int{1, 2})
	require.NoError(t, readOp(c, 2, "base", cols))
	assert.Equal(t, int64(64), c.NeverWrittenBytes)
	assert.Equal(t, int64(160), c.BytesRead)
	want := corrupt(&mem[8*8+5], 8, 5)
	err := readOp(c, 3, "base", base)
	require.Error(t, err)
	assert.Contains(t, err.Error(), want)
	assert.Equal(t, int64(64+32), c.NeverWrittenBytes, "unknown bytes before the corrupt one (16..31, 48..63) counted")
	assert.Equal(t, int64(160+8*8), c.BytesRead)
	// Dims of size 1 (any stride) do not break a run; a new pass forgets.
	wide := view(mem, wgrt.U8, []int{2, 1, 40}, []int{40, 7, 1})
	c.BeginCall()
	require.NoError(t, readOp(c, 4, "wide", wide))
	require.NoError(t, writeOp(c, 5, "wide", wide))
	require.NoError(t, readOp(c, 6, "base", base))
	assert.Equal(t, int64(96), c.NeverWrittenBytes)
}

// The pattern is the same whichever way a tensor is walked: filling a
// block at once equals filling it byte by byte, from any start.
func TestFillMatchesPatternByte(t *testing.T) {
	for _, start := range []uint64{0, 1, 5, 8, 13} {
		for _, n := range []int{0, 1, 7, 8, 9, 23, 64} {
			got := make([]byte, n)
			fill(got, 42, start)
			for i := range got {
				require.Equal(t, patternByte(42, start+uint64(i)), got[i], "start %d n %d byte %d", start, n, i)
			}
		}
	}
}
