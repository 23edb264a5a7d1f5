package wgref

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// randView is a random float32 tensor of shape whose rows (last axis) are
// rowGap floats apart beyond their length and whose last axis has stride
// step: a view into a larger buffer, as a Slice's output would be.
func randView(r *rand.Rand, shape []int, rowGap, step int) wgrt.Tensor {
	strides := make([]int, len(shape))
	s := 1
	for d := len(shape) - 1; d >= 0; d-- {
		strides[d] = s
		if d == len(shape)-1 {
			strides[d] = step
			s = shape[d]*step + rowGap
		} else {
			s *= shape[d]
		}
	}
	data := randFloats(r, max(s, 1))
	t := wgrt.View(data, shape...)
	t.Strides = strides
	return t
}

// convOutSize is one spatial size of a convolution's output.
func convOutSize(in, k, s, d, pb, pe int) int { return (in+pb+pe-((k-1)*d+1))/s + 1 }

type convCase struct {
	n, ch, mult int
	in, k       []int // spatial sizes, kernel
	s, d, p     []int // strides, dilations, pads (begins then ends)
	group       int   // 0: depthwise (group = ch)
	bias        bool
	rowGap      int // input rows this many floats apart beyond their length
	step        int // the input's last stride (1: contiguous rows)
}

func (tc convCase) String() string {
	return fmt.Sprintf("n%d c%d x%d in%v k%v s%v d%v p%v g%d bias %v gap %d step %d", tc.n, tc.ch, tc.mult, tc.in, tc.k, tc.s, tc.d, tc.p, tc.group, tc.bias, tc.rowGap, tc.step)
}

// call is the case's Conv call on random operands.
func (tc convCase) call(r *rand.Rand) *wgrt.Call {
	r0 := len(tc.in)
	g := tc.group
	if g == 0 {
		g = tc.ch
	}
	m := tc.ch / g * tc.mult * g
	if tc.group == 0 {
		m = tc.ch * tc.mult
	}
	xShape := append([]int{tc.n, tc.ch}, tc.in...)
	wShape := append([]int{m, tc.ch / g}, tc.k...)
	oShape := []int{tc.n, m}
	for d := range r0 {
		oShape = append(oShape, convOutSize(tc.in[d], tc.k[d], tc.s[d], tc.d[d], tc.p[d], tc.p[r0+d]))
	}
	x := randView(r, xShape, tc.rowGap, tc.step)
	w := wgrt.View(randFloats(r, prod(wShape)), wShape...)
	inputs := []wgrt.Tensor{x, w}
	if tc.bias {
		inputs = append(inputs, wgrt.View(randFloats(r, m), m))
	}
	return &wgrt.Call{Kernel: "Conv", Inputs: inputs, Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, oShape...)}, Attrs: []wgrt.Attr{
		intsAttr("kernel_shape", tc.k...), intsAttr("strides", tc.s...), intsAttr("pads", tc.p...),
		intsAttr("dilations", tc.d...), intAttr("group", g)}}
}

// run convolves with Conv (through Call) and with convDirect, the
// definition, and returns both outputs and the Conv call.
func (tc convCase) run(t testing.TB, r *rand.Rand) (got, want wgrt.Tensor, c *wgrt.Call) {
	c = tc.call(r)
	x, w := c.Inputs[0], c.Inputs[1]
	var bias *wgrt.Tensor
	if len(c.Inputs) == 3 {
		bias = &c.Inputs[2]
	}
	got, want = c.Outputs[0], wgrt.New(wgrt.F32, c.Outputs[0].Shape...)
	g := c.Attrs[4].Int
	convDirect(x, w, bias, want, convAttrs{kernel: tc.k, strides: tc.s, pads: tc.p, dilations: tc.d, group: g})
	require.NoError(t, Call(c), "%v", tc)
	return got, want, c
}

