// Package sentinel provides kernels that check a wrapper's memory plan
// while it runs: every kernel fills each output (over its whole extent,
// honouring strides) with a pattern unique to that write, and first checks
// that every input still holds exactly what was last written to it. Two
// storages placed over each other while both are live show up as a
// corrupted input, named with the op that found it.
//
// wrapgen's selftest copies this package into a temporary module beside a
// generated wrapper; it is not part of the vendored runtime.
package sentinel

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Storage is one piece of memory the graph uses: a planned buffer or an
// input.
type Storage struct {
	Name  string // the tensor that owns it
	Bytes int
}

// View says where a tensor lies: in which storage, from which byte.
type View struct {
	Storage int
	Offset  int
}

// Checker is the state of one checked run.
type Checker struct {
	storages []Storage
	views    map[string]View
	// forget[op index] lists storages whose last use that op is, so their
	// expected bytes can be dropped and memory stays near the plan's peak.
	forget map[int][]int
	// expected holds, per storage, the byte last written at each position,
	// or unknown.
	expected   [][]uint16
	isInput    []bool // storages the checker made with Input
	writes     uint32
	Calls      int
	BytesRead  int64
	BytesWrote int64
	// NeverWrittenBytes counts the bytes kernels read that no op wrote
	// since their storage was allocated (in the same pass of a loop).
	NeverWrittenBytes int64
	first             error
	// permits holds {op index, output, input} triples whose memory may
	// overlap (declared inplace pairs and kernels' may_alias traits).
	permits map[[3]int]bool
}

// Permit records the output/input pairs of ops that may share memory; any
// other overlap of an output with an input of the same call is an error.
func (c *Checker) Permit(pairs [][3]int) {
	c.permits = map[[3]int]bool{}
	for _, p := range pairs {
		c.permits[p] = true
	}
}

// overlap reports whether a and b share any byte of memory.
func overlap(a, b wgrt.Tensor) bool {
	if len(a.Data) == 0 || len(b.Data) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a.Data))), uintptr(unsafe.Pointer(unsafe.SliceData(b.Data)))
	return pa < pb+uintptr(len(b.Data)) && pb < pa+uintptr(len(a.Data))
}

const unknown = 0xFFFF

// New makes a checker for storages and tensor views; forget lists, per op
// index, storages not read after that op.
func New(storages []Storage, views map[string]View, forget map[int][]int) *Checker {
	return &Checker{storages: storages, views: views, forget: forget, expected: make([][]uint16, len(storages)), isInput: make([]bool, len(storages))}
}

// BeginCall starts a wrapper call: what earlier calls wrote to planned
// storages says nothing about this one (its memory may be new, or reused
// with other contents), so only the inputs' contents are still known. A
// graph may read memory that no op of the call wrote (an output written in
// part, a strided base read through a view over its gaps): that reads
// undefined bytes, not corrupted ones.
func (c *Checker) BeginCall() {
	for s := range c.expected {
		if !c.isInput[s] {
			c.expected[s] = nil
		}
	}
}

// Err is the first corruption found, if any.
func (c *Checker) Err() error { return c.first }

func (c *Checker) fail(err error) error {
	if c.first == nil {
		c.first = err
	}
	return err
}

// Input makes an input tensor filled with its pattern, in host memory
// whatever its device (as the fake devices of Allocators give).
func (c *Checker) Input(name string, dtype wgrt.DType, device string, shape, strides []int) wgrt.Tensor {
	t := wgrt.Tensor{DType: dtype, Shape: shape, Strides: strides, Device: device}
	t.Data = wgrt.AlignedBytes(wgrt.Extent(shape, strides)*dtype.Size(), 64)
	if v, ok := c.views[name]; ok {
		c.isInput[v.Storage] = true
	}
	c.write(name, t)
	return t
}

