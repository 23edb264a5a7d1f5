// Package sentinel provides kernels that check a wrapper's memory plan
// while it runs: every kernel fills each output (over its whole extent,
// honouring strides) with a pattern unique to that write, and first checks
// that every input still holds exactly what was last written to it. Two
// storages placed over each other while both are live show up as a
// corrupted input, named with the op that found it.
//
// The work is per byte of every tensor of a large graph, so it goes by
// blocks: a tensor whose elements tile a block (contiguous, or permuted as
// a transposed weight) is one, others are cut into runs of elements
// contiguous in memory. The pattern is made a 64-bit hash at a time, and
// copied, compared and tracked (a known-bit per byte) a block at a time;
// what a storage must hold is kept from pass to pass, not allocated again.
//
// wrapgen's selftest copies this package into a temporary module beside a
// generated wrapper; it is not part of the vendored runtime.
package sentinel

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math/bits"
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
	// expected holds, per storage, what it must hold.
	expected   []expected
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

// expected is what a storage must hold: the byte last written at each
// position, where known has its bit set; positions no op wrote since the
// storage was allocated (in this pass) are unknown. Its memory is kept
// across passes; only the known bits are cleared.
type expected struct {
	live  bool // written in this pass
	bytes []byte
	known []uint64
}

// New makes a checker for storages and tensor views; forget lists, per op
// index, storages not read after that op.
func New(storages []Storage, views map[string]View, forget map[int][]int) *Checker {
	return &Checker{storages: storages, views: views, forget: forget, expected: make([]expected, len(storages)), isInput: make([]bool, len(storages))}
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
			c.expected[s].live = false
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
	fill(call.Scratch, uint64(c.Calls)*0x85EBCA77C2B2AE63, 0)
	for _, name := range call.Op.Mutates {
		for i, in := range call.Op.Inputs {
			if in == name {
				c.write(name, call.Inputs[i])
			}
		}
	}
	for _, s := range c.forget[call.Op.Index] {
		c.expected[s].live = false
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

// eachRun calls f(first element, byte offset, elements) for the runs of
// t's elements that lie one after another in memory, in element order: one
// run when t is contiguous, one element each when its innermost stride is
// not 1.
func eachRun(t wgrt.Tensor, f func(elem, off, elems int)) {
	n := t.NumElements()
	if n <= 0 {
		return
	}
	run, outer := 1, len(t.Shape) // dims [outer, rank) make up one run
	for outer > 0 && (t.Shape[outer-1] == 1 || t.Strides[outer-1] == run) {
		run *= t.Shape[outer-1]
		outer--
	}
	var idxBuf [8]int
	idx := idxBuf[:]
	if outer > len(idx) {
		idx = make([]int, outer)
	}
	size := t.DType.Size()
	off := 0
	for e := 0; e < n; e += run {
		f(e, off*size, run)
		for d := outer - 1; d >= 0; d-- {
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

// dense reports whether t's elements tile bytes [0, elements*size) once
// each, in some order: its strides, sorted, are row-major for its shape
// sorted alike (a contiguous tensor, or a permutation of one).
func dense(t wgrt.Tensor) bool {
	if t.NumElements() <= 0 {
		return false
	}
	var dimsBuf [8]int
	dims := dimsBuf[:0]
	for d, n := range t.Shape {
		if n != 1 {
			dims = append(dims, d)
		}
	}
	slices.SortStableFunc(dims, func(a, b int) int { return cmp.Compare(t.Strides[a], t.Strides[b]) })
	want := 1
	for _, d := range dims {
		if t.Strides[d] != want {
			return false
		}
		want *= t.Shape[d]
	}
	return true
}

// mix64 is a bijection (splitmix64's finalizer): two writes (seeds) give
// different words at the same position.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// patternByte is the byte at offset o from a tensor's first byte of the
// write with seed: byte o%8 (little-endian) of mix64(seed ^ o/8), so it does
// not depend on how the elements were walked.
func patternByte(seed, o uint64) byte {
	return byte(mix64(seed^o>>3) >> (8 * (o & 7)))
}

// fill writes the pattern of bytes [o, o+len(dst)) of a tensor to dst.
func fill(dst []byte, seed, o uint64) {
	i := 0
	for ; i < len(dst) && (o+uint64(i))&7 != 0; i++ {
		dst[i] = patternByte(seed, o+uint64(i))
	}
	for ; i+8 <= len(dst); i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], mix64(seed^(o+uint64(i))>>3))
	}
	for ; i < len(dst); i++ {
		dst[i] = patternByte(seed, o+uint64(i))
	}
}

// setKnown sets the known bits of bytes [pos, pos+n).
func setKnown(known []uint64, pos, n int) {
	for end := pos + n; pos < end; {
		bit := pos & 63
		take := min(64-bit, end-pos)
		mask := ^uint64(0)
		if take < 64 {
			mask = (uint64(1)<<take - 1) << bit
		}
		known[pos>>6] |= mask
		pos += take
	}
}

func isKnown(known []uint64, pos int) bool { return known[pos>>6]>>(pos&63)&1 == 1 }

// spanEnd is the first position in [pos, end) whose known bit differs from
// the one at pos, or end.
func spanEnd(known []uint64, pos, end int) int {
	want := isKnown(known, pos)
	for pos < end {
		change := known[pos>>6]
		if want {
			change = ^change
		}
		if change >>= pos & 63; change != 0 {
			return min(end, pos+bits.TrailingZeros64(change))
		}
		pos = pos | 63 + 1
	}
	return end
}

func (c *Checker) write(name string, t wgrt.Tensor) {
	v, ok := c.views[name]
	if !ok {
		c.fail(fmt.Errorf("tensor %q is not in the selftest's table", name))
		return
	}
	c.writes++
	exp := &c.expected[v.Storage]
	if !exp.live {
		n := c.storages[v.Storage].Bytes
		if len(exp.bytes) != n {
			exp.bytes = make([]byte, n)
			exp.known = make([]uint64, (n+63)/64)
		} else {
			clear(exp.known)
		}
		exp.live = true
	}
	size := t.DType.Size()
	seed := uint64(c.writes) * 0x9E3779B97F4A7C15
	write := func(_, off, elems int) {
		n := elems * size
		fill(t.Data[off:off+n], seed, uint64(off))
		copy(exp.bytes[v.Offset+off:v.Offset+off+n], t.Data[off:off+n])
		setKnown(exp.known, v.Offset+off, n)
		c.BytesWrote += int64(n)
	}
	// The pattern depends on the offset only, so a tensor that tiles a
	// block is written as the block, in memory order.
	if dense(t) {
		write(0, 0, t.NumElements())
	} else {
		eachRun(t, write)
	}
}

// firstBad compares got with want (the bytes of exp from position pos): the
// index of the first known byte that differs, or -1, and the number of
// unknown bytes before it.
func firstBad(got []byte, exp *expected, pos int) (bad, unknown int) {
	want := exp.bytes[pos : pos+len(got)]
	for i := 0; i < len(got); {
		j := spanEnd(exp.known, pos+i, pos+len(got)) - pos
		if !isKnown(exp.known, pos+i) {
			unknown += j - i
		} else if !bytes.Equal(got[i:j], want[i:j]) {
			m := i
			for got[m] == want[m] {
				m++
			}
			return m, unknown
		}
		i = j
	}
	return -1, unknown
}

func (c *Checker) check(where, name string, t wgrt.Tensor) error {
	v, ok := c.views[name]
	if !ok {
		return fmt.Errorf("%stensor %q is not in the selftest's table", where, name)
	}
	exp := &c.expected[v.Storage]
	if !exp.live {
		// Nothing written to the storage this pass: a param or constant
		// (which the checker does not write), or memory a loop body's
		// earlier pass wrote, forgotten since.
		return nil
	}
	size := t.DType.Size()
	// Bytes no op wrote (of a storage written in part: the graph's
	// mistake, or a view over gaps) say nothing about the plan; firstBad
	// skips them and they are counted.
	if dense(t) {
		// The block holds the same bytes as the elements, once each: if it
		// is clean, so is every element. If not, the walk below names the
		// first bad element in element order.
		n := t.NumElements() * size
		if m, unknown := firstBad(t.Data[:n], exp, v.Offset); m < 0 {
			c.NeverWrittenBytes += int64(unknown)
			c.BytesRead += int64(n)
			return nil
		}
	}
	var bad error
	eachRun(t, func(e0, off, elems int) {
		if bad != nil {
			return
		}
		n := elems * size
		m, unknown := firstBad(t.Data[off:off+n], exp, v.Offset+off)
		c.NeverWrittenBytes += int64(unknown)
		if m < 0 {
			c.BytesRead += int64(n)
			return
		}
		c.BytesRead += int64(m / size * size)
		bad = fmt.Errorf("%sinput %q (storage of %q) is corrupted: element %d byte %d is 0x%02x, but 0x%02x was written there",
			where, name, c.storages[v.Storage].Name, e0+m/size, m%size, t.Data[off+m], exp.bytes[v.Offset+off+m])
	})
	return bad
}