// Depthwise convolutions of every window shape against the definition:
// odd sizes, asymmetric and large pads, strides 1 to 3, dilations,
// channel multipliers, batches, 1-D, rows wider than a vector pass and
// narrower than one vector, and inputs whose rows are apart in memory.
func TestConvDepthwiseMatchesDirect(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	cases := []convCase{
		{n: 1, ch: 3, mult: 1, in: []int{7, 9}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true},
		{n: 2, ch: 5, mult: 1, in: []int{40, 75}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true},
		{n: 2, ch: 4, mult: 1, in: []int{41, 77}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, p: []int{1, 1, 1, 1}},
		{n: 1, ch: 3, mult: 1, in: []int{112, 112}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, p: []int{0, 0, 1, 1}, bias: true},
		{n: 1, ch: 2, mult: 1, in: []int{29, 67}, k: []int{5, 5}, s: []int{1, 1}, d: []int{1, 1}, p: []int{2, 2, 2, 2}, bias: true},
		{n: 1, ch: 2, mult: 1, in: []int{29, 67}, k: []int{5, 5}, s: []int{2, 2}, d: []int{1, 1}, p: []int{2, 2, 2, 2}, bias: true},
		{n: 1, ch: 3, mult: 2, in: []int{17, 50}, k: []int{3, 5}, s: []int{1, 2}, d: []int{2, 3}, p: []int{0, 4, 3, 1}, bias: true},
		{n: 1, ch: 2, mult: 3, in: []int{13, 44}, k: []int{2, 3}, s: []int{3, 3}, d: []int{1, 2}, p: []int{2, 1, 0, 2}},
		{n: 1, ch: 2, mult: 1, in: []int{5, 6}, k: []int{7, 7}, s: []int{1, 1}, d: []int{1, 1}, p: []int{3, 3, 3, 3}, bias: true},
		{n: 1, ch: 2, mult: 1, in: []int{4, 4}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{5, 6, 5, 6}, bias: true},
		{n: 1, ch: 2, mult: 1, in: []int{1, 1}, k: []int{1, 1}, s: []int{1, 1}, d: []int{1, 1}, p: []int{0, 0, 0, 0}},
		{n: 2, ch: 3, mult: 1, in: []int{9, 70}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true, rowGap: 5},
		{n: 2, ch: 3, mult: 1, in: []int{9, 70}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, rowGap: 3},
		{n: 2, ch: 3, mult: 1, in: []int{103}, k: []int{5}, s: []int{1}, d: []int{1}, p: []int{2, 2}, bias: true},
		{n: 1, ch: 3, mult: 2, in: []int{103}, k: []int{3}, s: []int{2}, d: []int{2}, p: []int{1, 0}},
	}
	forEachPlanePath(t, func(path string) {
		for _, tc := range cases {
			tc.step = 1
			got, want, c := tc.run(t, r)
			requireClose(t, want.Float32s(), got.Float32s(), 1e-5, "%s", path+" "+tc.String())
			// The depthwise path takes no scratch, so even called without
			// any it allocates nothing (the generic path would make its own).
			assert.Zero(t, testing.AllocsPerRun(3, func() { _ = Call(c) }), "%s %v allocates", path, tc)
		}
	})
}

// forEachPlanePath runs test with planes copied into padded bands (as
// kernels run), into bands of a few rows, and with every plane's borders
// computed apart.
func forEachPlanePath(t *testing.T, test func(path string)) {
	defer func() { paddedLimit = paddedFloats }()
	for _, limit := range []int{paddedFloats, 300, 0} {
		paddedLimit = limit
		test(fmt.Sprintf("padded limit %d", limit))
	}
}

// Inputs the tap rows cannot read (a last axis that is not contiguous)
// and windows of more taps than a row holds take the generic path, with
// the same results.
func TestConvDepthwiseFallsBack(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for _, tc := range []convCase{
		{n: 1, ch: 3, mult: 1, in: []int{9, 20}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true, step: 2},
		{n: 1, ch: 2, mult: 1, in: []int{12, 12}, k: []int{9, 9}, s: []int{1, 1}, d: []int{1, 1}, p: []int{4, 4, 4, 4}, step: 1},
		{n: 1, ch: 2, mult: 1, in: []int{5, 6, 7}, k: []int{3, 3, 3}, s: []int{1, 1, 1}, d: []int{1, 1, 1}, p: []int{1, 1, 1, 1, 1, 1}, step: 1},
	} {
		got, want, _ := tc.run(t, r)
		requireClose(t, want.Float32s(), got.Float32s(), 1e-5, "%s", tc.String())
	}
}

