package refscratch

import (
	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
)

// The ONNX slot of RNN's, GRU's and LSTM's sequence_lens (X, W, R, B,
// sequence_lens, ...), the one operand that is not of the op's float type.
const seqLensSlot = 4

// rtPad is the padding of the transposed R's rows, in floats, and
// dotRowsMaxBatch the largest batch that needs none (wgref's rnn_gemm.go,
// dotrows.go).
const (
	rtPad           = wgref.ScratchRTPad
	dotRowsMaxBatch = wgref.ScratchDotRowsMaxBatch
	projectSteps    = wgref.ScratchProjectSteps
)

// recurrent is RNN's, GRU's and LSTM's need (wgref/rnn_gemm.go and
// rnn_general.go). Float32 runs through GEMMs: sgemm's packing for the
// input projection or a step's product (the larger), the projected inputs
// of up to projectSteps steps [min(seq, projectSteps)·batch, gates·hidden]
// (one GEMM for those steps, so that the scratch does not grow with the
// sequence), for batches beyond
// dotRowsMaxBatch R of one direction transposed [hidden, gates·hidden]
// with rows padded by rtPad floats (so that sgemm reads it in place at
// every step instead of packing it again, and its column panels do not map
// to the same cache sets; smaller batches read R itself), one step's gate
// pre-activations [batch, gates·hidden] and two states [batch, hidden].
// Small layers run step by step and need none (wgref.StepwiseRecurrent).
// Other float types run in float64 one batch entry at a time: the gates
// and three vectors of hidden.
func recurrent(op *graph.Op) expr.Expr {
	gates := map[string]int64{"RNN": 1, "GRU": 3, "LSTM": 4}[op.Kernel]
	var hidden expr.Expr
	for _, a := range op.Attrs {
		if a.Name == "hidden_size" && a.Kind == graph.AttrInt {
			hidden = a.Int
		}
	}
	if hidden.IsZeroValue() || len(op.Inputs) < 3 || len(op.Inputs[0].Shape) != 3 {
		return expr.Const(0)
	}
	if !recurrentF32(op) {
		return expr.Scale(hidden, 8*(gates+3))
	}
	if stepwise(op) {
		return expr.Const(0)
	}
	x := op.Inputs[0]
	seq, batch, input := x.Shape[0], x.Shape[1], x.Shape[2]
	if intAttr(op, "layout", 0) == 1 {
		seq, batch = batch, seq
	}
	g := expr.Scale(hidden, gates)
	rows := expr.Mul(expr.Min(seq, expr.Const(projectSteps)), batch)
	pack := expr.Max(gemmPackFloats(rows, g, input, bStrided), gemmPackFloats(batch, g, hidden, bStrided))
	// 1 when batch > dotRowsMaxBatch, else 0 (batch is a positive integer).
	transposed := expr.Min(expr.Const(1), expr.Max(expr.Const(0), expr.Sub(batch, expr.Const(dotRowsMaxBatch))))
	rt := expr.Mul(transposed, hidden, expr.Add(g, expr.Const(rtPad)))
	floats := expr.Add(pack, expr.Mul(rows, g), rt, expr.Mul(batch, g), expr.Scale(expr.Mul(batch, hidden), 2))
	return expr.Scale(floats, 4)
}

// recurrentF32 reports whether the op's float operands (all but
// sequence_lens) and its outputs are float32, as the kernel checks.
func recurrentF32(op *graph.Op) bool {
	var slots []expr.Expr
	for _, a := range op.Attrs {
		if a.Name == "inputs" && a.Kind == graph.AttrInts {
			slots = a.Ints
		}
	}
	next := 0
	for k, present := range slots {
		if v, _ := present.IsConst(); v == 0 {
			continue
		}
		if next >= len(op.Inputs) {
			return false
		}
		if k != seqLensSlot && op.Inputs[next].DType != "f32" {
			return false
		}
		next++
	}
	return next > 0 && allF32(op.Outputs...)
}

// stepwise reports whether the float32 op runs step by step
// (wgref.StepwiseRecurrent), from its attributes and W's shape: false when
// they are not constants, so that the scratch reserved is the windowed
// path's, which covers the kernel's choice either way.
func stepwise(op *graph.Op) bool {
	gates := map[string]int{"RNN": 1, "GRU": 3, "LSTM": 4}[op.Kernel]
	hidden := intAttr(op, "hidden_size", 0)
	w, ok := fixedShape(op.Inputs[1])
	if gates == 0 || hidden <= 0 || !ok || len(w) != 3 {
		return false
	}
	var outs []expr.Expr
	for _, a := range op.Attrs {
		if a.Name == "outputs" && a.Kind == graph.AttrInts {
			outs = a.Ints
		}
	}
	has := func(k int) bool {
		if k >= len(outs) {
			return false
		}
		v, ok := outs[k].IsConst()
		return ok && v != 0
	}
	lbr := intAttr(op, "linear_before_reset", 0) != 0
	return wgref.StepwiseRecurrent(gates, int(hidden), w[2], lbr, has(0), has(2))
}
