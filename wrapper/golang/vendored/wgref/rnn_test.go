package wgref

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// rnnCase is one RNN, GRU or LSTM call: its sizes, attributes and which
// optional operands it has.
type rnnCase struct {
	gates, seq, batch, input, hidden int
	direction                        string
	layout                           int
	clip                             float64
	lbr, inputForget                 bool
	bias, seqLens, initH, initC      bool
	peep                             bool
	acts                             []string  // per direction; nil: ONNX's defaults
	alpha, beta                      []float64 // the activations' parameters, one per activation; nil: their defaults
	dtype                            wgrt.DType
}

func (c rnnCase) String() string {
	return fmt.Sprintf("gates %d seq %d batch %d input %d hidden %d %s layout %d clip %g lbr %v input_forget %v bias %v lens %v h0 %v c0 %v P %v acts %v %s",
		c.gates, c.seq, c.batch, c.input, c.hidden, c.direction, c.layout, c.clip, c.lbr, c.inputForget, c.bias, c.seqLens, c.initH, c.initC, c.peep, c.acts, c.dtype)
}

func (c rnnCase) dirs() int {
	if c.direction == "bidirectional" {
		return 2
	}
	return 1
}

// rnnOperands are a case's operands in layout 0, as float64 (what the
// naive reference reads), and sequence lengths.
type rnnOperands struct {
	x, w, r, b, h0, c0, p []float64
	lens                  []int
}

func rnnRandom(rng *rand.Rand, n int, scale float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		// float32 values, so that both sides start from the same numbers.
		out[i] = float64(float32((rng.Float64()*2 - 1) * scale))
	}
	return out
}

func (c rnnCase) operands(rng *rand.Rand) rnnOperands {
	d, g, h := c.dirs(), c.gates*c.hidden, c.hidden
	o := rnnOperands{
		x: rnnRandom(rng, c.seq*c.batch*c.input, 1),
		w: rnnRandom(rng, d*g*c.input, 0.6),
		r: rnnRandom(rng, d*g*h, 0.6),
	}
	if c.bias {
		o.b = rnnRandom(rng, d*2*g, 0.5)
	}
	if c.initH {
		o.h0 = rnnRandom(rng, d*c.batch*h, 1)
	}
	if c.initC {
		o.c0 = rnnRandom(rng, d*c.batch*h, 1)
	}
	if c.peep {
		o.p = rnnRandom(rng, d*3*h, 0.5)
	}
	if c.seqLens {
		o.lens = make([]int, c.batch)
		for b := range o.lens {
			o.lens[b] = rng.Intn(c.seq + 1)
		}
		o.lens[0] = c.seq // the longest entry sets the number of steps
		if c.batch > 2 {
			o.lens[2] = 0
		}
	}
	return o
}

// naiveActivation is ONNX's definition of the activations the tests use,
// with their parameters alpha and beta when given (NaN: the default).
func naiveActivation(name string, alpha, beta, x float64) float64 {
	or := func(v, def float64) float64 {
		if math.IsNaN(v) {
			return def
		}
		return v
	}
	switch name {
	case "Sigmoid":
		return 1 / (1 + math.Exp(-x))
	case "Tanh":
		return math.Tanh(x)
	case "Relu":
		return math.Max(0, x)
	case "HardSigmoid":
		return math.Max(0, math.Min(1, or(alpha, 0.2)*x+or(beta, 0.5)))
	case "LeakyRelu":
		if x < 0 {
			return or(alpha, 0.01) * x
		}
		return x
	}
	panic("no activation " + name)
}