// Grouped convolutions against the definition: a few channels per group
// (tap rows, in padded bands of every size), and more input or output
// channels per group than tap rows take (the GEMM); 1-D and 2-D, strides,
// dilations, asymmetric pads, batches, rows apart in memory.
func TestConvGroupedMatchesDirect(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	cases := []convCase{
		{n: 2, ch: 8, mult: 1, group: 4, in: []int{11, 13}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true},
		{n: 1, ch: 12, mult: 2, group: 3, in: []int{15, 9}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, p: []int{1, 1, 1, 1}},
		{n: 1, ch: 16, mult: 1, group: 2, in: []int{10, 10}, k: []int{1, 1}, s: []int{2, 2}, d: []int{1, 1}, p: []int{0, 0, 0, 0}, bias: true},
		{n: 1, ch: 16, mult: 1, group: 4, in: []int{30, 41}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true},
		{n: 2, ch: 12, mult: 1, group: 3, in: []int{23, 37}, k: []int{3, 5}, s: []int{2, 1}, d: []int{2, 1}, p: []int{0, 2, 3, 1}, bias: true, rowGap: 4},
		{n: 1, ch: 6, mult: 3, group: 2, in: []int{57}, k: []int{5}, s: []int{2}, d: []int{3}, p: []int{4, 1}, bias: true},
		{n: 1, ch: 36, mult: 1, group: 2, in: []int{9, 9}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true}, // 162 taps
		{n: 1, ch: 4, mult: 20, group: 2, in: []int{9, 9}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}},             // 40 outputs a group
		// Ungrouped, im2col through gathers (output rows shorter than a panel) and through row copies.
		{n: 2, ch: 5, mult: 3, group: 1, in: []int{11, 13}, k: []int{3, 5}, s: []int{1, 2}, d: []int{2, 1}, p: []int{1, 2, 0, 3}, bias: true},
		{n: 1, ch: 3, mult: 2, group: 1, in: []int{7, 7}, k: []int{7, 7}, s: []int{1, 1}, d: []int{1, 1}, p: []int{3, 3, 3, 3}, rowGap: 2},
		{n: 1, ch: 3, mult: 2, group: 1, in: []int{20, 70}, k: []int{3, 3}, s: []int{2, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true},
		{n: 1, ch: 40, mult: 1, group: 1, in: []int{13, 27}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, rowGap: 3},
	}
	defer func(v bool) { planeRowsVector = v }(planeRowsVector)
	vectors := []bool{false}
	if planeRowsVector {
		vectors = append(vectors, true) // AVX-512 row copies and im2col gathers
	}
	forEachPlanePath(t, func(path string) {
		for _, vector := range vectors {
			planeRowsVector = vector
			for _, tc := range cases {
				tc.step = 1
				got, want, c := tc.run(t, r)
				path := fmt.Sprintf("%s vector %v", path, vector)
				requireClose(t, want.Float32s(), got.Float32s(), 1e-4, "%s", path+" "+tc.String())
				x, w := c.Inputs[0].Shape, c.Inputs[1].Shape
				c.Scratch = make([]byte, 4*convPackFloats(x, w, got.Shape, x[1]/w[1], false, false))
				assert.Zero(t, testing.AllocsPerRun(3, func() { _ = Call(c) }), "%s %v allocates", path, tc)
			}
		}
	})
}

