package wgref

import (
	"fmt"

	"github.com/wrapgen/wrapgen/wrapper/golang/wgrt"
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
// output).
func matMul(c *wgrt.Call) error {
	if err := need(c, 1, 2, 2); err != nil {
		return err
	}
	out, a, b := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	if len(a.Shape) == 0 || len(b.Shape) == 0 {
		return fmt.Errorf("%s: operands must have rank 1 or more", c.Kernel)
	}
	// Promote 1-D operands to matrices.
	as, ast := a.Shape, a.Strides
	if len(as) == 1 {
		as, ast = []int{1, as[0]}, []int{0, ast[0]}
	}
	bs, bst := b.Shape, b.Strides
	if len(bs) == 1 {
		bs, bst = []int{bs[0], 1}, []int{bst[0], 0}
	}
	m, k, n := as[len(as)-2], as[len(as)-1], bs[len(bs)-1]
	if bs[len(bs)-2] != k {
		return fmt.Errorf("%s: %v times %v: inner sizes %d and %d differ", c.Kernel, a.Shape, b.Shape, k, bs[len(bs)-2])
	}
	batchA := wgrt.Tensor{Shape: as[:len(as)-2], Strides: ast[:len(ast)-2]}
	batchB := wgrt.Tensor{Shape: bs[:len(bs)-2], Strides: bst[:len(bst)-2]}
	batch, ok := broadcastShape(batchA, batchB)
	if !ok {
		return fmt.Errorf("%s: batch shapes %v and %v do not broadcast", c.Kernel, batchA.Shape, batchB.Shape)
	}
	// The output's strides in the promoted form.
	ost := make([]int, len(batch)+2)
	copy(ost, out.Strides[:len(batch)])
	switch {
	case len(a.Shape) == 1 && len(b.Shape) == 1:
		ost[len(batch)], ost[len(batch)+1] = 0, 0
	case len(a.Shape) == 1:
		ost[len(batch)], ost[len(batch)+1] = 0, out.Strides[len(out.Strides)-1]
	case len(b.Shape) == 1:
		ost[len(batch)], ost[len(batch)+1] = out.Strides[len(out.Strides)-1], 0
	default:
		ost[len(batch)], ost[len(batch)+1] = out.Strides[len(out.Strides)-2], out.Strides[len(out.Strides)-1]
	}
	sa, sb := broadcastStrides(batch, batchA), broadcastStrides(batch, batchB)
	f32 := a.DType == wgrt.F32 && b.DType == wgrt.F32 && out.DType == wgrt.F32
	if !f32 && (familyOf(a.DType) == famOther || a.DType != b.DType || out.DType != a.DType) {
		return unsupported(c, a.DType)
	}
	var err error
	forEachIndex(batch, func(idx []int) {
		ao, bo, oo := offsetOf(idx, sa), offsetOf(idx, sb), offsetOf(idx, ost[:len(batch)])
		if f32 && (n == 1 || ost[len(batch)+1] == 1) {
			ldc := ost[len(batch)]
			if m == 1 {
				ldc = n
			}
			cs := elems[float32](out)[oo:]
			sgemm(m, n, k, matView(a, ao, ast[len(ast)-2], ast[len(ast)-1]), matView(b, bo, bst[len(bst)-2], bst[len(bst)-1]), cs, ldc, false)
			return
		}
		// Any dtype, any layout: the naive product (integers wrap, floats
		// accumulate in float64).
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				o := oo + i*ost[len(batch)] + j*ost[len(batch)+1]
				if familyOf(out.DType) == famFloat {
					s := 0.0
					for p := 0; p < k; p++ {
						s += loadF(a, ao+i*ast[len(ast)-2]+p*ast[len(ast)-1]) * loadF(b, bo+p*bst[len(bst)-2]+j*bst[len(bst)-1])
					}
					storeF(out, o, s)
				} else {
					var s int64
					for p := 0; p < k; p++ {
						s += loadI(a, ao+i*ast[len(ast)-2]+p*ast[len(ast)-1]) * loadI(b, bo+p*bst[len(bst)-2]+j*bst[len(bst)-1])
					}
					storeI(out, o, s)
				}
			}
		}
	})
	return err
}

// gemm is Y = alpha * A' * B' + beta * C, A' and B' transposed when asked,
// C optional and broadcast to Y.
func gemm(c *wgrt.Call) error {
	if err := need(c, 1, 2, 3); err != nil {
		return err
	}
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
	if len(c.Inputs) == 3 && beta != 0 {
		cin = &c.Inputs[2]
		if _, ok := broadcastShape(*cin, out); !ok || len(cin.Shape) > 2 {
			return fmt.Errorf("%s: C of shape %v does not broadcast to %v", c.Kernel, cin.Shape, out.Shape)
		}
	}
	if a.DType == wgrt.F32 && b.DType == wgrt.F32 && out.DType == wgrt.F32 && out.Strides[1] == 1 {
		am.data, bm.data = elems[float32](a), elems[float32](b)
		ys := elems[float32](out)
		sgemm(m, n, k, am, bm, ys, out.Strides[0], false)
		if alpha == 1 && cin == nil {
			return nil
		}
		var cs []int
		if cin != nil {
			cs = broadcastStrides(out.Shape, *cin)
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
	var cs []int
	if cin != nil {
		cs = broadcastStrides(out.Shape, *cin)
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