// naiveRecurrent is the reference: ONNX's equations for RNN, GRU and LSTM
// written out one element at a time in float64, layout 0. Y is
// [seq, dirs, batch, hidden], Y_h and Y_c [dirs, batch, hidden].
func naiveRecurrent(c rnnCase, o rnnOperands) (y, yh, yc []float64) {
	D, S, B, I, H, G := c.dirs(), c.seq, c.batch, c.input, c.hidden, c.gates*c.hidden
	y = make([]float64, S*D*B*H)
	yh = make([]float64, D*B*H)
	yc = make([]float64, D*B*H)
	defaults := map[int][]string{1: {"Tanh"}, 3: {"Sigmoid", "Tanh"}, 4: {"Sigmoid", "Tanh", "Tanh"}}[c.gates]
	clip := func(v float64) float64 {
		if c.clip > 0 {
			return math.Max(-c.clip, math.Min(c.clip, v))
		}
		return v
	}
	for d := 0; d < D; d++ {
		acts := defaults
		if c.acts != nil {
			acts = c.acts[d*len(defaults) : (d+1)*len(defaults)]
		}
		param := func(ps []float64, k int) float64 {
			if ps == nil {
				return math.NaN()
			}
			return ps[d*len(defaults)+k]
		}
		act := func(k int, v float64) float64 {
			return naiveActivation(acts[k], param(c.alpha, k), param(c.beta, k), clip(v))
		}
		// xw is X[t, b]·W[d, q] + Wb[d, q]; hr is v·R[d, q] + Rb[d, q].
		xw := func(t, b, q int) float64 {
			s := 0.0
			for i := 0; i < I; i++ {
				s += o.x[(t*B+b)*I+i] * o.w[(d*G+q)*I+i]
			}
			if o.b != nil {
				s += o.b[d*2*G+q]
			}
			return s
		}
		hr := func(v []float64, q int) float64 {
			s := 0.0
			for j := 0; j < H; j++ {
				s += v[j] * o.r[(d*G+q)*H+j]
			}
			if o.b != nil {
				s += o.b[d*2*G+G+q]
			}
			return s
		}
		peep := func(k, j int) float64 {
			if o.p == nil {
				return 0
			}
			return o.p[d*3*H+k*H+j]
		}
		for b := 0; b < B; b++ {
			n := S
			if o.lens != nil {
				n = o.lens[b]
			}
			hPrev, cPrev := make([]float64, H), make([]float64, H)
			if o.h0 != nil {
				copy(hPrev, o.h0[(d*B+b)*H:])
			}
			if o.c0 != nil && c.gates == 4 {
				copy(cPrev, o.c0[(d*B+b)*H:])
			}
			for s := 0; s < n; s++ {
				t := s
				if c.direction == "reverse" || d == 1 {
					t = n - 1 - s
				}
				hNew, cNew := make([]float64, H), make([]float64, H)
				switch c.gates {
				case 1:
					for j := 0; j < H; j++ {
						hNew[j] = act(0, xw(t, b, j)+hr(hPrev, j))
					}
				case 3:
					z, r := make([]float64, H), make([]float64, H)
					for j := 0; j < H; j++ {
						z[j] = act(0, xw(t, b, j)+hr(hPrev, j))
						r[j] = act(0, xw(t, b, H+j)+hr(hPrev, H+j))
					}
					rh := make([]float64, H)
					for j := 0; j < H; j++ {
						rh[j] = r[j] * hPrev[j]
					}
					for j := 0; j < H; j++ {
						var cand float64
						if c.lbr {
							cand = act(1, xw(t, b, 2*H+j)+r[j]*hr(hPrev, 2*H+j))
						} else {
							cand = act(1, xw(t, b, 2*H+j)+hr(rh, 2*H+j))
						}
						hNew[j] = (1-z[j])*cand + z[j]*hPrev[j]
					}
				case 4:
					for j := 0; j < H; j++ {
						i := act(0, xw(t, b, j)+hr(hPrev, j)+peep(0, j)*cPrev[j])
						f := 1 - i
						if !c.inputForget {
							f = act(0, xw(t, b, 2*H+j)+hr(hPrev, 2*H+j)+peep(2, j)*cPrev[j])
						}
						cc := act(1, xw(t, b, 3*H+j)+hr(hPrev, 3*H+j))
						cNew[j] = f*cPrev[j] + i*cc
						o := act(0, xw(t, b, H+j)+hr(hPrev, H+j)+peep(1, j)*cNew[j])
						hNew[j] = o * naiveActivation(acts[2], param(c.alpha, 2), param(c.beta, 2), cNew[j])
					}
				}
				copy(y[((t*D+d)*B+b)*H:], hNew)
				hPrev, cPrev = hNew, cNew
			}
			copy(yh[(d*B+b)*H:], hPrev)
			copy(yc[(d*B+b)*H:], cPrev)
		}
	}
	return y, yh, yc
}

