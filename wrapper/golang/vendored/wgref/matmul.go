package wgref

import (
	"fmt"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func init() {
	register("MatMul", matMul)
	register("Gemm", gemm)
}

// matView is a 2-D float32 view of a tensor's last two dimensions at a
// batch offset, for sgemm.
func matView(t wgrt.Tensor, off, rs, cs int) matrix {
	return matrix{data: elems[float32](t)[off:], rs: rs, cs: cs}
}

// matMul is numpy's matmul: batch dimensions broadcast, a 1-D first
// operand is a row and a 1-D second a column (both dropped from the
// output). Shapes and strides live in fixed arrays: no allocation.
func matMul(c *wgrt.Call) error { return matMulEpilogue(c, nil) }

// matMulEpilogue is matMul with a fused kernel's epilogue around each
// float32 matrix product (ep nil: none).
func matMulEpilogue(c *wgrt.Call, ep *epilogue) error {
	if err := need(c, 1, 2, 2); err != nil {
		return err
	}
	out, a, b := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	ra, rb := len(a.Shape), len(b.Shape)
	threads := threadsOf(c)
	if ra == 0 || rb == 0 {
		return fmt.Errorf("%s: operands must have rank 1 or more", c.Kernel)
	}
	// The matrix parts, 1-D operands promoted.
	m, k, ars, acs := 1, a.Shape[ra-1], 0, a.Strides[ra-1]
	if ra >= 2 {
		m, ars = a.Shape[ra-2], a.Strides[ra-2]
	}
	kb, n, brs, bcs := b.Shape[0], 1, b.Strides[0], 0
	if rb >= 2 {
		kb, n, brs, bcs = b.Shape[rb-2], b.Shape[rb-1], b.Strides[rb-2], b.Strides[rb-1]
	}
	if kb != k {
		return fmt.Errorf("%s: %v times %v: inner sizes %d and %d differ", c.Kernel, a.Shape, b.Shape, k, kb)
	}
	ba, bb := a.Shape[:max(ra-2, 0)], b.Shape[:max(rb-2, 0)]
	if !broadcasts(ba, bb) {
		return fmt.Errorf("%s: batch shapes %v and %v do not broadcast", c.Kernel, ba, bb)
	}
	nb := max(len(ba), len(bb))
	if nb > maxRank {
		return fmt.Errorf("%s: rank beyond the reference kernels' %d", c.Kernel, maxRank)
	}
	// The output's row and column strides (0 for a dropped dimension).
	ro := len(out.Shape)
	ors, ocs := 0, 0
	switch {
	case ra >= 2 && rb >= 2:
		ors, ocs = out.Strides[ro-2], out.Strides[ro-1]
	case ra >= 2:
		ors = out.Strides[ro-1]
	case rb >= 2:
		ocs = out.Strides[ro-1]
	}
	f32 := a.DType == wgrt.F32 && b.DType == wgrt.F32 && out.DType == wgrt.F32
	if !f32 && (familyOf(a.DType) == famOther || a.DType != b.DType || out.DType != a.DType) {
		return unsupported(c, a.DType)
	}
	// A's rows over its whole batch: when B's batch is 1, and the layout
	// allows, they are one GEMM's rows. The scratch asked for is then for
	// all of them, whether or not they fold, as the planner's rule is;
	// else for one matrix's.
	rows, packRows := m, m
	if ra >= 2 {
		rows = prod(a.Shape[:ra-1])
		if prod(bb) == 1 {
			packRows = rows
		}
	}
	form := bStrided
	if rb >= 2 && bcs == 1 {
		form = bRowMajor
	}
	var work []float32
	var pk *packedGEMM // B packed once (Prepare): one matrix, no batch
	if f32 {
		if prod(bb) == 1 {
			pk = preparedOf(c).forB(n, k, form)
		}
		var err error
		if work, err = scratchOf[float32](c, gemmPackFloatsOf(packRows, n, k, form, packedSides{b: pk != nil})); err != nil {
			return err
		}
	}
	if f32 && ra >= 2 && (n == 1 || ocs == 1) && prod(bb) == 1 {
		outRows := out.Shape[:max(ro-1, 0)]
		outRowStrides := out.Strides[:max(ro-1, 0)]
		if rb < 2 { // the output keeps A's row dimension last
			outRows, outRowStrides = out.Shape, out.Strides
		}
		ars, aok := evenRows(a.Shape[:ra-1], a.Strides[:ra-1])
		ldc, cok := evenRows(outRows, outRowStrides)
		if aok && cok {
			cm := elems[float32](out)
			acc := ep.startShared(cm, ldc, rows, n, 0, 0, threads)
			sgemmRows(rows, n, k, matView(a, 0, ars, acs), matView(b, 0, brs, bcs), nil, cm, ldc, acc, work, nil, prepacked{pk: pk}, threads)
			ep.finishShared(cm, ldc, rows, n, threads)
			return nil
		}
	}
	// Walk the batch: operand offsets by rowIter over the batch shape.
	var batch [maxRank]int
	for i := 0; i < nb; i++ {
		batch[i] = 1
	}
	for _, s := range [2][]int{ba, bb} {
		for i, d := range s {
			if d != 1 {
				batch[nb-len(s)+i] = d
			}
		}
	}
	var it rowIter
	it.init(batch[:nb])
	it.add(out.Strides[:nb], 0)
	it.addBroadcast(wgrt.Tensor{Shape: ba, Strides: a.Strides[:len(ba)]})
	it.addBroadcast(wgrt.Tensor{Shape: bb, Strides: b.Strides[:len(bb)]})
	if count := prod(batch[:nb]); f32 && (n == 1 || ocs == 1) && wholeProducts(threads, count, 2*m*n*k) {
		runMatMulBatch(matMulBatch{a: a, b: b, out: out, m: m, n: n, k: k, ars: ars, acs: acs, brs: brs, bcs: bcs,
			ors: ors, ocs: ocs, it: it, count: count, work: work, pk: pk}, ep)
		return nil
	}
	for it.next() {
		oo, ao, bo := it.off[0], it.off[1], it.off[2]
		for e := 0; e < it.n; e++ {
			matMulOne(a, b, out, m, n, k, ao, ars, acs, bo, brs, bcs, oo, ors, ocs, f32, work, ep, pk, threads)
			oo, ao, bo = oo+it.step[0], ao+it.step[1], bo+it.step[2]
		}
	}
	return nil
}

// matMulBatch is a batched float32 MatMul whose matrices are shared among
// the threads, each product whole on one of them (as convImages shares
// images), packing in its part's scratch (partScratch).
type matMulBatch struct {
	a, b, out                             wgrt.Tensor
	m, n, k, ars, acs, brs, bcs, ors, ocs int
	it                                    rowIter // the batch's walk, not started
	count                                 int     // matrices in the batch
	work                                  []float32
	pk                                    *packedGEMM
	ep                                    epilogue // a copy, so that the caller's never escapes
	hasEp                                 bool
	parts                                 int
}

var pooledMatMulBatch matMulBatch

// runMatMulBatch runs t in one part per thread the pool's holder may
// use. The caller holds the pool.
func runMatMulBatch(t matMulBatch, ep *epilogue) {
	pooledMatMulBatch = t
	p := &pooledMatMulBatch
	p.parts, p.hasEp = workers.limit, ep != nil
	if ep != nil {
		p.ep = *ep
	}
	growPartScratch(p.parts, len(p.work))
	workers.run(p, p.parts)
	pooledMatMulBatch = matMulBatch{}
	workers.mu.Unlock()
}

// runPart multiplies the matrices [from, to) of the batch, in the walk's
// order.
func (t *matMulBatch) runPart(i int) {
	var ep *epilogue
	if t.hasEp {
		ep = &t.ep
	}
	work := scratchOfPart(i, t.work)
	from, to := share(i, t.parts, t.count)
	it, e := t.it, 0
	for it.next() && e < to {
		oo, ao, bo := it.off[0], it.off[1], it.off[2]
		for j := 0; j < it.n; j, e = j+1, e+1 {
			if e >= from && e < to {
				matMulOne(t.a, t.b, t.out, t.m, t.n, t.k, ao, t.ars, t.acs, bo, t.brs, t.bcs, oo, t.ors, t.ocs, true, work, ep, t.pk, 1)
			}
			oo, ao, bo = oo+it.step[0], ao+it.step[1], bo+it.step[2]
		}
	}
}

// evenRows reports whether the rows named by shape (batch dimensions, then
// the row dimension) and strides lie a constant stride apart, so that they
// are rows of one matrix, and that stride (0 for a single row).
func evenRows(shape, strides []int) (stride int, ok bool) {
	span, seen := 0, false
	for d := len(shape) - 1; d >= 0; d-- {
		switch {
		case shape[d] == 1:
		case !seen:
			stride, span, seen = strides[d], strides[d]*shape[d], true
		case strides[d] != span:
			return 0, false
		default:
			span *= shape[d]
		}
	}
	return stride, true
}

// matMulOne multiplies one pair of matrices of the batch; pk is B's
// panels when prepared (B has no batch then). The product and epilogue
// may use threads goroutines.
func matMulOne(a, b, out wgrt.Tensor, m, n, k, ao, ars, acs, bo, brs, bcs, oo, ors, ocs int, f32 bool, work []float32, ep *epilogue, pk *packedGEMM, threads int) {
	if f32 && (n == 1 || ocs == 1) {
		ldc := ors
		if m == 1 {
			ldc = n
		}
		cm := elems[float32](out)[oo:]
		acc := ep.startShared(cm, ldc, m, n, oo, 0, threads)
		sgemmRows(m, n, k, matView(a, ao, ars, acs), matView(b, bo, brs, bcs), nil, cm, ldc, acc, work, nil, prepacked{pk: pk}, threads)
		ep.finishShared(cm, ldc, m, n, threads)
		return
	}
	// Any dtype, any layout: the naive product (integers wrap, floats
	// accumulate in float64).
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			o := oo + i*ors + j*ocs
			if familyOf(out.DType) == famFloat {
				s := 0.0
				for p := 0; p < k; p++ {
					s += loadF(a, ao+i*ars+p*acs) * loadF(b, bo+p*brs+j*bcs)
				}
				storeF(out, o, s)
			} else {
				var s int64
				for p := 0; p < k; p++ {
					s += loadI(a, ao+i*ars+p*acs) * loadI(b, bo+p*brs+j*bcs)
				}
				storeI(out, o, s)
			}
		}
	}
}

