package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// The float32 path of RNN, GRU and LSTM. Per direction:
//   - the input projection of projectSteps time steps of every batch entry
//     at once, one GEMM X[steps·batch, input]·Wᵀ into [steps·batch,
//     gates·hidden] (one per batch entry when their steps fall at
//     different times), on top of the biases Wb+Rb (Rb of GRU's candidate
//     gate stays out when linear_before_reset is set: ONNX multiplies it
//     by the reset gate);
//   - per time step, the recurrence H[batch, hidden]·Rᵀ (GRU without
//     linear_before_reset: for z and r, then (r⊙H)·Rhᵀ for the
//     candidate): for a batch of one or two, R's rows dotted with each
//     entry's H (dotrows.go); for more, one GEMM for the whole batch,
//     through R transposed once per direction into Rᵀ [hidden,
//     gates·hidden] (rows padded by rtPad), which sgemm reads in place
//     (given R, it would pack all of it again at every step);
//   - the gates in float32 loops over each batch entry's contiguous row.
// Batch entries whose sequence (sequence_lens) has ended ride along in the
// GEMM; their state is no longer updated.

// recurrentF32Floats is the float32 scratch of the path, refscratch's rule
// for float32 RNN, GRU and LSTM: sgemm's packing (the larger of the input
// projection's and a step's, each asked as for a packed B, which covers
// every layout and a step's part of the columns), the projected inputs of
// up to projectSteps steps, Rᵀ of one direction with its padding (for
// batches beyond dotRowsMaxBatch), one step's gate pre-activations, and
// the hidden state plus a second state (LSTM's cell, GRU's r⊙H) of every
// batch entry.
func recurrentF32Floats(seq, batch, input, hidden, gates int) int {
	g, rows := gates*hidden, min(seq, projectSteps)*batch
	pack := max(gemmPackFloats(rows, g, input, bStrided), gemmPackFloats(batch, g, hidden, bStrided))
	return pack + rows*g + rtFloats(batch, hidden, g) + batch*g + 2*batch*hidden
}

// projectSteps is how many time steps' input projections are held at
// once. All of them would be scratch that grows with the sequence (8 MB
// for 1,000 steps of an LSTM of 512); 64 steps cost a pass over W more
// every 64 steps, against the recurrence's pass over R at every step (16
// steps made a 20-step bidirectional LSTM of 64 5% slower: one GEMM more).
const projectSteps = 64

// rtFloats is Rᵀ's scratch: none where the steps read R itself.
func rtFloats(batch, hidden, g int) int {
	if batch <= dotRowsMaxBatch {
		return 0
	}
	return hidden * (g + rtPad)
}

// rtPad pads Rᵀ's rows by one cache line: with gates·hidden a power of
// two the micro-kernel's reads down a column panel would all map to the
// same cache sets.
const rtPad = 16

// recurrentF32Run is one call's float32 buffers and the direction it is at.
type recurrentF32Run struct {
	op                    recurrentOp // a copy: what sgemm is given escapes (to its goroutines), and with it whatever this struct points to
	hidden, g             int         // hidden size, gates·hidden
	clip                  float32
	packs, proj, rt       []float32
	s0, s1                int       // the steps whose input projections proj holds
	rd                    []float32 // R of the direction: rows rs apart, contiguous
	rs                    int
	pre, h, second        []float32 // step pre-activations [batch, g], H and the second state [batch, hidden]
	wb, rb, peep          []float32 // direction's biases and peepholes, nil when absent
	fAct, gAct, hAct      activation
	lbr, inputForget      bool
	y, yh, yc             *wgrt.Tensor
	yData, yhData, ycData []float32
}