// rnnTensor is data (layout 0, float64) as a tensor of dtype with shape,
// its first two dimensions swapped when swap (layout 1).
func rnnTensor(dtype wgrt.DType, data []float64, swap bool, shape ...int) wgrt.Tensor {
	out := shape
	if swap {
		out = append([]int{shape[1], shape[0]}, shape[2:]...)
	}
	t := wgrt.New(dtype, out...)
	inner := 1
	for _, s := range shape[2:] {
		inner *= s
	}
	for i := 0; i < shape[0]; i++ {
		for j := 0; j < shape[1]; j++ {
			for k := 0; k < inner; k++ {
				src := (i*shape[1]+j)*inner + k
				dst := src
				if swap {
					dst = (j*shape[0]+i)*inner + k
				}
				storeF(t, dst, data[src])
			}
		}
	}
	return t
}

// rnnValues is t back in layout 0 as float64 (rnnTensor's inverse).
func rnnValues(t wgrt.Tensor, swap bool, shape ...int) []float64 {
	inner := 1
	for _, s := range shape[2:] {
		inner *= s
	}
	out := make([]float64, shape[0]*shape[1]*inner)
	for i := 0; i < shape[0]; i++ {
		for j := 0; j < shape[1]; j++ {
			for k := 0; k < inner; k++ {
				dst := (i*shape[1]+j)*inner + k
				src := dst
				if swap {
					src = (j*shape[0]+i)*inner + k
				}
				out[dst] = loadF(t, src)
			}
		}
	}
	return out
}

// call builds the kernel call of case c on operands o, with outputs Y,
// Y_h and (LSTM) Y_c and the scratch the plan would give it.
func (c rnnCase) call(o rnnOperands) *wgrt.Call {
	D, S, B, H, G := c.dirs(), c.seq, c.batch, c.hidden, c.gates*c.hidden
	swap := c.layout == 1
	slots := 6
	if c.gates == 4 {
		slots = 8
	}
	present := make([]int, slots)
	var ins []wgrt.Tensor
	add := func(slot int, t wgrt.Tensor) {
		present[slot] = 1
		ins = append(ins, t)
	}
	add(slotX, rnnTensor(c.dtype, o.x, swap, S, B, c.input))
	add(slotW, rnnTensor(c.dtype, o.w, false, D, G, c.input))
	add(slotR, rnnTensor(c.dtype, o.r, false, D, G, H))
	if o.b != nil {
		add(slotB, rnnTensor(c.dtype, o.b, false, D, 2*G))
	}
	if o.lens != nil {
		lens := make([]int32, B)
		for b, n := range o.lens {
			lens[b] = int32(n)
		}
		add(slotSeqLens, wgrt.View(lens, B))
	}
	if o.h0 != nil {
		add(slotInitialH, rnnTensor(c.dtype, o.h0, swap, D, B, H))
	}
	if o.c0 != nil {
		add(slotInitialC, rnnTensor(c.dtype, o.c0, swap, D, B, H))
	}
	if o.p != nil {
		add(slotP, rnnTensor(c.dtype, o.p, false, D, 3*H))
	}
	yShape := []int{S, D, B, H}
	stateShape := []int{D, B, H}
	if swap {
		yShape = []int{B, S, D, H}
		stateShape = []int{B, D, H}
	}
	outs := []wgrt.Tensor{wgrt.New(c.dtype, yShape...), wgrt.New(c.dtype, stateShape...)}
	outPresent := []int{1, 1, 0}
	if c.gates == 4 {
		outs = append(outs, wgrt.New(c.dtype, stateShape...))
		outPresent[2] = 1
	}
	// Outputs start as garbage: the kernel writes every element (zeros in
	// Y past a sequence's end).
	for _, out := range outs {
		for i := 0; i < out.NumElements(); i++ {
			storeF(out, i, 7)
		}
	}
	acts := c.acts
	if acts == nil {
		defaults := map[int][]string{1: {"Tanh"}, 3: {"Sigmoid", "Tanh"}, 4: {"Sigmoid", "Tanh", "Tanh"}}[c.gates]
		for range D {
			acts = append(acts, defaults...)
		}
	}
	attrs := []wgrt.Attr{
		{Name: "direction", Kind: wgrt.AttrString, Str: c.direction},
		intAttr("hidden_size", H),
		intAttr("layout", c.layout),
		{Name: "activations", Kind: wgrt.AttrString, Str: strings.Join(acts, ",")},
		{Name: "activation_alpha", Kind: wgrt.AttrString, Str: rnnFloatsText(c.alpha)},
		{Name: "activation_beta", Kind: wgrt.AttrString, Str: rnnFloatsText(c.beta)},
		{Name: "clip", Kind: wgrt.AttrFloat, Float: c.clip},
		intsAttr("inputs", present...),
		intsAttr("outputs", outPresent...),
	}
	if c.gates == 3 {
		attrs = append(attrs, intAttr("linear_before_reset", map[bool]int{false: 0, true: 1}[c.lbr]))
	}
	if c.gates == 4 {
		attrs = append(attrs, intAttr("input_forget", map[bool]int{false: 0, true: 1}[c.inputForget]))
	}
	scratch := 8 * recurrentGeneralFloats(c.gates, H)
	if c.dtype == wgrt.F32 {
		scratch = 4 * recurrentF32Floats(S, B, c.input, H, c.gates)
	}
	kernel := map[int]string{1: "RNN", 3: "GRU", 4: "LSTM"}[c.gates]
	return &wgrt.Call{Kernel: kernel, Inputs: ins, Outputs: outs, Attrs: attrs, Scratch: make([]byte, scratch)}
}

