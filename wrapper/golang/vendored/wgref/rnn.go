package wgref

import (
	"fmt"
	"math"
	"strconv"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func init() {
	register("RNN", func(c *wgrt.Call) error { return recurrent(c, 1) })
	register("GRU", func(c *wgrt.Call) error { return recurrent(c, 3) })
	register("LSTM", func(c *wgrt.Call) error { return recurrent(c, 4) })
}

// activation is one of a recurrent op's activation functions.
type activation struct {
	kind        string
	alpha, beta float64
}

func (a activation) apply(x float64) float64 {
	switch a.kind {
	case "Sigmoid":
		return 1 / (1 + math.Exp(-x))
	case "Tanh":
		return math.Tanh(x)
	case "Relu":
		return math.Max(x, 0)
	case "Affine":
		return a.alpha*x + a.beta
	case "LeakyRelu":
		if x < 0 {
			return a.alpha * x
		}
		return x
	case "ThresholdedRelu":
		if x > a.alpha {
			return x
		}
		return 0
	case "ScaledTanh":
		return a.alpha * math.Tanh(a.beta*x)
	case "HardSigmoid":
		return math.Max(0, math.Min(1, a.alpha*x+a.beta))
	case "Elu":
		if x < 0 {
			return a.alpha * (math.Exp(x) - 1)
		}
		return x
	case "Softsign":
		return x / (1 + math.Abs(x))
	case "Softplus":
		return math.Log1p(math.Exp(x))
	}
	return math.NaN()
}

// applyF32 applies the activation to every element of xs in place: the
// gates' functions (Sigmoid, Tanh, Relu) with the float32 row kernels the
// elementwise ops use (vec.go); the rarer ones through apply.
func (a activation) applyF32(xs []float32) {
	switch a.kind {
	case "Sigmoid":
		unaryF32{kind: unarySigmoid}.row(xs, xs)
	case "Tanh":
		unaryF32{kind: unaryTanh}.row(xs, xs)
	case "Relu":
		unaryF32{kind: unaryRelu}.row(xs, xs)
	default:
		for i, v := range xs {
			xs[i] = float32(a.apply(float64(v)))
		}
	}
}

// defaultAlpha and defaultBeta are ONNX's defaults of the activations'
// parameters (those of the same-named operators).
func defaultParams(kind string) (alpha, beta float64) {
	switch kind {
	case "LeakyRelu":
		return 0.01, 0
	case "ThresholdedRelu", "Elu":
		return 1, 0
	case "HardSigmoid":
		return 0.2, 0.5
	case "ScaledTanh", "Affine":
		return 1, 0
	}
	return 0, 0
}

// fields calls f with each comma-separated field of s, without allocating.
func fields(s string, f func(i int, field string)) {
	if s == "" {
		return
	}
	i, start := 0, 0
	for k := 0; k <= len(s); k++ {
		if k == len(s) || s[k] == ',' {
			f(i, s[start:k])
			i, start = i+1, k+1
		}
	}
}

// The operands of RNN, GRU and LSTM by ONNX slot.
const (
	slotX = iota
	slotW
	slotR
	slotB
	slotSeqLens
	slotInitialH
	slotInitialC
	slotP
)

// recurrentOp is one call of RNN (1 gate), GRU (3) or LSTM (4) with its
// attributes read and its operands' shapes checked.
type recurrentOp struct {
	c                              *wgrt.Call
	gates, hidden                  int
	seq, batch, input, dirs        int
	xt, xb                         int // X's strides along time and batch
	layout                         int
	reverse                        bool // one direction, backwards
	clip                           float64
	linearBeforeReset, inputForget bool
	acts                           [6]activation
	perDir                         int             // activations per direction
	in                             [8]*wgrt.Tensor // by slot; absent ones nil
	out                            [3]*wgrt.Tensor // Y, Y_h, Y_c; absent ones nil
}

// recurrent runs RNN, GRU or LSTM as ONNX defines them: float32 operands
// through GEMMs (recurrentF32), any other float dtype one element at a
// time in float64 (recurrentGeneral).
func recurrent(c *wgrt.Call, gates int) error {
	var op recurrentOp
	if err := op.read(c, gates); err != nil {
		return err
	}
	if op.allF32() {
		return recurrentF32(&op)
	}
	return recurrentGeneral(&op)
}

// read takes in c's attributes and operands and checks their shapes.
func (op *recurrentOp) read(c *wgrt.Call, gates int) error {
	op.c, op.gates = c, gates
	a := attrsOf(c)
	direction, hidden, layout := a.String("direction"), a.Int("hidden_size"), a.Int("layout")
	actText, alphaText, betaText := a.String("activations"), a.String("activation_alpha"), a.String("activation_beta")
	op.clip = a.Float("clip")
	present, outPresent := a.Ints("inputs"), a.Ints("outputs")
	if gates == 3 {
		op.linearBeforeReset = a.Int("linear_before_reset") != 0
	}
	if gates == 4 {
		op.inputForget = a.Int("input_forget") != 0
	}
	if a.err != nil {
		return a.err
	}
	op.hidden, op.layout = hidden, layout
	next := 0
	for k, p := range present {
		if p != 0 {
			if next >= len(c.Inputs) || k >= len(op.in) {
				return fmt.Errorf("%s: inputs %v do not match the %d given", c.Kernel, present, len(c.Inputs))
			}
			op.in[k] = &c.Inputs[next]
			next++
		}
	}
	next = 0
	for k, p := range outPresent {
		if p != 0 && k < len(op.out) && next < len(c.Outputs) {
			op.out[k] = &c.Outputs[next]
			next++
		}
	}
	x, w, r := op.in[slotX], op.in[slotW], op.in[slotR]
	if x == nil || w == nil || r == nil || len(x.Shape) != 3 {
		return fmt.Errorf("%s: X, W and R are required, X of rank 3", c.Kernel)
	}
	if familyOf(x.DType) != famFloat {
		return unsupported(c, x.DType)
	}
	op.seq, op.batch, op.input = x.Shape[0], x.Shape[1], x.Shape[2]
	op.xt, op.xb = x.Strides[0], x.Strides[1]
	if layout == 1 {
		op.seq, op.batch, op.xt, op.xb = op.batch, op.seq, op.xb, op.xt
	}
	op.dirs = 1
	switch direction {
	case "forward":
	case "reverse":
		op.reverse = true
	case "bidirectional":
		op.dirs = 2
	default:
		return fmt.Errorf("%s: direction %q is not forward, reverse or bidirectional", c.Kernel, direction)
	}
	op.perDir = max(gates-1, 1) // RNN f; GRU f, g; LSTM f, g, h
	nActs := 0
	fields(actText, func(i int, f string) {
		if i < len(op.acts) {
			op.acts[i].kind = f
			op.acts[i].alpha, op.acts[i].beta = defaultParams(f)
			nActs = i + 1
		}
	})
	var perr error
	fields(alphaText, func(i int, f string) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil && perr == nil {
			perr = err
		}
		if i < len(op.acts) {
			op.acts[i].alpha = v
		}
	})
	fields(betaText, func(i int, f string) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil && perr == nil {
			perr = err
		}
		if i < len(op.acts) {
			op.acts[i].beta = v
		}
	})
	if perr != nil || nActs != op.perDir*op.dirs {
		return fmt.Errorf("%s: activations %q (alpha %q, beta %q) for %d directions", c.Kernel, actText, alphaText, betaText, op.dirs)
	}
	return op.checkShapes()
}

