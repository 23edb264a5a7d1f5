package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// Small float32 RNN, GRU and LSTM layers run step by step, holding no
// scratch: at each step, for each batch entry and block of stepwiseUnits
// hidden units, the units' rows of W dotted with the step's input and
// their rows of R with the previous H, into stack arrays, then the gates.
// The state lives in the op's outputs: H at step t is Y[t] (read back as
// the previous H at the next step), LSTM's cell is Y_c. Where W and R are
// this small they stay in cache from step to step, so the input
// projection need not be one GEMM over many steps, whose projected inputs
// the windowed path (rnn_gemm.go) holds as scratch: on a layer of 64
// units that scratch is larger than the model's activations.

// stepwiseMaxWeightBytes is the largest W plus R of one direction that
// runs step by step: a fraction of a core's L2, so that both stay cached.
// A variable so that tests can run the windowed path on small layers.
var stepwiseMaxWeightBytes = 256 << 10

// stepwiseMaxGates bounds gates·hidden of a layer that runs step by step
// (4·gates·hidden² ≤ stepwiseMaxWeightBytes ≤ 256 KiB makes it at most
// 512): its biases fit a stack array.
const stepwiseMaxGates = 512

// stepwiseUnits is how many hidden units a step finishes at a time: all
// of them in most layers that run step by step (a larger hidden size
// makes weights too large), so that each product is one dotRows call over
// every gate's rows.
const stepwiseUnits = 64

// StepwiseRecurrent reports whether a float32 RNN (1 gate), GRU (3) or
// LSTM (4) runs step by step, needing no scratch: its weights are small,
// it has a Y output to hold H (and LSTM a Y_c for the cell), and a GRU
// applies the reset gate after the product (linear_before_reset), so that
// units need no other units' gates. wrapgen's planner reserves its
// scratch by the same rule.
func StepwiseRecurrent(gates, hidden, input int, linearBeforeReset, hasY, hasYc bool) bool {
	// Sizes beyond the limit are refused before the product, which they
	// could overflow (a hostile graph's hidden_size).
	return hasY && (gates != 4 || hasYc) && (gates != 3 || linearBeforeReset) &&
		hidden <= stepwiseMaxWeightBytes && input <= stepwiseMaxWeightBytes &&
		4*gates*hidden*(input+hidden) <= stepwiseMaxWeightBytes
}

func (op *recurrentOp) stepwise() bool {
	return StepwiseRecurrent(op.gates, op.hidden, op.input, op.linearBeforeReset, op.out[0] != nil, op.out[2] != nil)
}

// recurrentStepwise runs op step by step (see above).
func recurrentStepwise(op *recurrentOp) {
	run := recurrentF32Run{op: *op, hidden: op.hidden, g: op.gates * op.hidden, clip: float32(op.clip), lbr: op.linearBeforeReset, inputForget: op.inputForget}
	run.y, run.yh, run.yc = op.out[0], op.out[1], op.out[2]
	run.yData = elems[float32](*run.y)
	if run.yh != nil {
		run.yhData = elems[float32](*run.yh)
	}
	if run.yc != nil {
		run.ycData = elems[float32](*run.yc)
	}
	for d := 0; d < op.dirs; d++ {
		run.stepwise(d)
	}
}