// gemm is Y = alpha * A' * B' + beta * C, A' and B' transposed when asked,
// C optional and broadcast to Y.
func gemm(c *wgrt.Call) error { return gemmEpilogue(c, nil) }

// gemmEpilogue is gemm with a fused kernel's epilogue around the float32
// product (ep nil: none), which then does C's and alpha's part.
func gemmEpilogue(c *wgrt.Call, ep *epilogue) error {
	if err := need(c, 1, 2, 3); err != nil {
		return err
	}
	threads := threadsOf(c)
	at := attrsOf(c)
	alpha, beta := at.FloatOr("alpha", 1), at.FloatOr("beta", 1)
	transA, transB := at.IntOr("transA", 0) != 0, at.IntOr("transB", 0) != 0
	if at.err != nil {
		return at.err
	}
	out, a, b := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	if len(a.Shape) != 2 || len(b.Shape) != 2 || len(out.Shape) != 2 {
		return fmt.Errorf("%s: operands must be matrices", c.Kernel)
	}
	am := matrix{rs: a.Strides[0], cs: a.Strides[1]}
	m, k := a.Shape[0], a.Shape[1]
	if transA {
		am.rs, am.cs = am.cs, am.rs
		m, k = k, m
	}
	bm := matrix{rs: b.Strides[0], cs: b.Strides[1]}
	kb, n := b.Shape[0], b.Shape[1]
	if transB {
		bm.rs, bm.cs = bm.cs, bm.rs
		kb, n = n, kb
	}
	if kb != k || out.Shape[0] != m || out.Shape[1] != n {
		return fmt.Errorf("%s: %v times %v (transA %v, transB %v) does not give %v", c.Kernel, a.Shape, b.Shape, transA, transB, out.Shape)
	}
	var cin *wgrt.Tensor
	var cs [2]int // C's strides broadcast to the output's shape
	if len(c.Inputs) == 3 && beta != 0 {
		cin = &c.Inputs[2]
		if !broadcasts(cin.Shape, out.Shape) || len(cin.Shape) > 2 {
			return fmt.Errorf("%s: C of shape %v does not broadcast to %v", c.Kernel, cin.Shape, out.Shape)
		}
		for i, d := range cin.Shape {
			if d != 1 {
				cs[2-len(cin.Shape)+i] = cin.Strides[i]
			}
		}
	}
	if a.DType == wgrt.F32 && b.DType == wgrt.F32 && out.DType == wgrt.F32 && out.Strides[1] == 1 {
		am.data, bm.data = elems[float32](a), elems[float32](b)
		ys := elems[float32](out)
		pk := preparedOf(c).forB(n, k, formOf(bm, nil)) // B packed once (Prepare)
		work, err := scratchOf[float32](c, gemmPackFloatsOf(m, n, k, formOf(bm, nil), packedSides{b: pk != nil}))
		if err != nil {
			return err
		}
		acc := ep.startShared(ys, out.Strides[0], m, n, 0, 0, threads)
		if ep == nil && cin != nil && cin.DType == wgrt.F32 && alpha == 1 && beta == 1 {
			// A Linear layer's bias: C goes into the output first and the
			// product adds to it, instead of a typed load per element after.
			fillBroadcastRows(ys, out.Strides[0], m, n, elems[float32](*cin), cs)
			acc, cin = true, nil
		}
		if useRowDots(m, am, bm) {
			rowDots(m, n, k, am, bm, ys, out.Strides[0], acc)
		} else {
			sgemmRows(m, n, k, am, bm, nil, ys, out.Strides[0], acc, work, nil, prepacked{pk: pk}, threads)
		}
		if ep != nil {
			ep.finishShared(ys, out.Strides[0], m, n, threads)
			return nil
		}
		if alpha == 1 && cin == nil {
			return nil
		}
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				o := i*out.Strides[0] + j
				v := alpha * float64(ys[o])
				if cin != nil {
					v += beta * loadF(*cin, i*cs[0]+j*cs[1])
				}
				ys[o] = float32(v)
			}
		}
		return nil
	}
	if familyOf(out.DType) != famFloat {
		return unsupported(c, out.DType)
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for p := 0; p < k; p++ {
				s += loadF(a, i*am.rs+p*am.cs) * loadF(b, p*bm.rs+j*bm.cs)
			}
			v := alpha * s
			if cin != nil {
				v += beta * loadF(*cin, i*cs[0]+j*cs[1])
			}
			storeF(out, i*out.Strides[0]+j*out.Strides[1], v)
		}
	}
	return nil
}

// fillBroadcastRows sets the m rows of n floats of ys (ld apart) to C,
// whose element (i, j) is cs[i*strides[0]+j*strides[1]] (a stride 0 where
// C broadcasts).
func fillBroadcastRows(ys []float32, ld, m, n int, cs []float32, strides [2]int) {
	for i := 0; i < m; i++ {
		row := ys[i*ld : i*ld+n]
		switch src := cs[i*strides[0]:]; strides[1] {
		case 1:
			copy(row, src[:n])
		case 0:
			v := src[0]
			for j := range row {
				row[j] = v
			}
		default:
			for j := range row {
				row[j] = src[j*strides[1]]
			}
		}
	}
}
