package wgref

import (
	"fmt"
	"slices"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The elementwise engine: one loop over the output's index space with every
// operand's strides (broadcast dimensions stride 0), each element computed
// in its dtype family. Every element of every input at a position is read
// before the output element at that position is written, so an output may
// share memory with an input of its exact shape (may_alias).

// unaryOp is one elementwise function per dtype family; nil where the op
// is not defined.
type unaryOp struct {
	f func(float64) float64
	i func(int64) int64
	u func(uint64) uint64
	// vec, when set, computes float32 tensors in float32 over rows
	// (vec.go) rather than through f per element.
	vec unaryF32
	// fp, when set, is f with parameters p (attributes): a function value
	// and its parameters rather than a closure over them, which would be
	// allocated at every call. With intsViaFloat it serves integers too,
	// computed exactly in float64.
	fp           func(x float64, p params) float64
	p            params
	intsViaFloat bool
}

// params are a unary function's attributes, in an order it knows.
type params [2]float64

// float is the function on floats.
func (op *unaryOp) float(x float64) float64 {
	if op.fp != nil {
		return op.fp(x, op.p)
	}
	return op.f(x)
}

func (op *unaryOp) hasFloat() bool { return op.f != nil || op.fp != nil }

func (op *unaryOp) hasInt() bool { return op.i != nil || op.intsViaFloat }

func (op *unaryOp) hasUint() bool { return op.u != nil || op.intsViaFloat }

func (op *unaryOp) int(x int64) int64 {
	if op.i == nil {
		return int64(op.float(float64(x)))
	}
	return op.i(x)
}

func (op *unaryOp) uint(x uint64) uint64 {
	if op.u == nil {
		return uint64(op.float(float64(x)))
	}
	return op.u(x)
}

// mapUnary writes out = op(x) elementwise.
func mapUnary(c *wgrt.Call, op unaryOp) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	if !sameShape(out.Shape, x.Shape) {
		return fmt.Errorf("%s: output shape %v differs from input shape %v", c.Kernel, out.Shape, x.Shape)
	}
	if len(out.Shape) > maxRank {
		return fmt.Errorf("%s: rank %d is beyond the reference kernels' %d", c.Kernel, len(out.Shape), maxRank)
	}
	strides := [][]int{out.Strides, x.Strides}
	switch fam := familyOf(x.DType); {
	case fam == famFloat && op.hasFloat():
		if x.DType == wgrt.F32 && out.DType == wgrt.F32 {
			xs, os := elems[float32](x), elems[float32](out)
			if op.vec.kind != unaryNone {
				op.vec.applyRows(out.Shape, os, out.Strides, xs, x.Strides, threadsOf(c))
				return nil
			}
			var it rowIter
			it.initPair(out, x)
			for it.next() {
				o, i, so, si := it.off[0], it.off[1], it.step[0], it.step[1]
				for k := 0; k < it.n; k++ {
					os[o] = float32(op.float(float64(xs[i])))
					o, i = o+so, i+si
				}
			}
			return nil
		}
		eachRow(out.Shape, strides, func(off [maxOperands]int, n int, step [maxOperands]int) {
			for k := 0; k < n; k++ {
				storeF(out, off[0]+k*step[0], op.float(loadF(x, off[1]+k*step[1])))
			}
		})
	case (fam == famInt || fam == famBool) && op.hasInt():
		eachRow(out.Shape, strides, func(off [maxOperands]int, n int, step [maxOperands]int) {
			for k := 0; k < n; k++ {
				storeI(out, off[0]+k*step[0], op.int(loadI(x, off[1]+k*step[1])))
			}
		})
	case fam == famUint && op.hasUint():
		eachRow(out.Shape, strides, func(off [maxOperands]int, n int, step [maxOperands]int) {
			for k := 0; k < n; k++ {
				storeU(out, off[0]+k*step[0], op.uint(loadU(x, off[1]+k*step[1])))
			}
		})
	default:
		return unsupported(c, x.DType)
	}
	return nil
}