// The kernels against the naive reference on odd sizes (hidden sizes
// whose gates·hidden is no multiple of sgemm's 16 columns), every
// direction, both layouts, sequence_lens (an entry of length 0 among
// them), clip, linear_before_reset both ways, initial states, peepholes,
// input_forget, other activations; float32 step by step (where the
// layer qualifies, given no scratch) and through the windowed GEMMs, and
// float64 (the general path). Each call allocates nothing given its
// scratch.
func TestRecurrentMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewSource(34))
	var cases []rnnCase
	for _, gates := range []int{1, 3, 4} {
		for _, dir := range []string{"forward", "reverse", "bidirectional"} {
			for _, lbr := range []bool{false, true} {
				if lbr && gates != 3 {
					continue
				}
				cases = append(cases,
					rnnCase{gates: gates, seq: 7, batch: 3, input: 5, hidden: 13, direction: dir, lbr: lbr, bias: true},
					rnnCase{gates: gates, seq: 6, batch: 4, input: 9, hidden: 17, direction: dir, lbr: lbr, bias: true, seqLens: true, initH: true, initC: gates == 4, peep: gates == 4, clip: 0.6},
					rnnCase{gates: gates, seq: 5, batch: 3, input: 4, hidden: 6, direction: dir, lbr: lbr, layout: 1, seqLens: true, initH: true},
					rnnCase{gates: gates, seq: 9, batch: 1, input: 300, hidden: 40, direction: dir, lbr: lbr, bias: true},
					rnnCase{gates: gates, seq: 1, batch: 5, input: 3, hidden: 2, direction: dir, lbr: lbr, bias: true, initH: true},
					// Longer than projectSteps: the input projections a
					// block of steps at a time, the batch entries' steps
					// at different times when reversed.
					rnnCase{gates: gates, seq: 150, batch: 5, input: 4, hidden: 5, direction: dir, lbr: lbr, bias: true, seqLens: true, initH: true},
					rnnCase{gates: gates, seq: 130, batch: 3, input: 3, hidden: 4, direction: dir, lbr: lbr, layout: 1, seqLens: true},
					rnnCase{gates: gates, seq: 70, batch: 1, input: 6, hidden: 3, direction: dir, lbr: lbr, bias: true},
					// More units than a step finishes at once (stepwiseUnits),
					// the last block partial.
					rnnCase{gates: gates, seq: 4, batch: 3, input: 20, hidden: 70, direction: dir, lbr: lbr, bias: true, seqLens: true, initH: true, initC: gates == 4, peep: gates == 4},
				)
			}
		}
	}
	cases = append(cases,
		rnnCase{gates: 4, seq: 5, batch: 2, input: 3, hidden: 7, direction: "forward", bias: true, inputForget: true, peep: true, initC: true},
		rnnCase{gates: 4, seq: 4, batch: 3, input: 5, hidden: 9, direction: "bidirectional", bias: true, acts: []string{"HardSigmoid", "Relu", "Tanh", "Sigmoid", "LeakyRelu", "Relu"}},
		rnnCase{gates: 3, seq: 4, batch: 2, input: 5, hidden: 9, direction: "forward", bias: true, acts: []string{"Relu", "HardSigmoid"}, clip: 2},
		rnnCase{gates: 3, seq: 5, batch: 3, input: 4, hidden: 7, direction: "forward", bias: true, acts: []string{"LeakyRelu", "HardSigmoid"}, alpha: []float64{0.3, 0.25}, beta: []float64{0, 0.4}},
		rnnCase{gates: 1, seq: 4, batch: 2, input: 5, hidden: 9, direction: "reverse", bias: true, acts: []string{"Relu"}},
	)
	defer func(was int) { stepwiseMaxWeightBytes = was }(stepwiseMaxWeightBytes)
	full := stepwiseMaxWeightBytes
	for _, c := range cases {
		for _, path := range []string{"f32 stepwise", "f32 windowed", "f64"} {
			dtype := wgrt.F32
			if path == "f64" {
				dtype = wgrt.F64
			}
			c.dtype = dtype
			o := c.operands(rng)
			stepwiseMaxWeightBytes = full
			if path == "f32 windowed" {
				stepwiseMaxWeightBytes = 0
			}
			// Unprepared, and with W packed once by Prepare (float32: each
			// direction's input projection's B).
			for _, prepare := range []bool{false, true} {
				call := c.call(o)
				stepwise := dtype == wgrt.F32 && StepwiseRecurrent(c.gates, c.hidden, c.input, c.lbr, true, c.gates == 4)
				if prepare {
					pk, _, err := Prepare(call)
					require.NoError(t, err, "%v", c)
					require.Equal(t, dtype == wgrt.F32 && !stepwise, pk != nil, "%v prepared on the %s path", c, path)
					call.Prepared = pk
				}
				if stepwise {
					call.Scratch = nil // it needs none
				}
				require.NoError(t, Call(call), "%v prepared %v", c, prepare)
				y, yh, yc := naiveRecurrent(c, o)
				swap := c.layout == 1
				D, S, B, H := c.dirs(), c.seq, c.batch, c.hidden
				// Y as [seq, dirs·batch·hidden] back in layout 0: for layout 1
				// Y is [batch, seq, dirs, hidden].
				var gotY []float64
				if swap {
					gotY = rnnValues(call.Outputs[0], true, S, B, D*H)
					// [seq, batch, dirs, hidden] → [seq, dirs, batch, hidden]
					reordered := make([]float64, len(gotY))
					for s := 0; s < S; s++ {
						for b := 0; b < B; b++ {
							for d := 0; d < D; d++ {
								copy(reordered[((s*D+d)*B+b)*H:][:H], gotY[((s*B+b)*D+d)*H:][:H])
							}
						}
					}
					gotY = reordered
				} else {
					gotY = rnnValues(call.Outputs[0], false, S, D, B*H)
				}
				assertRNNClose(t, y, gotY, "Y of %v", c)
				assertRNNClose(t, yh, rnnValues(call.Outputs[1], swap, D, B, H), "Y_h of %v", c)
				if c.gates == 4 {
					assertRNNClose(t, yc, rnnValues(call.Outputs[2], swap, D, B, H), "Y_c of %v", c)
				}
				assert.Zero(t, testing.AllocsPerRun(3, func() { _ = Call(call) }), "%v allocates", c)
			}
		}
	}
}