// checkShapes checks every operand against the sizes X, hidden_size and
// direction give, so that the kernels index nothing out of range.
func (op *recurrentOp) checkShapes() error {
	g, h, d := op.gates*op.hidden, op.hidden, op.dirs
	if h <= 0 {
		return fmt.Errorf("%s: hidden_size %d is not positive", op.c.Kernel, h)
	}
	state := [4]int{d, op.batch, h}
	y := [4]int{op.seq, d, op.batch, h}
	if op.layout == 1 {
		state = [4]int{op.batch, d, h}
		y = [4]int{op.batch, op.seq, d, h}
	}
	for _, want := range [...]struct {
		t    *wgrt.Tensor
		name string
		rank int
		dims [4]int
	}{
		{op.in[slotW], "W", 3, [4]int{d, g, op.input}},
		{op.in[slotR], "R", 3, [4]int{d, g, h}},
		{op.in[slotB], "B", 2, [4]int{d, 2 * g}},
		{op.in[slotSeqLens], "sequence_lens", 1, [4]int{op.batch}},
		{op.in[slotInitialH], "initial_h", 3, state},
		{op.in[slotInitialC], "initial_c", 3, state},
		{op.in[slotP], "P", 2, [4]int{d, 3 * h}},
		{op.out[0], "Y", 4, y},
		{op.out[1], "Y_h", 3, state},
		{op.out[2], "Y_c", 3, state},
	} {
		if want.t != nil && !sameShape(want.t.Shape, want.dims[:want.rank]) {
			return shapeError(op.c, want.name, want.t.Shape, want.dims, want.rank)
		}
	}
	if sl := op.in[slotSeqLens]; sl != nil {
		if familyOf(sl.DType) != famInt {
			return fmt.Errorf("%s: sequence_lens is %s, want integers", op.c.Kernel, sl.DType)
		}
		for b := 0; b < op.batch; b++ {
			if n := loadI(*sl, b*sl.Strides[0]); n < 0 || n > int64(op.seq) {
				return fmt.Errorf("%s: sequence length %d for batch entry %d is outside [0, %d]", op.c.Kernel, n, b, op.seq)
			}
		}
	}
	return nil
}