// binaryOp is one elementwise function of two operands per dtype family
// (of the first operand); vec, when set, computes float32 tensors in
// float32 over rows (vec.go) rather than through f per element.
type binaryOp struct {
	f   func(x, y float64) float64
	i   func(x, y int64) int64
	u   func(x, y uint64) uint64
	vec binaryKind
}

// zip writes out = op(a, b) with broadcasting.
func zip(c *wgrt.Call, out, a, b wgrt.Tensor, op binaryOp) error {
	if !broadcasts(a.Shape, b.Shape) || len(out.Shape) < max(len(a.Shape), len(b.Shape)) {
		return fmt.Errorf("%s: shapes %v and %v do not broadcast to %v", c.Kernel, a.Shape, b.Shape, out.Shape)
	}
	if len(out.Shape) > maxRank {
		return fmt.Errorf("%s: rank %d is beyond the reference kernels' %d", c.Kernel, len(out.Shape), maxRank)
	}
	if a.DType == wgrt.F32 && b.DType == wgrt.F32 && out.DType == wgrt.F32 && op.f != nil {
		as, bs, os := elems[float32](a), elems[float32](b), elems[float32](out)
		var aBuf, bBuf [maxRank]int
		sa, sb := broadcastStrides(&aBuf, out.Shape, a), broadcastStrides(&bBuf, out.Shape, b)
		if op.vec != binaryNone {
			op.vec.applyRows(out.Shape, os, out.Strides, as, sa, bs, sb, threadsOf(c))
			return nil
		}
		var it rowIter
		it.init(out.Shape)
		it.add(out.Strides, 0)
		it.add(sa, 0)
		it.add(sb, 0)
		it.coalesce()
		for it.next() {
			o, i, j := it.off[0], it.off[1], it.off[2]
			for k := 0; k < it.n; k++ {
				os[o] = float32(op.f(float64(as[i]), float64(bs[j])))
				o, i, j = o+it.step[0], i+it.step[1], j+it.step[2]
			}
		}
		return nil
	}
	strides := [][]int{out.Strides, broadcastStrides(new([maxRank]int), out.Shape, a), broadcastStrides(new([maxRank]int), out.Shape, b)}
	switch fam := familyOf(a.DType); {
	case fam == famFloat && op.f != nil:
		eachRow(out.Shape, strides, func(off [maxOperands]int, n int, step [maxOperands]int) {
			for k := 0; k < n; k++ {
				storeF(out, off[0]+k*step[0], op.f(loadF(a, off[1]+k*step[1]), loadF(b, off[2]+k*step[2])))
			}
		})
	case (fam == famInt || fam == famBool) && op.i != nil:
		eachRow(out.Shape, strides, func(off [maxOperands]int, n int, step [maxOperands]int) {
			for k := 0; k < n; k++ {
				storeI(out, off[0]+k*step[0], op.i(loadI(a, off[1]+k*step[1]), loadI(b, off[2]+k*step[2])))
			}
		})
	case fam == famUint && op.u != nil:
		eachRow(out.Shape, strides, func(off [maxOperands]int, n int, step [maxOperands]int) {
			for k := 0; k < n; k++ {
				storeU(out, off[0]+k*step[0], op.u(loadU(a, off[1]+k*step[1]), loadU(b, off[2]+k*step[2])))
			}
		})
	default:
		return unsupported(c, a.DType)
	}
	return nil
}

// compareOp is a predicate of two operands per family.
type compareOp struct {
	f func(x, y float64) bool
	i func(x, y int64) bool
	u func(x, y uint64) bool
}

