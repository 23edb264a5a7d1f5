package wgref

import (
	"fmt"
	"math"
	"strconv"

	"github.com/wrapgen/wrapgen/wrapper/golang/wgrt"
)

func init() {
	register("RNN", func(c *wgrt.Call) error { return recurrent(c, 1) })
	register("GRU", func(c *wgrt.Call) error { return recurrent(c, 3) })
	register("LSTM", func(c *wgrt.Call) error { return recurrent(c, 4) })
}

// recurrentScratchFloats is what RNN, GRU and LSTM keep while they run one
// sequence: the gates, and the hidden state, cell state and a temporary,
// float64 each (refscratch holds the same need).
func recurrentScratchFloats(gates, hidden int) int { return hidden * (gates + 3) }

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

// recurrent runs RNN (1 gate), GRU (3) or LSTM (4) as ONNX defines them,
// one batch entry and direction at a time, in float64.
func recurrent(c *wgrt.Call, gates int) error {
	a := attrsOf(c)
	direction, hidden, layout := a.String("direction"), a.Int("hidden_size"), a.Int("layout")
	actText, alphaText, betaText := a.String("activations"), a.String("activation_alpha"), a.String("activation_beta")
	clip := a.Float("clip")
	present, outPresent := a.Ints("inputs"), a.Ints("outputs")
	linearBeforeReset, inputForget := false, false
	if gates == 3 {
		linearBeforeReset = a.Int("linear_before_reset") != 0
	}
	if gates == 4 {
		inputForget = a.Int("input_forget") != 0
	}
	if a.err != nil {
		return a.err
	}
	// The inputs and outputs by ONNX slot; absent ones stay zero.
	var in [8]*wgrt.Tensor
	next := 0
	for k, p := range present {
		if p != 0 {
			if next >= len(c.Inputs) || k >= len(in) {
				return fmt.Errorf("%s: inputs %v do not match the %d given", c.Kernel, present, len(c.Inputs))
			}
			in[k] = &c.Inputs[next]
			next++
		}
	}
	var out [3]*wgrt.Tensor
	next = 0
	for k, p := range outPresent {
		if p != 0 && k < len(out) && next < len(c.Outputs) {
			out[k] = &c.Outputs[next]
			next++
		}
	}
	x, w, r := in[0], in[1], in[2]
	if x == nil || w == nil || r == nil || len(x.Shape) != 3 {
		return fmt.Errorf("%s: X, W and R are required, X of rank 3", c.Kernel)
	}
	if familyOf(x.DType) != famFloat {
		return unsupported(c, x.DType)
	}
	seq, batch, inputSize := x.Shape[0], x.Shape[1], x.Shape[2]
	xs0, xs1 := x.Strides[0], x.Strides[1]
	if layout == 1 {
		seq, batch, xs0, xs1 = batch, seq, xs1, xs0
	}
	dirs := 1
	if direction == "bidirectional" {
		dirs = 2
	}
	perDir := gates - 1 // activations per direction: RNN f; GRU f, g; LSTM f, g, h
	if gates == 1 {
		perDir = 1
	}
	var acts [6]activation
	nActs := 0
	fields(actText, func(i int, f string) {
		if i < len(acts) {
			acts[i].kind = f
			acts[i].alpha, acts[i].beta = defaultParams(f)
			nActs = i + 1
		}
	})
	var perr error
	fields(alphaText, func(i int, f string) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil && perr == nil {
			perr = err
		}
		if i < len(acts) {
			acts[i].alpha = v
		}
	})
	fields(betaText, func(i int, f string) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil && perr == nil {
			perr = err
		}
		if i < len(acts) {
			acts[i].beta = v
		}
	})
	if perr != nil || nActs != perDir*dirs {
		return fmt.Errorf("%s: activations %q (alpha %q, beta %q) for %d directions", c.Kernel, actText, alphaText, betaText, dirs)
	}
	work, err := scratchOf[float64](c, recurrentScratchFloats(gates, hidden))
	if err != nil {
		return err
	}
	g := work[:gates*hidden]
	h := work[gates*hidden : (gates+1)*hidden]
	cell := work[(gates+1)*hidden : (gates+2)*hidden]
	tmp := work[(gates+2)*hidden : (gates+3)*hidden]

	// Element offsets of Y[t, d, b, k] and of a state [d, b, k].
	yAt := func(t, d, b, k int) int {
		y := out[0]
		if layout == 1 {
			return b*y.Strides[0] + t*y.Strides[1] + d*y.Strides[2] + k*y.Strides[3]
		}
		return t*y.Strides[0] + d*y.Strides[1] + b*y.Strides[2] + k*y.Strides[3]
	}
	stateAt := func(s *wgrt.Tensor, d, b, k int) int {
		if layout == 1 {
			return b*s.Strides[0] + d*s.Strides[1] + k*s.Strides[2]
		}
		return d*s.Strides[0] + b*s.Strides[1] + k*s.Strides[2]
	}
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
			xo := t*xs0 + b*xs1
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
		if bias := in[3]; bias != nil {
			if withWb {
				s += loadF(*bias, d*bias.Strides[0]+q*bias.Strides[1])
			}
			if withRb {
				s += loadF(*bias, d*bias.Strides[0]+(gates*hidden+q)*bias.Strides[1])
			}
		}
		return s
	}
	for d := 0; d < dirs; d++ {
		reverse := direction == "reverse" || d == 1
		f := acts[d*perDir]
		gAct, hAct := f, f
		if perDir > 1 {
			gAct = acts[d*perDir+1]
		}
		if perDir > 2 {
			hAct = acts[d*perDir+2]
		}
		for b := 0; b < batch; b++ {
			n := seq
			if sl := in[4]; sl != nil {
				n = int(loadI(*sl, b*sl.Strides[0]))
				if n < 0 || n > seq {
					return fmt.Errorf("%s: sequence length %d for batch entry %d is outside [0, %d]", c.Kernel, n, b, seq)
				}
			}
			for k := 0; k < hidden; k++ {
				h[k], cell[k] = 0, 0
				if s := in[5]; s != nil {
					h[k] = loadF(*s, stateAt(s, d, b, k))
				}
				if s := in[6]; gates == 4 && s != nil {
					cell[k] = loadF(*s, stateAt(s, d, b, k))
				}
			}
			for step := 0; step < n; step++ {
				t := step
				if reverse {
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
						if linearBeforeReset {
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
						if p := in[7]; p != nil {
							return loadF(*p, d*p.Strides[0]+(q*hidden+k)*p.Strides[1]) * cv
						}
						return 0
					}
					for k := 0; k < hidden; k++ {
						i := f.apply(clipped(pre(d, t, b, k, h, true, true, true, true) + peep(0, k, cell[k])))
						ff := 1 - i
						if !inputForget {
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
				if out[0] != nil {
					for k := 0; k < hidden; k++ {
						storeF(*out[0], yAt(t, d, b, k), h[k])
					}
				}
			}
			if out[0] != nil {
				for t := n; t < seq; t++ {
					for k := 0; k < hidden; k++ {
						storeF(*out[0], yAt(t, d, b, k), 0)
					}
				}
			}
			for k := 0; k < hidden; k++ {
				if s := out[1]; s != nil {
					storeF(*s, stateAt(s, d, b, k), h[k])
				}
				if s := out[2]; s != nil {
					storeF(*s, stateAt(s, d, b, k), cell[k])
				}
			}
		}
	}
	return nil
}