// rnnFloatsText is the importer's spelling of a float list attribute.
func rnnFloatsText(fs []float64) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = fmt.Sprint(f)
	}
	return strings.Join(parts, ",")
}

func assertRNNClose(t *testing.T, want, got []float64, format string, args ...any) {
	t.Helper()
	require.Len(t, got, len(want), append([]any{format}, args...)...)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 2e-5*(1+math.Abs(want[i])) {
			assert.Failf(t, "values differ", "at %d: got %g, want %g: "+format, append([]any{i, got[i], want[i]}, args...)...)
			return
		}
	}
}

// A kernel given less scratch than the rule says, or operands of the
// wrong shape, fails with an error naming the problem instead of
// indexing out of range.
func TestRecurrentErrors(t *testing.T) {
	defer func(was int) { stepwiseMaxWeightBytes = was }(stepwiseMaxWeightBytes)
	stepwiseMaxWeightBytes = 0 // the windowed path, which takes scratch
	rng := rand.New(rand.NewSource(1))
	c := rnnCase{gates: 4, seq: 3, batch: 2, input: 4, hidden: 5, direction: "forward", bias: true, dtype: wgrt.F32}
	call := c.call(c.operands(rng))
	call.Scratch = call.Scratch[:len(call.Scratch)-4]
	assert.ErrorContains(t, Call(call), "scratch")

	call = c.call(c.operands(rng))
	call.Inputs[2] = wgrt.New(wgrt.F32, 1, 20, 4) // R of the input size
	assert.ErrorContains(t, Call(call), "R has shape [1 20 4], want [1 20 5]")

	call = c.call(c.operands(rng))
	call.Outputs[1] = wgrt.New(wgrt.F32, 1, 3, 5)
	assert.ErrorContains(t, Call(call), "Y_h has shape [1 3 5], want [1 2 5]")

	c.seqLens = true
	o := c.operands(rng)
	o.lens[1] = 4
	assert.ErrorContains(t, Call(c.call(o)), "sequence length 4 for batch entry 1 is outside [0, 3]")
}