func recurrentF32(op *recurrentOp) error {
	if op.stepwise() {
		recurrentStepwise(op)
		return nil
	}
	hidden, g := op.hidden, op.gates*op.hidden
	rows := min(op.seq, projectSteps) * op.batch
	work, err := scratchOf[float32](op.c, recurrentF32Floats(op.seq, op.batch, op.input, hidden, op.gates))
	if err != nil {
		return err
	}
	run := recurrentF32Run{op: *op, hidden: hidden, g: g, clip: float32(op.clip), lbr: op.linearBeforeReset, inputForget: op.inputForget}
	take := func(n int) []float32 {
		s := work[:n:n]
		work = work[n:]
		return s
	}
	run.packs = take(max(gemmPackFloats(rows, g, op.input, bStrided), gemmPackFloats(op.batch, g, hidden, bStrided)))
	run.proj = take(rows * g)
	run.rt = take(rtFloats(op.batch, hidden, g))
	run.pre = take(op.batch * g)
	run.h = take(op.batch * hidden)
	run.second = take(op.batch * hidden)
	run.y, run.yh, run.yc = op.out[0], op.out[1], op.out[2]
	if run.y != nil {
		run.yData = elems[float32](*run.y)
	}
	if run.yh != nil {
		run.yhData = elems[float32](*run.yh)
	}
	if run.yc != nil {
		run.ycData = elems[float32](*run.yc)
	}
	steps := 0
	for b := 0; b < op.batch; b++ {
		steps = max(steps, op.steps(b))
	}
	for d := 0; d < op.dirs; d++ {
		run.direction(d)
		for s0 := 0; s0 < steps; s0 += projectSteps {
			run.project(d, s0, min(steps, s0+projectSteps))
			for s := s0; s < run.s1; s++ {
				run.step(d, s)
			}
		}
		run.finish(d)
	}
	return nil
}

// direction readies direction d: its biases, activations, projected
// inputs, Rᵀ and initial state.
func (run *recurrentF32Run) direction(d int) {
	op, g, hidden := &run.op, run.g, run.hidden
	run.fAct, run.gAct, run.hAct = op.activations(d)
	run.wb, run.rb, run.peep = nil, nil, nil
	if b := op.in[slotB]; b != nil {
		bd := elems[float32](*b)[d*b.Strides[0]:]
		run.wb, run.rb = bd[:g:g], bd[g:2*g:2*g]
	}
	if p := op.in[slotP]; p != nil {
		run.peep = elems[float32](*p)[d*p.Strides[0]:][: 3*hidden : 3*hidden]
	}

	r := op.in[slotR]
	run.rd, run.rs = elems[float32](*r)[d*r.Strides[0]:], r.Strides[1]
	if len(run.rt) > 0 {
		// Rᵀ[j][q] = R[d][q][j], 16 columns of Rᵀ (rows of R) at a time so
		// that the rows read stay in cache while the writes run along Rᵀ's
		// rows.
		rs := run.rs
		for q0 := 0; q0 < g; q0 += 16 {
			qn := min(16, g-q0)
			for j := 0; j < hidden; j++ {
				dst := run.rt[j*(g+rtPad)+q0 : j*(g+rtPad)+q0+qn]
				src := run.rd[q0*rs+j:]
				for i := range dst {
					dst[i] = src[i*rs]
				}
			}
		}
	}

	clear(run.h)
	clear(run.second)
	for b := 0; b < op.batch; b++ {
		if s := op.in[slotInitialH]; s != nil {
			copy(run.h[b*hidden:(b+1)*hidden], elems[float32](*s)[op.stateAt(s, d, b):])
		}
		if s := op.in[slotInitialC]; s != nil && op.gates == 4 {
			copy(run.second[b*hidden:(b+1)*hidden], elems[float32](*s)[op.stateAt(s, d, b):])
		}
	}
}