// zipCompare writes a bool out = op(a, b) with broadcasting.
func zipCompare(c *wgrt.Call, op compareOp) error {
	if err := need(c, 1, 2, 2); err != nil {
		return err
	}
	out, a, b := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	if !broadcasts(a.Shape, b.Shape) {
		return fmt.Errorf("%s: shapes %v and %v do not broadcast", c.Kernel, a.Shape, b.Shape)
	}
	strides := [][]int{out.Strides, broadcastStrides(new([maxRank]int), out.Shape, a), broadcastStrides(new([maxRank]int), out.Shape, b)}
	bit := func(v bool) byte {
		if v {
			return 1
		}
		return 0
	}
	switch familyOf(a.DType) {
	case famFloat:
		eachRow(out.Shape, strides, func(off [maxOperands]int, n int, step [maxOperands]int) {
			for k := 0; k < n; k++ {
				out.Data[off[0]+k*step[0]] = bit(op.f(loadF(a, off[1]+k*step[1]), loadF(b, off[2]+k*step[2])))
			}
		})
	case famInt, famBool:
		eachRow(out.Shape, strides, func(off [maxOperands]int, n int, step [maxOperands]int) {
			for k := 0; k < n; k++ {
				out.Data[off[0]+k*step[0]] = bit(op.i(loadI(a, off[1]+k*step[1]), loadI(b, off[2]+k*step[2])))
			}
		})
	case famUint:
		eachRow(out.Shape, strides, func(off [maxOperands]int, n int, step [maxOperands]int) {
			for k := 0; k < n; k++ {
				out.Data[off[0]+k*step[0]] = bit(op.u(loadU(a, off[1]+k*step[1]), loadU(b, off[2]+k*step[2])))
			}
		})
	default:
		return unsupported(c, a.DType)
	}
	return nil
}

// nary is a kernel of two inputs, or of any number folded left to right
// (Sum, Max, Min); mean divides the result by the count.
func nary(op binaryOp, mean bool) Kernel {
	return func(c *wgrt.Call) error {
		if err := need(c, 1, 1, -1); err != nil {
			return err
		}
		out, ins := c.Outputs[0], c.Inputs
		if len(ins) == 1 {
			if err := copyBroadcast(c, out, ins[0]); err != nil {
				return err
			}
		} else if err := zip(c, out, ins[0], ins[1], op); err != nil {
			return err
		}
		// Later inputs never share the output's memory (only inputs 0 and
		// 1 may), so folding into the output is safe.
		for _, x := range ins[min(2, len(ins)):] {
			if err := zip(c, out, out, x, op); err != nil {
				return err
			}
		}
		if mean && len(ins) > 1 {
			if familyOf(out.DType) != famFloat {
				return unsupported(c, out.DType)
			}
			n := float64(len(ins))
			eachRow(out.Shape, [][]int{out.Strides}, func(off [maxOperands]int, cnt int, step [maxOperands]int) {
				for k := 0; k < cnt; k++ {
					o := off[0] + k*step[0]
					storeF(out, o, loadF(out, o)/n)
				}
			})
		}
		return nil
	}
}

// copyBroadcast writes x, broadcast to out's shape, into out (same dtype).
func copyBroadcast(c *wgrt.Call, out, x wgrt.Tensor) error {
	return broadcastInto(c, out.Shape, out.Strides, out, x)
}

// broadcastInto is copyBroadcast into dst's memory (its Data; its dtype is
// out's) laid out at shape and strides. A caller that lays an output out
// at a run-time shape on its stack passes that layout here and the call's
// own output tensor as dst: dst leaks (the copy may hand its memory to the
// workers), and a stack layout inside it would move to the heap.
func broadcastInto(c *wgrt.Call, shape, strides []int, dst, x wgrt.Tensor) error {
	out := wgrt.Tensor{DType: dst.DType, Shape: shape}
	if out.DType != x.DType {
		return fmt.Errorf("%s: output dtype %s differs from input dtype %s", c.Kernel, out.DType, x.DType)
	}
	// The messages format copies: a caller's shape on its stack (an
	// output laid out at a run-time size) would move to the heap.
	if len(x.Shape) > len(out.Shape) {
		return fmt.Errorf("%s: shape %v does not broadcast to %v", c.Kernel, slices.Clone(x.Shape), slices.Clone(out.Shape))
	}
	for i, d := range x.Shape {
		if o := out.Shape[len(out.Shape)-len(x.Shape)+i]; d != 1 && d != o {
			return fmt.Errorf("%s: shape %v does not broadcast to %v", c.Kernel, slices.Clone(x.Shape), slices.Clone(out.Shape))
		}
	}
	copyStrided(shape, dst, strides, 0, x, broadcastStrides(new([maxRank]int), shape, x), 0, threadsOf(c))
	return nil
}