// stepwise runs direction d's steps.
func (run *recurrentF32Run) stepwise(d int) {
	op, hidden := &run.op, run.hidden
	run.fAct, run.gAct, run.hAct = op.activations(d)
	run.wb, run.rb, run.peep = nil, nil, nil
	if b := op.in[slotB]; b != nil {
		bd := elems[float32](*b)[d*b.Strides[0]:]
		run.wb, run.rb = bd[:run.g:run.g], bd[run.g:2*run.g:2*run.g]
	}
	if p := op.in[slotP]; p != nil {
		run.peep = elems[float32](*p)[d*p.Strides[0]:][: 3*hidden : 3*hidden]
	}
	if run.yc != nil {
		for b := 0; b < op.batch; b++ {
			cell := run.ycData[op.stateAt(run.yc, d, b):][:hidden]
			if s := op.in[slotInitialC]; s != nil {
				copy(cell, elems[float32](*s)[op.stateAt(s, d, b):])
			} else {
				clear(cell)
			}
		}
	}
	steps := 0
	for b := 0; b < op.batch; b++ {
		steps = max(steps, op.steps(b))
	}
	// The biases added to each step's projected inputs: Wb+Rb, Wb alone
	// for GRU's candidate under linear_before_reset (its Rb goes inside
	// r⊙(·)).
	var biasBuf [stepwiseMaxGates]float32
	var bias []float32
	if run.wb != nil {
		bias = biasBuf[:run.g]
		binaryVV(binaryAdd, bias, run.wb, run.rb)
		if op.gates == 3 && run.lbr {
			copy(bias[2*hidden:], run.wb[2*hidden:])
		}
	}
	// The batch entries still running at a step go two at a time, so
	// that each row of W and R is read once for both.
	for s := 0; s < steps; s++ {
		var pair [2]stepwiseEntry
		n := 0
		for b := 0; b < op.batch; b++ {
			if e, ok := run.entryAt(d, s, b); ok {
				pair[n] = e
				if n++; n == 2 {
					run.stepEntries(d, pair[:2], bias)
					n = 0
				}
			}
		}
		if n == 1 {
			run.stepEntries(d, pair[:1], bias)
		}
	}
	for b := 0; b < op.batch; b++ {
		if run.yh != nil {
			last := run.initialH(d, b)
			if n := op.steps(b); n > 0 {
				t, _ := run.timeOf(d, n-1, b)
				last = run.yData[op.yAt(run.y, t, d, b):][:hidden]
			}
			yh := run.yhData[op.stateAt(run.yh, d, b):][:hidden]
			if last != nil {
				copy(yh, last)
			} else {
				clear(yh)
			}
		}
		for t := op.steps(b); t < op.seq; t++ {
			clear(run.yData[op.yAt(run.y, t, d, b):][:hidden])
		}
	}
}

// stepwiseEntry is one batch entry at one step: H before the step (nil:
// zeros), H and the cell to write (in Y and Y_c), the step's input row.
type stepwiseEntry struct {
	prev, h, cell, x []float32
}

// entryAt is batch entry b at step s of direction d; ok is false once its
// sequence has ended.
func (run *recurrentF32Run) entryAt(d, s, b int) (e stepwiseEntry, ok bool) {
	op, hidden := &run.op, run.hidden
	t, ok := run.timeOf(d, s, b)
	if !ok {
		return e, false
	}
	e.prev = run.initialH(d, b)
	if s > 0 {
		pt := t - 1
		if op.isReverse(d) {
			pt = t + 1
		}
		e.prev = run.yData[op.yAt(run.y, pt, d, b):][:hidden]
	}
	e.h = run.yData[op.yAt(run.y, t, d, b):][:hidden]
	if op.gates == 4 {
		e.cell = run.ycData[op.stateAt(run.yc, d, b):][:hidden]
	}
	e.x = elems[float32](*op.in[slotX])[t*op.xt+b*op.xb:]
	return e, true
}