// project computes the input projections of direction d's steps [s0, s1)
// into proj, plus the biases that can be added before the recurrence:
// batch entry b's at time t in row (t-lo)·batch+b, where [lo, hi) are the
// times b is at in those steps (window).
func (run *recurrentF32Run) project(d, s0, s1 int) {
	op, g, hidden := &run.op, run.g, run.hidden
	run.s0, run.s1 = s0, s1
	rows := (s1 - s0) * op.batch
	accumulate := run.wb != nil
	if accumulate {
		first := run.proj[:g]
		for q := range first {
			first[q] = run.wb[q] + run.rb[q]
		}
		if op.gates == 3 && run.lbr {
			// Rb of the candidate gate is added inside the reset gate's
			// product at every step.
			copy(first[2*hidden:], run.wb[2*hidden:])
		}
		for i := 1; i < rows; i++ {
			copy(run.proj[i*g:(i+1)*g], first)
		}
	}
	x, w := op.in[slotX], op.in[slotW]
	xs := elems[float32](*x)
	wm := matrix{data: elems[float32](*w)[d*w.Strides[0]:], rs: w.Strides[2], cs: w.Strides[1]} // W[d]ᵀ
	// W[d]ᵀ packed once (prepareRecurrent), else packed here.
	pk := preparedOf(op.c)
	if d == 1 && pk != nil {
		pk = pk.next
	}
	pre := prepacked{pk: pk.forB(g, op.input, formOf(wm, nil))}
	xc := x.Strides[2]
	lo, hi := run.window(d, 0)
	same := true
	for b := 1; b < op.batch && same; b++ {
		l, h := run.window(d, b)
		same = l == lo && h == hi
	}
	if n := (hi - lo) * op.batch; same && (op.batch == 1 || hi-lo == 1 || op.xt == op.batch*op.xb) {
		// Rows t·batch+b of the window are X's rows in order (one batch
		// entry, one step, or time-major X).
		rs := op.xb
		if op.batch == 1 {
			rs = op.xt
		}
		sgemmRows(n, g, op.input, matrix{data: xs[lo*op.xt:], rs: rs, cs: xc}, wm, nil, run.proj, g, accumulate, run.packs, nil, pre, threadsOf(run.op.c))
		return
	}
	// Batch-major X, or batch entries at different times (reversed
	// sequences of different lengths): one GEMM per batch entry, its
	// rows batch·g apart in proj.
	for b := 0; b < op.batch; b++ {
		lo, hi := run.window(d, b)
		if hi > lo {
			sgemmRows(hi-lo, g, op.input, matrix{data: xs[b*op.xb+lo*op.xt:], rs: op.xt, cs: xc}, wm, nil, run.proj[b*g:], op.batch*g, accumulate, run.packs, nil, pre, threadsOf(run.op.c))
		}
	}
}

// window is the times [lo, hi) batch entry b is at in direction d's steps
// [s0, s1) that proj holds: forward, the steps themselves (also past the
// end of b's sequence, where its row rides along unused); reversed,
// counted back from the end of b's sequence.
func (run *recurrentF32Run) window(d, b int) (lo, hi int) {
	if !run.op.isReverse(d) {
		return run.s0, run.s1
	}
	n := run.op.steps(b)
	return max(0, n-run.s1), max(0, n-run.s0)
}

// projected is batch entry b's input projection at time t, in proj.
func (run *recurrentF32Run) projected(d, t, b int) []float32 {
	lo, _ := run.window(d, b)
	g := run.g
	return run.proj[((t-lo)*run.op.batch+b)*g:][:g:g]
}

func init() {
	for _, kernel := range []string{"RNN", "GRU", "LSTM"} {
		registerPrepare(kernel, prepareRecurrent)
	}
}

// prepareRecurrent packs a float32 RNN, GRU or LSTM's W ([directions,
// gates·hidden, input], a param) as each direction's input projection's
// B, W[d]ᵀ, the operand project would otherwise pack on every call (a
// 2-layer GRU of 512 spent a sixth of its time there): one slice, the
// second direction's half behind next, unless the op runs step by step.
// refscratch.PackedBytes counts it.
func prepareRecurrent(c *wgrt.Call) (*packedGEMM, error) {
	w, ok := weightOf(c, 1)
	if !ok || len(w.Shape) != 3 || w.Shape[0] < 1 || w.Shape[0] > 2 || !w.Contiguous() {
		return nil, nil
	}
	dirs, g, input := w.Shape[0], w.Shape[1], w.Shape[2]
	if stepwiseCall(c, g, input) {
		return nil, nil // no input projection to pack
	}
	ws := elems[float32](w)
	var packs [2]*packedGEMM
	for d := range dirs {
		if packs[d] = packWeightB(matrix{data: ws[d*g*input:], rs: 1, cs: input}, g, input); packs[d] == nil {
			return nil, nil // a row-major B of whole panels: read in place
		}
	}
	if dirs == 1 {
		return packs[0], nil
	}
	per := len(packs[0].data)
	all := append(packs[0].data[:per:per], packs[1].data...)
	packs[0].data, packs[1].data = all, all[per:]
	packs[0].next = packs[1]
	return packs[0], nil
}

