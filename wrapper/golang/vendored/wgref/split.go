package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// The passes over memory around the GEMM and convolutions (a fused
// kernel's epilogue, elementwise maps, pooling) split over the worker
// pool as they do: each takes the pool when its call may use more than
// one goroutine, the pass is large enough and no other kernel holds it,
// and fills a package variable that the parts read (so that nothing
// escapes per call). The parts are
// whole rows or planes, or in a single row runs of shareAlign elements, so
// that every element is computed by the same code whatever the thread
// count: results are bit-identical.

// minShareElements is the least elements a pass over memory is split for:
// tens of microseconds of a vectorized pass, well above a part's hand-off.
const minShareElements = 1 << 15

// shareAlign is where a single row is cut: a multiple of every vector
// width, so that no cut makes a scalar tail of its own.
const shareAlign = 64

// shares reports whether a pass over elements in units (rows, planes) is
// worth splitting, and takes the pool if so; the caller then runs it with
// workers.runRange and unlocks.
func shares(threads, units, elements int) bool {
	return units > 1 && elements >= minShareElements && workers.take(threads)
}

// epilogueRows is a fused kernel's epilogue over a block of the output,
// by ranges of rows.
type epilogueRows struct {
	ep                   epilogue // a copy, so that the caller's never escapes
	c                    []float32
	ldc, cols, off, row0 int
	finish               bool
	started              bool // what start reported, from the first range
}

var pooledEpilogueRows epilogueRows

func (r *epilogueRows) doRange(from, to int) {
	c := r.c[from*r.ldc:]
	if r.finish {
		r.ep.finish(c, r.ldc, to-from, r.cols)
		return
	}
	started := r.ep.start(c, r.ldc, to-from, r.cols, r.off+from*r.ldc, r.row0+from)
	if from == 0 {
		r.started = started
	}
}

// startShared is start (see epilogue), its rows shared with the workers
// when threads > 1.
func (e *epilogue) startShared(c []float32, ldc, rows, cols, off, row0, threads int) bool {
	if e == nil || !shares(threads, rows, rows*cols) {
		return e.start(c, ldc, rows, cols, off, row0)
	}
	pooledEpilogueRows = epilogueRows{ep: *e, c: c, ldc: ldc, cols: cols, off: off, row0: row0}
	workers.runRange(rows, &pooledEpilogueRows)
	started := pooledEpilogueRows.started
	pooledEpilogueRows = epilogueRows{}
	workers.mu.Unlock()
	return started
}

// finishShared is finish (see epilogue), its rows shared with the workers
// when threads > 1.
func (e *epilogue) finishShared(c []float32, ldc, rows, cols, threads int) {
	if e == nil || !shares(threads, rows, rows*cols) {
		e.finish(c, ldc, rows, cols)
		return
	}
	pooledEpilogueRows = epilogueRows{ep: *e, c: c, ldc: ldc, cols: cols, finish: true}
	workers.runRange(rows, &pooledEpilogueRows)
	pooledEpilogueRows = epilogueRows{}
	workers.mu.Unlock()
}

// epiloguePlanes is finishPlanes over ranges of an output's planes.
type epiloguePlanes struct {
	ep  epilogue
	out wgrt.Tensor
}

var pooledPlanes epiloguePlanes

func (p *epiloguePlanes) doRange(from, to int) { p.ep.finishPlanes(p.out, from, to) }

// finishPlanesShared is finishPlanes over all of out's planes, shared
// with the workers when threads > 1.
func (e *epilogue) finishPlanesShared(out wgrt.Tensor, threads int) {
	planes := out.Shape[0] * out.Shape[1]
	if e == nil || e.act.kind == "" || !shares(threads, planes, out.NumElements()) {
		e.finishPlanes(out, 0, planes)
		return
	}
	pooledPlanes = epiloguePlanes{ep: *e, out: out}
	workers.runRange(planes, &pooledPlanes)
	pooledPlanes = epiloguePlanes{}
	workers.mu.Unlock()
}

// slice narrows a walk not yet started to [from, to) of its first
// dimension (of a single row, in elements).
func (it *rowIter) slice(from, to int) {
	for k := 0; k < it.nops; k++ {
		it.base[k] += from * it.strides[k][0]
	}
	it.shape[0] = to - from
}

// shareUnits is how a coalesced walk is cut: its first dimension's
// indices, or in a single row runs of shareAlign elements (unit size).
func shareUnits(it *rowIter) (units, size int) {
	if it.rank == 1 {
		return panelsOf(it.shape[0], shareAlign), shareAlign
	}
	return it.shape[0], 1
}

// rowsRange is the part [from, to) of units of size of a walk.
func rowsRange(it rowIter, from, to, size int) rowIter {
	it.slice(from*size, min(to*size, it.shape[0]))
	return it
}

// unaryRows is a unary map's walk, shared by ranges.
type unaryRows struct {
	u      unaryF32
	it     rowIter
	size   int
	os, xs []float32
}

var pooledUnary unaryRows

func (r *unaryRows) doRange(from, to int) {
	it := rowsRange(r.it, from, to, r.size)
	r.u.walk(&it, r.os, r.xs)
}

// binaryRows is a binary map's walk, shared by ranges.
type binaryRows struct {
	k          binaryKind
	it         rowIter
	size       int
	os, as, bs []float32
}

var pooledBinary binaryRows

func (r *binaryRows) doRange(from, to int) {
	it := rowsRange(r.it, from, to, r.size)
	r.k.walk(&it, r.os, r.as, r.bs)
}

// walkOf is the elements of a coalesced walk.
func walkOf(it *rowIter) int {
	n := 1
	for d := 0; d < it.rank; d++ {
		n *= it.shape[d]
	}
	return n
}

// normRows is a float32 softmax or layer normalization over contiguous
// rows of n, the rows walked over outer dimensions (shape, with x's and
// the output's strides), shared by ranges of rows.
type normRows struct {
	layerNorm, log bool // layer normalization, else (log) softmax
	xs, ys, gs, bv []float32
	n              int
	eps            float64
	it             rowIter
	threads        int // the call's (threadsOf)
}

var pooledNorm normRows

func (r *normRows) run(shape, xStrides, yStrides []int) {
	r.it.init(shape)
	r.it.add(xStrides, 0)
	r.it.add(yStrides, 0)
	r.it.coalesce()
	if r.it.rank > 0 && shares(r.threads, r.it.shape[0], walkOf(&r.it)*r.n) {
		pooledNorm = *r
		workers.runRange(r.it.shape[0], &pooledNorm)
		pooledNorm = normRows{}
		workers.mu.Unlock()
		return
	}
	r.walk(&r.it)
}

func (r *normRows) doRange(from, to int) {
	it := r.it
	it.slice(from, to)
	r.walk(&it)
}

func (r *normRows) walk(it *rowIter) {
	for it.next() {
		for e := 0; e < it.n; e++ {
			x, y := r.xs[it.off[0]+e*it.step[0]:][:r.n], r.ys[it.off[1]+e*it.step[1]:][:r.n]
			if r.layerNorm {
				layerNormRow(x, y, r.gs, r.bv, r.eps)
			} else {
				softmaxRow(x, y, r.log)
			}
		}
	}
}