// copyStrided copies the elements of shape from src (at srcOff, with
// srcStrides) to dst (at dstOff, with dstStrides), any dtype, a large
// copy shared with the workers when threads > 1.
func copyStrided(shape []int, dst wgrt.Tensor, dstStrides []int, dstOff int, src wgrt.Tensor, srcStrides []int, srcOff, threads int) {
	size := src.DType.Size()
	switch size {
	case 4:
		if !copyTransposed32(shape, dst, dstStrides, dstOff, src, srcStrides, srcOff, threads) {
			copyRows[uint32](shape, dst, dstStrides, dstOff, src, srcStrides, srcOff, threads)
		}
		return
	case 8:
		copyRows[uint64](shape, dst, dstStrides, dstOff, src, srcStrides, srcOff, threads)
		return
	case 2:
		copyRows[uint16](shape, dst, dstStrides, dstOff, src, srcStrides, srcOff, threads)
		return
	case 1:
		copyRows[uint8](shape, dst, dstStrides, dstOff, src, srcStrides, srcOff, threads)
		return
	}
	eachRow(shape, [][]int{dstStrides, srcStrides}, func(off [maxOperands]int, n int, step [maxOperands]int) {
		d, s := dstOff+off[0], srcOff+off[1]
		for k := 0; k < n; k++ {
			copy(dst.Data[d*size:d*size+size], src.Data[s*size:s*size+size])
			d, s = d+step[0], s+step[1]
		}
	})
}

// copyRows is copyStrided for elements of type E.
func copyRows[E uint8 | uint16 | uint32 | uint64](shape []int, dst wgrt.Tensor, dstStrides []int, dstOff int, src wgrt.Tensor, srcStrides []int, srcOff, threads int) {
	ds, ss := elems[E](dst), elems[E](src)
	var it rowIter
	it.init(shape)
	it.add(dstStrides, dstOff)
	it.add(srcStrides, srcOff)
	it.coalesce()
	if units, size := shareUnits(&it); size == 1 && shareCopy(&it, units, ds, ss, threads) {
		return
	}
	walkCopy(&it, ds, ss)
}

// walkCopy is copyRows over a walk set up (and maybe narrowed).
func walkCopy[E uint8 | uint16 | uint32 | uint64](it *rowIter, ds, ss []E) {
	for it.next() {
		d, s, n := it.off[0], it.off[1], it.n
		if it.step[0] == 1 && it.step[1] == 1 {
			copy(ds[d:d+n], ss[s:s+n])
			continue
		}
		for k := 0; k < n; k++ {
			ds[d] = ss[s]
			d, s = d+it.step[0], s+it.step[1]
		}
	}
}

// copyRows32 is a 4-byte copy's walk, shared by ranges of its first
// dimension (a transpose's or split's rows: a single row is one copy).
type copyRows32 struct {
	it     rowIter
	ds, ss []uint32
}

var pooledCopy copyRows32

func (r *copyRows32) doRange(from, to int) {
	it := rowsRange(r.it, from, to, 1)
	walkCopy(&it, r.ds, r.ss)
}

// shareCopy runs a large 4-byte copy of units rows with the workers when
// threads > 1, and reports whether it did.
func shareCopy[E uint8 | uint16 | uint32 | uint64](it *rowIter, units int, ds, ss []E, threads int) bool {
	d32, ok1 := any(ds).([]uint32)
	s32, ok2 := any(ss).([]uint32)
	if !ok1 || !ok2 || !shares(threads, units, walkOf(it)) {
		return false
	}
	pooledCopy = copyRows32{it: *it, ds: d32, ss: s32}
	workers.runRange(units, &pooledCopy)
	pooledCopy = copyRows32{}
	workers.mu.Unlock()
	return true
}