// step runs step s of direction d for every batch entry whose sequence
// has not ended.
func (run *recurrentF32Run) step(d, s int) {
	op, g, hidden := &run.op, run.g, run.hidden
	gruReset := op.gates == 3 && !run.lbr
	n := g
	if gruReset {
		n = 2 * hidden
	}
	run.recur(run.h, 0, n)
	for b := 0; b < op.batch; b++ {
		if t, ok := run.timeOf(d, s, b); ok {
			run.gates(b, run.projected(d, t, b))
		}
	}
	if gruReset {
		// The candidate's recurrence: (r⊙H)·Rhᵀ.
		run.recur(run.second, 2*hidden, hidden)
		for b := 0; b < op.batch; b++ {
			if t, ok := run.timeOf(d, s, b); ok {
				run.gruCandidate(b, run.projected(d, t, b))
			}
		}
	}
	if run.y != nil {
		for b := 0; b < op.batch; b++ {
			if t, ok := run.timeOf(d, s, b); ok {
				copy(run.yData[op.yAt(run.y, t, d, b):][:hidden], run.h[b*hidden:(b+1)*hidden])
			}
		}
	}
}

// recur is the step's product of states [batch, hidden] with rows [col,
// col+n) of R (columns of Rᵀ) into the same columns of pre: for a batch
// of one or two, R's rows dotted with each entry's state (no padding to
// the GEMM micro-kernel's rows, no Rᵀ; two entries read each row once);
// for more, one GEMM.
func (run *recurrentF32Run) recur(states []float32, col, n int) {
	op, g, hidden := &run.op, run.g, run.hidden
	if op.batch == 2 { // R's rows read once for both entries
		dotRows2(run.rd[col*run.rs:], run.rs, states[:hidden], states[hidden:2*hidden], run.pre[col:col+n], run.pre[g+col:g+col+n])
		return
	}
	if op.batch <= dotRowsMaxBatch {
		for b := 0; b < op.batch; b++ {
			dotRows(run.rd[col*run.rs:], run.rs, states[b*hidden:(b+1)*hidden], run.pre[b*g+col:b*g+col+n])
		}
		return
	}
	sgemm(op.batch, n, hidden, matrix{data: states, rs: hidden, cs: 1}, matrix{data: run.rt[col:], rs: g + rtPad, cs: 1}, nil, run.pre[col:], g, false, run.packs, threadsOf(run.op.c))
}

// timeOf is the time step batch entry b is at in step s of direction d;
// ok is false once its sequence has ended.
func (run *recurrentF32Run) timeOf(d, s, b int) (t int, ok bool) {
	n := run.op.steps(b)
	if s >= n {
		return 0, false
	}
	if run.op.isReverse(d) {
		return n - 1 - s, true
	}
	return s, true
}

// gates updates batch entry b's state from its step pre-activations (the
// recurrence, in pre) and its projected input row (GRU without
// linear_before_reset: up to r⊙H, which gruCandidate continues from).
func (run *recurrentF32Run) gates(b int, row []float32) {
	hidden, g := run.hidden, run.g
	var peep [3][]float32
	if run.peep != nil {
		peep = [3][]float32{run.peep[:hidden], run.peep[hidden : 2*hidden], run.peep[2*hidden : 3*hidden]}
	}
	var candRb []float32
	if run.rb != nil && run.op.gates == 3 {
		candRb = run.rb[2*hidden : 3*hidden]
	}
	run.gateBlock(hidden, run.pre[b*g:(b+1)*g:(b+1)*g], row, run.h[b*hidden:(b+1)*hidden:(b+1)*hidden],
		run.second[b*hidden:(b+1)*hidden:(b+1)*hidden], peep, candRb)
}