// stepEntries runs one step of direction d for one or two batch entries,
// stepwiseUnits hidden units at a time, the projected inputs plus bias
// (nil: none).
func (run *recurrentF32Run) stepEntries(d int, es []stepwiseEntry, bias []float32) {
	op, hidden := &run.op, run.hidden
	r, w, x := op.in[slotR], op.in[slotW], op.in[slotX]
	rd, rs := elems[float32](*r)[d*r.Strides[0]:], r.Strides[1]
	wd, ws, wc := elems[float32](*w)[d*w.Strides[0]:], w.Strides[1], w.Strides[2]
	xc := x.Strides[2]
	var pre, row [2][4 * stepwiseUnits]float32
	two := len(es) == 2
	for u0 := 0; u0 < hidden; u0 += stepwiseUnits {
		n := min(stepwiseUnits, hidden-u0)
		// The units' rows of R and W, gate by gate; with all units at
		// once every gate's rows are contiguous: one call.
		block, blocks := n, op.gates
		if n == hidden {
			block, blocks = op.gates*n, 1
		}
		for q := 0; q < blocks; q++ {
			at, lo, hi := q*hidden+u0, q*n, q*n+block
			switch {
			case es[0].prev == nil: // the first step from zeros
				clear(pre[0][lo:hi])
				clear(pre[1][lo:hi])
			case two:
				dotRows2(rd[at*rs:], rs, es[0].prev, es[1].prev, pre[0][lo:hi], pre[1][lo:hi])
			default:
				dotRows(rd[at*rs:], rs, es[0].prev, pre[0][lo:hi])
			}
			if two && wc == 1 && xc == 1 {
				dotRows2(wd[at*ws:], ws, es[0].x[:op.input], es[1].x[:op.input], row[0][lo:hi], row[1][lo:hi])
				continue
			}
			for i, e := range es {
				dotRowsStrided(wd[at*ws:], ws, wc, e.x, xc, op.input, row[i][lo:hi])
			}
		}
		var peep [3][]float32
		if run.peep != nil {
			for k := range peep {
				peep[k] = run.peep[k*hidden+u0:][:n]
			}
		}
		var candRb []float32
		if run.rb != nil && op.gates == 3 {
			candRb = run.rb[2*hidden+u0:][:n]
		}
		for i, e := range es {
			if bias != nil {
				for q := 0; q < op.gates; q++ {
					addF32(row[i][q*n:(q+1)*n], bias[q*hidden+u0:])
				}
			}
			hb := e.h[u0 : u0+n]
			if op.gates == 3 { // the blend reads the previous H
				if e.prev != nil {
					copy(hb, e.prev[u0:u0+n])
				} else {
					clear(hb)
				}
			}
			var cb []float32
			if e.cell != nil {
				cb = e.cell[u0 : u0+n]
			}
			run.gateBlock(n, pre[i][:op.gates*n], row[i][:op.gates*n], hb, cb, peep, candRb)
		}
	}
}

// initialH is batch entry b's initial H in direction d, nil when zeros.
func (run *recurrentF32Run) initialH(d, b int) []float32 {
	s := run.op.in[slotInitialH]
	if s == nil {
		return nil
	}
	return elems[float32](*s)[run.op.stateAt(s, d, b):][:run.hidden]
}

// dotRowsStrided is dotRows for a matrix whose columns are cs apart and a
// vector of n elements xs apart: y[q] = Σ_j a[q·lda+j·cs]·x[j·xs].
func dotRowsStrided(a []float32, lda, cs int, x []float32, xs, n int, y []float32) {
	if cs == 1 && xs == 1 {
		dotRows(a, lda, x[:n], y)
		return
	}
	for q := range y {
		s := float32(0)
		for j := 0; j < n; j++ {
			s += a[q*lda+j*cs] * x[j*xs]
		}
		y[q] = s
	}
}

// stepwiseCall is StepwiseRecurrent for a call Prepare sees (attributes,
// W's shape): g gates·hidden, input X's last dimension.
func stepwiseCall(c *wgrt.Call, g, input int) bool {
	gates := map[string]int{"RNN": 1, "GRU": 3, "LSTM": 4}[c.Kernel]
	a := attrsOf(c)
	hidden, outs := a.Int("hidden_size"), a.Ints("outputs")
	lbr := gates == 3 && a.Int("linear_before_reset") != 0
	if a.err != nil || gates == 0 || hidden*gates != g {
		return false
	}
	has := func(k int) bool { return k < len(outs) && outs[k] != 0 }
	return StepwiseRecurrent(gates, hidden, input, lbr, has(0), has(2))
}