// The assembly tap rows (AVX-512 and AVX2 where the CPU has them) equal
// the portable ones and a plain loop on lengths around the vector widths,
// strides 1 and 2 (and 3, which only the portable loop takes), sources
// that end right after the last tap, and NaNs for the maximum.
func TestTapRowMatchesGo(t *testing.T) {
	defer func(wide bool) { tapRowWide = wide }(tapRowWide)
	paths := []bool{false}
	if tapRowWide {
		paths = append(paths, true)
	}
	r := rand.New(rand.NewSource(6))
	for _, wide := range paths {
		tapRowWide = wide
		for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 48, 63, 64, 65, 71, 79, 80, 100, 128, 131} {
			for _, stride := range []int{1, 2, 3} {
				for _, op := range []tapOp{tapSum, tapMax} {
					offs := []int{0, 1, 2, 13, 14, 15, 26, 27, 28}
					wts := randFloats(r, len(offs))
					src := randFloats(r, 28+(n-1)*stride+1) // ends at the last tap
					if op == tapMax {
						src[r.Intn(len(src))] = float32(math.NaN())
					}
					init := float32(0.25)
					if op == tapMax {
						init = negInf32
					}
					got, want, plain := make([]float32, n), make([]float32, n), make([]float32, n)
					tapRow(got, src, offs, wts, stride, init, op)
					tapRowGo(want, src, offs, wts, stride, init, op)
					what := fmt.Sprintf("wide %v n %d stride %d op %d", wide, n, stride, op)
					requireClose(t, want, got, 1e-6, "%s", what)
					if op == tapSum {
						for i := range plain {
							s := init
							for k, o := range offs {
								s += wts[k] * src[o+i*stride]
							}
							plain[i] = s
						}
						requireClose(t, plain, got, 1e-6, "%s (plain loop)", what)
					}
				}
			}
		}
	}
}

// Depthwise convolutions of MobileNet and EfficientNet's shapes (batch 1,
// pads k/2, bias): process CPU time per call and multiply-adds per CPU
// second (wall time is what a shared machine leaves over).
func BenchmarkConvDepthwise(b *testing.B) {
	r := rand.New(rand.NewSource(10))
	for _, s := range []struct{ ch, size, k, stride int }{
		{32, 112, 3, 1}, {96, 112, 3, 2}, {144, 56, 5, 2}, {240, 28, 5, 1}, {480, 14, 3, 1}, {672, 14, 5, 1}, {1152, 7, 5, 1}, {960, 7, 3, 1},
	} {
		p := s.k / 2
		tc := convCase{n: 1, ch: s.ch, mult: 1, in: []int{s.size, s.size}, k: []int{s.k, s.k}, s: []int{s.stride, s.stride}, d: []int{1, 1}, p: []int{p, p, p, p}, bias: true, step: 1}
		b.Run(fmt.Sprintf("c%d_%dx%d_k%d_s%d", s.ch, s.size, s.size, s.k, s.stride), func(b *testing.B) {
			c := tc.call(r)
			benchCPU(b, c, float64(c.Outputs[0].NumElements()*s.k*s.k), "GMAC/cpu-s")
		})
	}
}

// benchCPU runs c b.N times and reports process CPU time per call and
// work units per CPU second.
func benchCPU(b *testing.B, c *wgrt.Call, work float64, unit string) {
	require.NoError(b, Call(c))
	b.ResetTimer()
	cpu0 := processCPU()
	for range b.N {
		_ = Call(c)
	}
	cpu := (processCPU() - cpu0).Seconds()
	b.ReportMetric(cpu/float64(b.N)*1e9, "cpu-ns/op")
	if cpu > 0 {
		b.ReportMetric(work*float64(b.N)/cpu/1e9, unit)
	}
}