// BenchmarkRecurrent times one bidirectional layer of DeepSpeech's LSTM
// stack (100 steps, batch 1, input 1024, hidden 512) and one layer of a
// GRU language model (32 steps, hidden 512), float32.
func BenchmarkRecurrent(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	for _, c := range []rnnCase{
		{gates: 4, seq: 100, batch: 1, input: 1024, hidden: 512, direction: "bidirectional", bias: true, dtype: wgrt.F32},
		{gates: 3, seq: 32, batch: 1, input: 512, hidden: 512, direction: "forward", bias: true, lbr: true, dtype: wgrt.F32},
	} {
		call := c.call(c.operands(rng))
		b.Run(fmt.Sprintf("%s-%d", call.Kernel, c.hidden), func(b *testing.B) {
			for b.Loop() {
				if err := Call(call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The step-by-step rule holds at its limit and refuses sizes whose weight
// bytes would overflow the product.
func TestStepwiseRecurrentRule(t *testing.T) {
	assert.True(t, StepwiseRecurrent(4, 128, 0, false, true, true), "16·128² bytes is the limit")
	assert.False(t, StepwiseRecurrent(4, 129, 0, false, true, true))
	assert.False(t, StepwiseRecurrent(4, 64, 32, false, true, false), "an LSTM without Y_c")
	assert.False(t, StepwiseRecurrent(3, 64, 32, false, true, false), "a GRU resetting before the product")
	assert.False(t, StepwiseRecurrent(1, 64, 32, false, false, false), "no Y")
	assert.False(t, StepwiseRecurrent(4, 1<<40, 1<<40, false, true, true), "sizes that overflow")
	assert.False(t, StepwiseRecurrent(1, 1, 1<<62, false, true, true), "an input that overflows")
}