// gateBlock updates n units' state h and second (LSTM's cell, GRU's r⊙H)
// from their pre-activations: pre holds the recurrence and row the
// projected input, gate q of the units at [q·n, (q+1)·n) of each. peep
// are the units' peepholes i, o, f (nil: none) and candRb GRU's Rbh of
// the units (linear_before_reset; nil: none).
func (run *recurrentF32Run) gateBlock(n int, pre, row, h, second []float32, peep [3][]float32, candRb []float32) {
	switch run.op.gates {
	case 1:
		pre = pre[:n]
		addF32(pre, row)
		clipF32(pre, run.clip)
		run.fAct.applyF32(pre)
		copy(h, pre)
	case 3:
		zr := pre[:2*n]
		addF32(zr, row[:2*n])
		clipF32(zr, run.clip)
		run.fAct.applyF32(zr)
		r := pre[n : 2*n]
		if !run.lbr {
			mulF32(second, r, h) // r⊙H, for the candidate's GEMM
			return
		}
		// n = g(Xt·Whᵀ + Wbh + r⊙(H·Rhᵀ + Rbh))
		cand, x := pre[2*n:3*n], row[2*n:3*n]
		for k := range cand {
			v := cand[k]
			if candRb != nil {
				v += candRb[k]
			}
			cand[k] = x[k] + r[k]*v
		}
		clipF32(cand, run.clip)
		run.gAct.applyF32(cand)
		blendF32(h, pre[:n], cand)
	case 4:
		// Gates i, o, f, c in W's order; peepholes i, o, f; the cell
		// state is second.
		pre = pre[:4*n]
		addF32(pre, row)
		i, o, f, c := pre[:n], pre[n:2*n], pre[2*n:3*n], pre[3*n:4*n]
		if peep[0] != nil {
			fmaF32(i, peep[0], second)
			if !run.inputForget {
				fmaF32(f, peep[2], second)
			}
		}
		clipF32(i, run.clip)
		run.fAct.applyF32(i)
		if run.inputForget {
			for k := range f {
				f[k] = 1 - i[k]
			}
		} else {
			clipF32(f, run.clip)
			run.fAct.applyF32(f)
		}
		clipF32(c, run.clip)
		run.gAct.applyF32(c)
		for k := range second {
			second[k] = f[k]*second[k] + i[k]*c[k]
		}
		if peep[1] != nil {
			fmaF32(o, peep[1], second)
		}
		clipF32(o, run.clip)
		run.fAct.applyF32(o)
		copy(c, second)
		run.hAct.applyF32(c)
		mulF32(h, o, c)
	}
}

// gruCandidate finishes GRU's step without linear_before_reset for batch
// entry b: n = g(Xt·Whᵀ + (r⊙H)·Rhᵀ + Wbh + Rbh), H = (1-z)⊙n + z⊙H.
func (run *recurrentF32Run) gruCandidate(b int, row []float32) {
	hidden, g := run.hidden, run.g
	pre := run.pre[b*g : (b+1)*g : (b+1)*g]
	n := pre[2*hidden : 3*hidden]
	addF32(n, row[2*hidden:3*hidden])
	clipF32(n, run.clip)
	run.gAct.applyF32(n)
	blendF32(run.h[b*hidden:(b+1)*hidden], pre[:hidden], n)
}

// finish writes direction d's last states and zeroes Y past each batch
// entry's sequence.
func (run *recurrentF32Run) finish(d int) {
	op, hidden := &run.op, run.hidden
	for b := 0; b < op.batch; b++ {
		h := run.h[b*hidden : (b+1)*hidden]
		if run.yh != nil {
			copy(run.yhData[op.stateAt(run.yh, d, b):][:hidden], h)
		}
		if run.yc != nil {
			copy(run.ycData[op.stateAt(run.yc, d, b):][:hidden], run.second[b*hidden:(b+1)*hidden])
		}
		if run.y != nil {
			for t := op.steps(b); t < op.seq; t++ {
				clear(run.yData[op.yAt(run.y, t, d, b):][:hidden])
			}
		}
	}
}

// Elementwise float32 loops over equal-length rows.

func addF32(dst, src []float32) { binaryVV(binaryAdd, dst, dst, src) }

func mulF32(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] * b[i]
	}
}

// fmaF32 is dst += a⊙b.
func fmaF32(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] += a[i] * b[i]
	}
}

// blendF32 is GRU's h = (1-z)⊙n + z⊙h.
func blendF32(h, z, n []float32) {
	z, n = z[:len(h)], n[:len(h)]
	for i := range h {
		h[i] = n[i] + z[i]*(h[i]-n[i])
	}
}

// clipF32 clamps xs to [-c, c] when c > 0 (ONNX's clip; 0: none).
func clipF32(xs []float32, c float32) {
	if c <= 0 {
		return
	}
	for i, v := range xs {
		xs[i] = min(max(v, -c), c)
	}
}