// Grouped convolutions of ResNeXt's and RegNet's shapes (batch 1, 3x3,
// pad 1, bias) and a dense one for comparison: process CPU time per call
// and multiply-adds per CPU second.
func BenchmarkConvGrouped(b *testing.B) {
	r := rand.New(rand.NewSource(11))
	for _, s := range []struct{ ch, size, group, stride int }{
		{128, 56, 32, 1}, {256, 28, 32, 1}, {512, 14, 32, 1}, {1024, 7, 32, 1}, {48, 56, 6, 2}, {104, 28, 13, 1}, {208, 14, 26, 1}, {128, 28, 1, 1},
	} {
		tc := convCase{n: 1, ch: s.ch, mult: 1, group: s.group, in: []int{s.size, s.size}, k: []int{3, 3}, s: []int{s.stride, s.stride}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true, step: 1}
		b.Run(fmt.Sprintf("c%d_%dx%d_g%d_s%d", s.ch, s.size, s.size, s.group, s.stride), func(b *testing.B) {
			c := tc.call(r)
			benchCPU(b, c, float64(c.Outputs[0].NumElements()*s.ch/s.group*9), "GMAC/cpu-s")
		})
	}
}

// Depthwise and grouped convolutions shared out over the worker pool equal
// the definition too, and allocate nothing.
func TestConvTapRowsThreaded(t *testing.T) {
	SetThreads(3)
	defer SetThreads(1)
	r := rand.New(rand.NewSource(12))
	for _, tc := range []convCase{
		{n: 2, ch: 5, mult: 2, in: []int{19, 23}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true, step: 1},
		{n: 2, ch: 12, mult: 1, group: 3, in: []int{17, 21}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true, step: 1},
	} {
		got, want, c := tc.run(t, r)
		requireClose(t, want.Float32s(), got.Float32s(), 1e-4, "%s", tc.String())
		assert.Zero(t, testing.AllocsPerRun(3, func() { _ = Call(c) }), "%v allocates with threads", tc)
	}
}

// A network's first convolution (an image's three channels, 3x3, stride
// 2, 16 output channels): process CPU time per call and multiply-adds per
// CPU second.
func BenchmarkConvStem(b *testing.B) {
	r := rand.New(rand.NewSource(13))
	tc := convCase{n: 1, ch: 3, mult: 16, group: 1, in: []int{224, 224}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true, step: 1}
	c := tc.call(r)
	x, w := c.Inputs[0].Shape, c.Inputs[1].Shape
	c.Scratch = make([]byte, 4*convPackFloats(x, w, c.Outputs[0].Shape, 1, false, false))
	benchCPU(b, c, float64(c.Outputs[0].NumElements()*27), "GMAC/cpu-s")
}

// Pointwise (1x1) convolutions of MobileNet's and EfficientNet's shapes
// (batch 1, bias, a Clip as FusedConv's activation): process CPU time per
// call and multiply-adds per CPU second.
func BenchmarkConvPointwise(b *testing.B) {
	r := rand.New(rand.NewSource(14))
	for _, s := range []struct{ in, out, size int }{
		{32, 16, 112}, {16, 96, 112}, {144, 24, 56}, {24, 144, 56}, {192, 32, 28}, {384, 64, 14}, {576, 96, 14}, {960, 160, 7}, {160, 960, 7}, {1152, 192, 7},
	} {
		x, w, bias := randomOf(r, wgrt.F32, 1, s.in, s.size, s.size), randomOf(r, wgrt.F32, s.out, s.in, 1, 1), randomOf(r, wgrt.F32, s.out)
		out := wgrt.New(wgrt.F32, 1, s.out, s.size, s.size)
		c := &wgrt.Call{Kernel: "FusedConv", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x, w, bias},
			Attrs: append([]wgrt.Attr{intsAttr("kernel_shape", 1, 1), intsAttr("strides", 1, 1), intsAttr("pads", 0, 0, 0, 0),
				intsAttr("dilations", 1, 1), intAttr("group", 1)}, actAttrs("Clip", 0, 6)...),
			Scratch: make([]byte, 4*convPackFloats(x.Shape, w.Shape, out.Shape, 1, true, false))}
		b.Run(fmt.Sprintf("c%d_m%d_%dx%d", s.in, s.out, s.size, s.size), func(b *testing.B) {
			benchCPU(b, c, float64(out.NumElements()*s.in), "GMAC/cpu-s")
		})
	}
}