// Call is a wgrt.KernelFunc: check the inputs, then write the outputs and
// the mutated tensors.
func (c *Checker) Call(call *wgrt.Call) error {
	if call.Op == nil {
		return c.fail(fmt.Errorf("kernel %s called without its op", call.Kernel))
	}
	c.Calls++
	for i, t := range call.Inputs {
		if err := c.check("", call.Op.Inputs[i], t); err != nil {
			return c.fail(err)
		}
	}
	for i, out := range call.Outputs {
		for j, in := range call.Inputs {
			if overlap(out, in) && !c.permits[[3]int{call.Op.Index, i, j}] {
				return c.fail(fmt.Errorf("output %q shares memory with input %q, which neither an inplace declaration nor the kernel's may_alias allows",
					call.Op.Outputs[i], call.Op.Inputs[j]))
			}
		}
	}
	for i, t := range call.Outputs {
		if slices.Contains(call.Op.Sets, call.Op.Outputs[i]) {
			continue // a reported size: left at the bound the runtime wrote
		}
		c.write(call.Op.Outputs[i], t)
	}
	// Scratch is scribbled over: if the plan put it over a live tensor, that
	// tensor's next check fails.
	for i := range call.Scratch {
		call.Scratch[i] = byte(mix(uint32(c.Calls)*0x85EBCA6B ^ uint32(i)))
	}
	for _, name := range call.Op.Mutates {
		for i, in := range call.Op.Inputs {
			if in == name {
				c.write(name, call.Inputs[i])
			}
		}
	}
	for _, s := range c.forget[call.Op.Index] {
		c.expected[s] = nil
	}
	return nil
}

// CheckOutput checks a returned output.
func (c *Checker) CheckOutput(name string, t wgrt.Tensor) error {
	if err := c.check("returned output: ", name, t); err != nil {
		return c.fail(err)
	}
	return nil
}

// CheckParam checks that a param still holds the pattern it was made
// with: no call wrote it.
func (c *Checker) CheckParam(name string, t wgrt.Tensor) error {
	if err := c.check("param written: ", name, t); err != nil {
		return c.fail(err)
	}
	return nil
}

// each calls f with the byte offset of every element of t, in order.
func each(t wgrt.Tensor, f func(elem, off int)) {
	n := t.NumElements()
	idx := make([]int, len(t.Shape))
	size := t.DType.Size()
	off := 0
	for e := 0; e < n; e++ {
		f(e, off*size)
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			off += t.Strides[d]
			if idx[d] < t.Shape[d] {
				break
			}
			off -= idx[d] * t.Strides[d]
			idx[d] = 0
		}
	}
}

func (c *Checker) write(name string, t wgrt.Tensor) {
	v, ok := c.views[name]
	if !ok {
		c.fail(fmt.Errorf("tensor %q is not in the selftest's table", name))
		return
	}
	c.writes++
	exp := c.expected[v.Storage]
	if exp == nil {
		exp = make([]uint16, c.storages[v.Storage].Bytes)
		for i := range exp {
			exp[i] = unknown
		}
		c.expected[v.Storage] = exp
	}
	size := t.DType.Size()
	seed := c.writes * 0x9E3779B1
	each(t, func(e, off int) {
		for j := 0; j < size; j++ {
			b := byte(mix(seed ^ uint32(off+j)))
			t.Data[off+j] = b
			exp[v.Offset+off+j] = uint16(b)
		}
		c.BytesWrote += int64(size)
	})
}

func (c *Checker) check(where, name string, t wgrt.Tensor) error {
	v, ok := c.views[name]
	if !ok {
		return fmt.Errorf("%stensor %q is not in the selftest's table", where, name)
	}
	exp := c.expected[v.Storage]
	if exp == nil {
		// Nothing written to the storage this pass: a param or constant
		// (which the checker does not write), or memory a loop body's
		// earlier pass wrote, forgotten since.
		return nil
	}
	size := t.DType.Size()
	var bad error
	each(t, func(e, off int) {
		if bad != nil {
			return
		}
		for j := 0; j < size; j++ {
			want := exp[v.Offset+off+j]
			if want == unknown {
				// Part of a storage written in part: the graph reads bytes
				// no op wrote (its mistake, or a view over gaps), which
				// says nothing about the plan.
				c.NeverWrittenBytes++
				continue
			}
			if want != unknown && uint16(t.Data[off+j]) != want {
				bad = fmt.Errorf("%sinput %q (storage of %q) is corrupted: element %d byte %d is 0x%02x, but 0x%02x was written there",
					where, name, c.storages[v.Storage].Name, e, j, t.Data[off+j], want)
				return
			}
		}
		c.BytesRead += int64(size)
	})
	return bad
}

func mix(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	x *= 0x846ca68b
	x ^= x >> 16
	return x
}
