package wgref

import (
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// recurrentGeneralFloats is what RNN, GRU and LSTM keep on the general
// path while they run one sequence: the gates, and the hidden state, cell
// state and a temporary, float64 each (refscratch holds the same need).
func recurrentGeneralFloats(gates, hidden int) int { return hidden * (gates + 3) }

// recurrentGeneral runs the op one batch entry and direction at a time in
// float64, for the float dtypes other than float32 (float64, float16,
// bfloat16) and operands whose rows are not contiguous.
func recurrentGeneral(op *recurrentOp) error {
	gates, hidden, inputSize := op.gates, op.hidden, op.input
	x, w, r := op.in[slotX], op.in[slotW], op.in[slotR]
	work, err := scratchOf[float64](op.c, recurrentGeneralFloats(gates, hidden))
	if err != nil {
		return err
	}
	g := work[:gates*hidden]
	h := work[gates*hidden : (gates+1)*hidden]
	cell := work[(gates+1)*hidden : (gates+2)*hidden]
	tmp := work[(gates+2)*hidden : (gates+3)*hidden]
	clip := op.clip
	clipped := func(v float64) float64 {
		if clip > 0 {
			return math.Max(-clip, math.Min(clip, v))
		}
		return v
	}
	// pre is gate q's pre-activation from X_t and a hidden vector hv:
	// X_t·W_q + hv·R_q + Wb_q + Rb_q (biases optional).
	pre := func(d, t, b, q int, hv []float64, withX, withH, withWb, withRb bool) float64 {
		s := 0.0
		if withX {
			wo := d*w.Strides[0] + q*w.Strides[1]
			xo := t*op.xt + b*op.xb
			for i := 0; i < inputSize; i++ {
				s += loadF(*x, xo+i*x.Strides[2]) * loadF(*w, wo+i*w.Strides[2])
			}
		}
		if withH {
			ro := d*r.Strides[0] + q*r.Strides[1]
			for j := 0; j < hidden; j++ {
				s += hv[j] * loadF(*r, ro+j*r.Strides[2])
			}
		}
		if bias := op.in[slotB]; bias != nil {
			if withWb {
				s += loadF(*bias, d*bias.Strides[0]+q*bias.Strides[1])
			}
			if withRb {
				s += loadF(*bias, d*bias.Strides[0]+(gates*hidden+q)*bias.Strides[1])
			}
		}
		return s
	}
	lastStride := func(t *wgrt.Tensor) int { return t.Strides[len(t.Strides)-1] }
	for d := 0; d < op.dirs; d++ {
		f, gAct, hAct := op.activations(d)
		for b := 0; b < op.batch; b++ {
			n := op.steps(b)
			for k := 0; k < hidden; k++ {
				h[k], cell[k] = 0, 0
				if s := op.in[slotInitialH]; s != nil {
					h[k] = loadF(*s, op.stateAt(s, d, b)+k*lastStride(s))
				}
				if s := op.in[slotInitialC]; gates == 4 && s != nil {
					cell[k] = loadF(*s, op.stateAt(s, d, b)+k*lastStride(s))
				}
			}
			for step := 0; step < n; step++ {
				t := step
				if op.isReverse(d) {
					t = n - 1 - step
				}
				switch gates {
				case 1:
					for k := 0; k < hidden; k++ {
						g[k] = f.apply(clipped(pre(d, t, b, k, h, true, true, true, true)))
					}
					copy(h, g[:hidden])
				case 3:
					// z and r from X and the previous h; then the candidate.
					for k := 0; k < hidden; k++ {
						g[k] = f.apply(clipped(pre(d, t, b, k, h, true, true, true, true)))
						g[hidden+k] = f.apply(clipped(pre(d, t, b, hidden+k, h, true, true, true, true)))
					}
					for k := 0; k < hidden; k++ {
						q := 2*hidden + k
						var v float64
						if op.linearBeforeReset {
							v = pre(d, t, b, q, h, true, false, true, false) + g[hidden+k]*pre(d, t, b, q, h, false, true, false, true)
						} else {
							for j := 0; j < hidden; j++ {
								tmp[j] = g[hidden+j] * h[j]
							}
							v = pre(d, t, b, q, tmp, true, true, true, true)
						}
						g[2*hidden+k] = gAct.apply(clipped(v))
					}
					for k := 0; k < hidden; k++ {
						z := g[k]
						tmp[k] = (1-z)*g[2*hidden+k] + z*h[k]
					}
					copy(h, tmp)
				case 4:
					// Gates i, o, f, c in W's order; peepholes P: i, o, f.
					peep := func(q, k int, cv float64) float64 {
						if p := op.in[slotP]; p != nil {
							return loadF(*p, d*p.Strides[0]+(q*hidden+k)*p.Strides[1]) * cv
						}
						return 0
					}
					for k := 0; k < hidden; k++ {
						i := f.apply(clipped(pre(d, t, b, k, h, true, true, true, true) + peep(0, k, cell[k])))
						ff := 1 - i
						if !op.inputForget {
							ff = f.apply(clipped(pre(d, t, b, 2*hidden+k, h, true, true, true, true) + peep(2, k, cell[k])))
						}
						cc := gAct.apply(clipped(pre(d, t, b, 3*hidden+k, h, true, true, true, true)))
						g[k] = ff*cell[k] + i*cc // the new cell state
					}
					for k := 0; k < hidden; k++ {
						o := f.apply(clipped(pre(d, t, b, hidden+k, h, true, true, true, true) + peep(1, k, g[k])))
						tmp[k] = o * hAct.apply(g[k])
					}
					copy(cell, g[:hidden])
					copy(h, tmp)
				}
				if y := op.out[0]; y != nil {
					for k := 0; k < hidden; k++ {
						storeF(*y, op.yAt(y, t, d, b)+k*y.Strides[3], h[k])
					}
				}
			}
			if y := op.out[0]; y != nil {
				for t := n; t < op.seq; t++ {
					for k := 0; k < hidden; k++ {
						storeF(*y, op.yAt(y, t, d, b)+k*y.Strides[3], 0)
					}
				}
			}
			for k := 0; k < hidden; k++ {
				if s := op.out[1]; s != nil {
					storeF(*s, op.stateAt(s, d, b)+k*lastStride(s), h[k])
				}
				if s := op.out[2]; s != nil {
					storeF(*s, op.stateAt(s, d, b)+k*lastStride(s), cell[k])
				}
			}
		}
	}
	return nil
}
