package sentinel

import (
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