// shapeError says that operand name has shape got, not want[:rank] (its
// own function: want escapes only when there is an error to report).
func shapeError(c *wgrt.Call, name string, got []int, want [4]int, rank int) error {
	return fmt.Errorf("%s: %s has shape %v, want %v", c.Kernel, name, got, want[:rank])
}

// steps is batch entry b's sequence length.
func (op *recurrentOp) steps(b int) int {
	if sl := op.in[slotSeqLens]; sl != nil {
		return int(loadI(*sl, b*sl.Strides[0]))
	}
	return op.seq
}

// direction d's activations f, g and h (g and h are f where the op has
// fewer).
func (op *recurrentOp) activations(d int) (f, g, h activation) {
	f = op.acts[d*op.perDir]
	g, h = f, f
	if op.perDir > 1 {
		g = op.acts[d*op.perDir+1]
	}
	if op.perDir > 2 {
		h = op.acts[d*op.perDir+2]
	}
	return f, g, h
}

// isReverse reports whether direction d runs backwards in time.
func (op *recurrentOp) isReverse(d int) bool { return op.reverse || d == 1 }

// yAt and stateAt are the element offsets of Y[t, d, b, 0] and of a state
// tensor's [d, b, 0] (their layout-1 transposes when layout is 1).
func (op *recurrentOp) yAt(y *wgrt.Tensor, t, d, b int) int {
	if op.layout == 1 {
		return b*y.Strides[0] + t*y.Strides[1] + d*y.Strides[2]
	}
	return t*y.Strides[0] + d*y.Strides[1] + b*y.Strides[2]
}

func (op *recurrentOp) stateAt(s *wgrt.Tensor, d, b int) int {
	if op.layout == 1 {
		return b*s.Strides[0] + d*s.Strides[1]
	}
	return d*s.Strides[0] + b*s.Strides[1]
}

// allF32 reports whether every float operand is float32 and the ones the
// GEMM path reads as rows (all but X and W, which it reads through
// strides) have contiguous rows.
func (op *recurrentOp) allF32() bool {
	for k, t := range op.in {
		if t == nil || k == slotSeqLens {
			continue
		}
		if t.DType != wgrt.F32 {
			return false
		}
		if k != slotX && k != slotW && !lastContiguous(t) {
			return false
		}
	}
	for _, t := range op.out {
		if t != nil && (t.DType != wgrt.F32 || !lastContiguous(t)) {
			return false
		}
	}
	return true
}

// lastContiguous reports whether t's last dimension has unit stride (or
// one element).
func lastContiguous(t *wgrt.Tensor) bool {
	n := len(t.Shape)
	return n == 0 || t.Shape[n-1] <= 1 || t.Strides[n-1] == 1
}
