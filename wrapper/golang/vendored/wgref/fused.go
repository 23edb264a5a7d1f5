package wgref

import (
	"fmt"
	"math"
	"slices"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The fused kernels of graph/fuse: a convolution or matrix product with
// its bias, residual sum and activation, out = act(product + addend + sum),
// as ONNX Runtime's FusedConv. Each output block starts as addend + sum,
// the GEMM accumulates into it, and the activation runs over it right
// after, while it is in cache: no pass over memory for the Add and the
// activation, and the output may be the sum's own memory (may_alias), as
// each element is read before it is written.

func init() {
	register("FusedConv", fusedConv)
	register("FusedGemm", fusedGemm)
	register("FusedMatMul", fusedMatMul)
}

// fusedAct is the activation a fused kernel ends with.
type fusedAct struct {
	kind        string // "" for none
	alpha, beta float64
}

func readActivation(c *wgrt.Call) (fusedAct, error) {
	a := attrsOf(c)
	act := fusedAct{kind: a.String("activation"), alpha: a.Float("activation_alpha"), beta: a.Float("activation_beta")}
	if a.err != nil {
		return act, fmt.Errorf("%s: %w", c.Kernel, a.err)
	}
	switch act.kind {
	case "", "Relu", "Clip", "HardSigmoid", "HardSwish", "Sigmoid", "SiLU", "LeakyRelu", "Gelu":
		return act, nil
	}
	return act, fmt.Errorf("%s: unknown activation %q (Relu, Clip, HardSigmoid, HardSwish, Sigmoid, SiLU, LeakyRelu or Gelu)", c.Kernel, act.kind)
}

// of is the activation at one value, computed as the separate kernels
// compute it (in float64).
func (a fusedAct) of(x float64) float64 {
	switch a.kind {
	case "Relu":
		if x <= 0 {
			return 0
		}
		return x // a NaN stays
	case "Clip":
		return clamp(x, params{a.alpha, a.beta})
	case "HardSigmoid":
		return math.Max(0, math.Min(1, a.alpha*x+a.beta))
	case "HardSwish":
		return x * math.Max(0, math.Min(1, x/6+0.5))
	case "Sigmoid":
		return sigmoid(x)
	case "SiLU":
		return x * float64(float32(sigmoid(x))) // Sigmoid's output is float32
	case "LeakyRelu":
		if x < 0 {
			return a.alpha * x
		}
	case "Gelu":
		return geluErf(x)
	}
	return x
}

// apply runs the activation over row in place, with the row kernels the
// separate activation kernels use (vec.go).
func (a fusedAct) apply(row []float32) {
	switch a.kind {
	case "":
	case "SiLU", "Sigmoid":
		if expActVector {
			expActRow(row, a.kind == "Sigmoid")
			return
		}
		if a.kind == "Sigmoid" {
			a.rowKernel().row(row, row)
			return
		}
		if siluRow(row) {
			return
		}
		// x * Sigmoid(x): the sigmoid of a chunk beside it, then the product.
		var sig [64]float32
		for len(row) > 0 {
			n := min(len(row), len(sig))
			unaryF32{kind: unarySigmoid}.row(sig[:n], row[:n])
			binaryVV(binaryMul, row[:n], row[:n], sig[:n])
			row = row[n:]
		}
	default:
		a.rowKernel().row(row, row)
	}
}

// rowKernel is the row function of an activation other than SiLU.
func (a fusedAct) rowKernel() unaryF32 {
	switch a.kind {
	case "Relu":
		return unaryF32{kind: unaryRelu}
	case "Clip":
		return unaryF32{kind: unaryClip, a: float32(a.alpha), b: float32(a.beta)}
	case "HardSigmoid":
		return unaryF32{kind: unaryHardSigmoid, a: float32(a.alpha), b: float32(a.beta)}
	case "HardSwish":
		return unaryF32{kind: unaryHardSwish}
	case "Sigmoid":
		return unaryF32{kind: unarySigmoid}
	case "LeakyRelu":
		return unaryF32{kind: unaryLeakyRelu, a: float32(a.alpha)}
	case "Gelu":
		return unaryF32{kind: unaryGeluErf} // the erf form, as the Gelu kernel's
	}
	panic("wgref: no row kernel for activation " + a.kind)
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// epilogue is what a fused kernel does around the GEMM of each output
// block: start it as addend + sum and apply the activation when the
// product is in. A nil *epilogue does nothing. (A Gemm's alpha other than
// 1 runs fusedGemmScaled instead: starting a block as (addend + sum) /
// alpha overflows for a small alpha.)
type epilogue struct {
	// add is broadcast over the output: element (i, j) of a block whose
	// first row is row0 is add[(row0+i)*addRow + j*addCol], times addScale.
	add            *wgrt.Tensor
	addRow, addCol int
	addScale       float32
	// sum is laid out as the output (same strides), maybe the same memory.
	sum *wgrt.Tensor
	act fusedAct
}

// start fills the rows×cols block c (ldc floats between rows, at element
// off of the output) before the product accumulates into it, and reports
// whether it did: false lets the product overwrite the block.
func (e *epilogue) start(c []float32, ldc, rows, cols, off, row0 int) bool {
	if e == nil || (e.add == nil && e.sum == nil) || rows == 0 || cols == 0 {
		return false
	}
	var sum, add []float32
	if e.sum != nil {
		sum = elems[float32](*e.sum)[off:]
		if e.add == nil && &sum[0] == &c[0] {
			return true // the output is the sum: it holds the start already
		}
	}
	if e.add != nil {
		add = elems[float32](*e.add)
	}
	for i := 0; i < rows; i++ {
		row := c[i*ldc : i*ldc+cols]
		var srow []float32
		if sum != nil {
			srow = sum[i*ldc : i*ldc+cols]
		}
		switch {
		case add == nil:
			copy(row, srow)
		case e.addCol == 1 && e.addScale == 1:
			// A bias per column unscaled (a MatMul's or Gemm's): the
			// same sums, as whole rows (multiplying by 1 changes no bit).
			arow := add[(row0+i)*e.addRow:][:cols]
			if srow == nil {
				copy(row, arow)
			} else {
				binaryVV(binaryAdd, row, arow, srow)
			}
		case e.addCol == 0:
			// A bias per row (a convolution's per channel).
			b := e.addScale * add[(row0+i)*e.addRow]
			if srow == nil {
				for j := range row {
					row[j] = b
				}
				continue
			}
			for j := range row {
				row[j] = srow[j] + b
			}
		default:
			arow := (row0 + i) * e.addRow
			for j := range row {
				v := e.addScale * add[arow+j*e.addCol]
				if srow != nil {
					v += srow[j]
				}
				row[j] = v
			}
		}
	}
	return true
}

// finish applies the activation over the block.
func (e *epilogue) finish(c []float32, ldc, rows, cols int) {
	if e == nil || cols == 0 {
		return
	}
	for i := 0; i < rows; i++ {
		e.act.apply(c[i*ldc : i*ldc+cols])
	}
}

// finishPlanes applies the activation over [image, channel] planes [from,
// to) (counted image by image) of a float32 output whose planes are
// contiguous (a convolution's written whole before the epilogue).
func (e *epilogue) finishPlanes(out wgrt.Tensor, from, to int) {
	if e == nil || e.act.kind == "" {
		return
	}
	ys, plane := elems[float32](out), prod(out.Shape[2:])
	for u := from; u < to; u++ {
		o := u/out.Shape[1]*out.Strides[0] + u%out.Shape[1]*out.Strides[1]
		e.act.apply(ys[o : o+plane])
	}
}

// rowEpilogue finishes a convolution's output rows (one per output
// channel) as the GEMM completes them, out = act(product + bias + sum),
// each block of rows while it is in cache: no pass over the whole output
// to start it with the bias, none to apply the activation after.
type rowEpilogue struct {
	bias       []float32 // row i's is bias[i*biasStride] (nil: none)
	biasStride int
	sum        []float32 // laid out as C (nil: none, or C holds it already)
	act        fusedAct
}

// Clamp modes of biasClamp: which activations it runs.
const (
	clampNone = iota
	clampRelu
	clampClip
	clampHardSigmoid
	clampHardSwish
	clampSiLU
	clampSigmoid
)

// clamp reports whether the activation is one biasClamp runs with the
// bias and sum in one pass (none, Relu, Clip, HardSigmoid, HardSwish,
// SiLU and Sigmoid), and its mode.
func (e *rowEpilogue) clamp() (mode int, lo, hi float32, ok bool) {
	switch e.act.kind {
	case "":
		return clampNone, 0, 0, true
	case "Relu":
		return clampRelu, 0, 0, true
	case "Clip":
		return clampClip, float32(e.act.alpha), float32(e.act.beta), true
	case "HardSigmoid":
		return clampHardSigmoid, float32(e.act.alpha), float32(e.act.beta), true
	case "HardSwish":
		return clampHardSwish, 0, 0, true
	case "SiLU":
		return clampSiLU, 0, 0, true
	case "Sigmoid":
		return clampSigmoid, 0, 0, true
	}
	return 0, 0, 0, false
}

// vectorWidth is the vector biasClamp that finishes e's rows in one
// pass: 16 (biasClampAVX512), 8 (biasClampAVX2, a row's whole vectors
// of eight), or 0 (row by row). SiLU and Sigmoid run there only with the
// same instructions as the row kernels the unfused ops run: expActRow's
// on the AVX-512 path, siluAVX2's and sigmoidAVX2's on the AVX2 one.
func (e *rowEpilogue) vectorWidth() (width, mode int, lo, hi float32) {
	mode, lo, hi, ok := e.clamp()
	exp := mode == clampSiLU || mode == clampSigmoid
	switch {
	case !ok:
		return 0, 0, 0, 0
	case biasClampVector && (!exp || expActVector):
		return 16, mode, lo, hi
	case biasClampVector8 && (!exp || !expActVector):
		return 8, mode, lo, hi
	}
	return 0, 0, 0, 0
}

// byTile reports whether sgemm should finish each tile as the
// micro-kernel leaves it, in L1: where one call does a whole tile
// (biasClampAVX512), not a call per row of it, or the micro-kernel
// finishes its tiles itself (running.tileFinishOf). Otherwise
// biasClampAVX2 finishes whole blocks: per tile, its calls cost more
// than they save (A/B on MobileNet and EfficientNet).
func (e *rowEpilogue) byTile() bool {
	width, _, _, _ := e.vectorWidth()
	return width == 16 || running.tileFinishOf(e).ok
}

// zeroBias is the bias biasClamp adds where there is none.
var zeroBias float32

// finish finishes rows [r0, r1), columns [c0, c1) of c (ldc floats
// between rows). A nil *rowEpilogue does nothing.
func (e *rowEpilogue) finish(c []float32, ldc, r0, r1, c0, c1 int) {
	if e == nil || c0 >= c1 || r0 >= r1 {
		return
	}
	if width, mode, lo, hi := e.vectorWidth(); width > 0 {
		cols := c1 - c0
		if width == 8 {
			cols &^= 7
		}
		if cols > 0 {
			_ = c[(r1-1)*ldc+c0+cols-1]
			bias, biasStride := &zeroBias, 0
			if e.bias != nil {
				_ = e.bias[(r1-1)*e.biasStride]
				bias, biasStride = &e.bias[r0*e.biasStride], e.biasStride
			}
			var sum *float32
			if e.sum != nil {
				_ = e.sum[(r1-1)*ldc+c0+cols-1]
				sum = &e.sum[r0*ldc+c0]
			}
			if width == 16 {
				biasClampAVX512(&c[r0*ldc+c0], ldc, r1-r0, cols, bias, biasStride, sum, mode, lo, hi)
			} else {
				biasClampAVX2(&c[r0*ldc+c0], ldc, r1-r0, cols, bias, biasStride, sum, mode, lo, hi)
			}
		}
		// What is left of each row (fewer than eight) runs row by row.
		if c0 += cols; c0 == c1 {
			return
		}
	}
	for i := r0; i < r1; i++ {
		row := c[i*ldc+c0 : i*ldc+c1]
		if e.bias != nil {
			binaryVS(binaryAdd, row, row, e.bias[i*e.biasStride])
		}
		if e.sum != nil {
			binaryVV(binaryAdd, row, row, e.sum[i*ldc+c0:i*ldc+c1])
		}
		e.act.apply(row)
	}
}

// sameStart reports whether two tensors begin at the same byte: the only
// way the plan lets an output share an input's memory.
func sameStart(a, b wgrt.Tensor) bool {
	return len(a.Data) > 0 && len(b.Data) > 0 && &a.Data[0] == &b.Data[0]
}

// fusedOperands splits a fused call: the producer's call (its first
// inputs), the addend and the sum (nil when absent). isSum says whether a
// third input is the sum rather than the addend.
func fusedOperands(c *wgrt.Call, ins int, isSum func(t wgrt.Tensor) bool) (wgrt.Call, *wgrt.Tensor, *wgrt.Tensor, error) {
	if err := need(c, 1, ins, ins+2); err != nil {
		return wgrt.Call{}, nil, nil, err
	}
	var add, sum *wgrt.Tensor
	switch extra := c.Inputs[ins:]; {
	case len(extra) == 2:
		add, sum = &extra[0], &extra[1]
	case len(extra) == 1 && isSum(extra[0]):
		sum = &extra[0]
	case len(extra) == 1:
		add = &extra[0]
	}
	out := c.Outputs[0]
	if sum != nil && !slices.Equal(sum.Shape, out.Shape) {
		return wgrt.Call{}, nil, nil, fmt.Errorf("%s: sum of shape %v, the output is %v", c.Kernel, sum.Shape, out.Shape)
	}
	if sum != nil && sum.DType != out.DType || add != nil && add.DType != out.DType {
		return wgrt.Call{}, nil, nil, fmt.Errorf("%s: the bias and sum must have the output's dtype %s", c.Kernel, out.DType)
	}
	producer := wgrt.Call{Kernel: c.Kernel, Op: c.Op, Outputs: c.Outputs, Inputs: c.Inputs[:ins], Attrs: c.Attrs, Scratch: c.Scratch, Prepared: c.Prepared, Threads: c.Threads}
	return producer, add, sum, nil
}

// fastSum reports whether the sum can be read block by block as the
// output is written: float32, laid out as the output.
func fastSum(sum *wgrt.Tensor, out wgrt.Tensor) bool {
	return sum == nil || sum.DType == wgrt.F32 && slices.Equal(sum.Strides, out.Strides)
}

// fusedConv is FusedConv(x, w, [bias], [sum]): a third input of the
// output's rank is the sum, a 1-D one the bias.
func fusedConv(c *wgrt.Call) error {
	act, err := readActivation(c)
	if err != nil {
		return err
	}
	out := c.Outputs[0]
	producer, bias, sum, err := fusedOperands(c, 2, func(t wgrt.Tensor) bool { return len(t.Shape) == len(out.Shape) })
	if err != nil {
		return err
	}
	x, w := c.Inputs[0], c.Inputs[1]
	r := len(x.Shape) - 2
	if r < 1 || len(w.Shape) != r+2 || len(out.Shape) != r+2 || bias != nil && (len(bias.Shape) != 1 || bias.Shape[0] != w.Shape[0]) {
		return fmt.Errorf("%s: input %v, weight %v, bias and output %v do not fit", c.Kernel, x.Shape, w.Shape, out.Shape)
	}
	ca, err := readConvAttrs(c, r)
	if err != nil {
		return err
	}
	g := ca.group
	if x.Shape[1]%g != 0 || w.Shape[0]%g != 0 || w.Shape[1] != x.Shape[1]/g || out.Shape[1] != w.Shape[0] || out.Shape[0] != x.Shape[0] {
		return fmt.Errorf("%s: input %v, weight %v, group %d and output %v do not fit", c.Kernel, x.Shape, w.Shape, g, out.Shape)
	}
	if x.DType == wgrt.F32 && w.DType == wgrt.F32 && out.DType == wgrt.F32 && w.Contiguous() && spatialContiguous(out) && fastSum(sum, out) {
		ep := &epilogue{sum: sum, addScale: 1, act: act}
		if bias != nil {
			ep.add, ep.addRow = bias, bias.Strides[0]
		}
		return convF32Fastest(c, x, w, nil, out, ca, ep)
	}
	if bias != nil {
		producer.Inputs = c.Inputs[:3]
	}
	return unfused(c, producerConv, producer, nil, sum, act)
}

// fusedGemm is FusedGemm(A, B, [C], [sum]): Gemm's alpha * A' * B' + beta
// * C, then the sum and the activation.
func fusedGemm(c *wgrt.Call) error {
	act, err := readActivation(c)
	if err != nil {
		return err
	}
	out := c.Outputs[0]
	producer, cin, sum, err := fusedOperands(c, 2, func(wgrt.Tensor) bool { return false })
	if err != nil {
		return err
	}
	at := attrsOf(c)
	alpha, beta := at.FloatOr("alpha", 1), at.FloatOr("beta", 1)
	if at.err != nil {
		return at.err
	}
	a, b := c.Inputs[0], c.Inputs[1]
	fast := a.DType == wgrt.F32 && b.DType == wgrt.F32 && out.DType == wgrt.F32 && len(out.Shape) == 2 && out.Strides[1] == 1 && fastSum(sum, out) && alpha != 0
	if cin != nil && (!broadcasts(cin.Shape, out.Shape) || len(cin.Shape) > 2) {
		return fmt.Errorf("%s: C of shape %v does not broadcast to %v", c.Kernel, cin.Shape, out.Shape)
	}
	if !fast {
		if cin != nil {
			producer.Inputs = c.Inputs[:3]
		}
		return unfused(c, producerGemm, producer, nil, sum, act)
	}
	ep := &epilogue{sum: sum, addScale: float32(beta), act: act}
	if cin != nil && beta != 0 {
		ep.add = cin
		// C's strides broadcast to the output's rows and columns.
		var cs [2]int
		for i, d := range cin.Shape {
			if d != 1 {
				cs[2-len(cin.Shape)+i] = cin.Strides[i]
			}
		}
		ep.addRow, ep.addCol = cs[0], cs[1]
	}
	if alpha != 1 {
		return fusedGemmScaled(&producer, ep, float32(alpha))
	}
	return gemmEpilogue(&producer, ep)
}

// fusedGemmScaled is the fast FusedGemm with an alpha other than 1: the
// product into the output, then one pass of alpha·product + addend + sum
// and the activation. An addend or sum in the output's memory is copied
// first, as the product overwrites it.
func fusedGemmScaled(producer *wgrt.Call, ep *epilogue, alpha float32) error {
	out := producer.Outputs[0]
	for _, t := range []**wgrt.Tensor{&ep.add, &ep.sum} {
		if *t != nil && sameStart(**t, out) {
			kept := **t
			kept.Data = append([]byte(nil), kept.Data...)
			*t = &kept
		}
	}
	if err := gemmEpilogue(producer, &epilogue{addScale: 1}); err != nil {
		return err
	}
	ys, ldc := elems[float32](out), out.Strides[0]
	var add, sum []float32
	if ep.add != nil {
		add = elems[float32](*ep.add)
	}
	if ep.sum != nil {
		sum = elems[float32](*ep.sum)
	}
	rows, cols := out.Shape[0], out.Shape[1]
	for i := 0; i < rows; i++ {
		row := ys[i*ldc : i*ldc+cols]
		for j := range row {
			v := alpha * row[j]
			if add != nil {
				v += ep.addScale * add[i*ep.addRow+j*ep.addCol]
			}
			if sum != nil {
				v += sum[i*ldc+j]
			}
			row[j] = v
		}
		ep.act.apply(row)
	}
	return nil
}

// fusedMatMul is FusedMatMul(a, b, [bias], [sum]): the bias broadcast to
// the output (numpy's rules), the sum exactly its shape.
func fusedMatMul(c *wgrt.Call) error {
	act, err := readActivation(c)
	if err != nil {
		return err
	}
	out := c.Outputs[0]
	producer, bias, sum, err := fusedOperands(c, 2, func(wgrt.Tensor) bool { return false })
	if err != nil {
		return err
	}
	if bias != nil && !broadcasts(bias.Shape, out.Shape) {
		return fmt.Errorf("%s: bias of shape %v does not broadcast to %v", c.Kernel, bias.Shape, out.Shape)
	}
	if bias != nil && sum == nil && slices.Equal(bias.Shape, out.Shape) {
		bias, sum = nil, bias // exactly the output's shape: a sum
	}
	a, b := c.Inputs[0], c.Inputs[1]
	// The fast path takes a bias over the last dimension (or one value).
	if a.DType == wgrt.F32 && b.DType == wgrt.F32 && out.DType == wgrt.F32 && len(out.Shape) > 0 && out.Contiguous() &&
		fastSum(sum, out) && (bias == nil || len(bias.Shape) <= 1) {
		ep := &epilogue{sum: sum, addScale: 1, act: act}
		if bias != nil {
			ep.add = bias
			if len(bias.Shape) == 1 && bias.Shape[0] != 1 {
				ep.addCol = bias.Strides[0]
			}
		}
		return matMulEpilogue(&producer, ep)
	}
	return unfused(c, producerMatMul, producer, bias, sum, act)
}

// unfused is a fused kernel the long way, for layouts and dtypes the
// block epilogue does not take: the producer into the output, then one
// pass adding the bias (broadcast over the trailing dimensions) and the
// sum and applying the activation. The output must not be the bias's or
// the sum's memory then.
func unfused(c *wgrt.Call, k producerKind, producer wgrt.Call, bias, sum *wgrt.Tensor, act fusedAct) error {
	out := c.Outputs[0]
	for _, t := range []*wgrt.Tensor{bias, sum} {
		if t != nil && sameStart(*t, out) {
			return fmt.Errorf("%s: the output shares memory with an input in a layout or dtype the fused kernel does not take in place (%s %v strides %v)", c.Kernel, out.DType, out.Shape, out.Strides)
		}
	}
	if familyOf(out.DType) != famFloat {
		return unsupported(c, out.DType)
	}
	if err := k.run(&producer); err != nil {
		return err
	}
	for o := range indices(out.Shape) {
		off := offsetOf(o, out.Strides)
		v := loadF(out, off)
		if bias != nil {
			bo, d := 0, len(out.Shape)-len(bias.Shape)
			for i, n := range bias.Shape {
				if n != 1 {
					bo += o[d+i] * bias.Strides[i]
				}
			}
			v += loadF(*bias, bo)
		}
		if sum != nil {
			v += loadF(*sum, offsetOf(o, sum.Strides))
		}
		storeF(out, off, act.of(roundAs(out.DType, v)))
	}
	return nil
}

// producerKind is the kernel a fused op runs first. It is called by a
// switch, not through a Kernel value: a call through a func value makes its
// argument escape, and the producer call unfused builds would move to the
// heap on every call.
type producerKind int

const (
	producerConv producerKind = iota
	producerGemm
	producerMatMul
)

func (k producerKind) run(c *wgrt.Call) error {
	switch k {
	case producerConv:
		return conv(c)
	case producerGemm:
		return gemm(c)
	}
	return matMul(c)
}

// roundAs rounds v as a tensor of dtype d holds it (float32 for f32): the
// activation sees the sum the separate Add would have stored.
func roundAs(d wgrt.DType, v float64) float64 {
	if d == wgrt.F32 {
		return float64(float32(v))
	}
	return v
}
