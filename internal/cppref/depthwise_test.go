package cppref

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Depthwise convolutions (templates/wgref/conv_depthwise*.cc: the 2-D
// channel blocks and the 1-D rows) and broadcast Mul, Add and PRelu (a row
// and one value per row, binary.cc) against the Go kernels on each
// instruction set's path (WGREF_ISA), on odd sizes: channels 1, 3, 17,
// 33, kernels 3x3 and 5x5 and 1-D ones of 3 to 31 taps, strides 1 and 2,
// pads, dilations. Outputs are views into larger tensors filled with a
// guard value, which the C++ kernels must leave as it is.

// dwGuard is what the elements of an output's tensor outside its view
// hold, before and after a call.
const dwGuard = float32(-12345.5)

// guardedOutput is a view of shape [n, c, rest...] at channel 1 of a
// tensor of c+2 channels filled with dwGuard: the view's channels are
// contiguous planes, the channels around it (inside the view's extent,
// between its images) are guards.
func guardedOutput(shape ...int) (view, whole wgrt.Tensor) {
	big := append([]int{shape[0], shape[1] + 2}, shape[2:]...)
	whole = newTensor(wgrt.F32, big...)
	for i := 0; i < whole.NumElements(); i++ {
		putF32(whole, i, dwGuard)
	}
	view = whole
	view.Shape = append([]int(nil), shape...)
	view.Data = whole.Data[4*whole.Strides[1]:]
	return view, whole
}

func putF32(t wgrt.Tensor, i int, v float32) {
	b := math.Float32bits(v)
	t.Data[4*i], t.Data[4*i+1], t.Data[4*i+2], t.Data[4*i+3] = byte(b), byte(b>>8), byte(b>>16), byte(b>>24)
}

func getF32(t wgrt.Tensor, i int) float32 {
	return math.Float32frombits(uint32(t.Data[4*i]) | uint32(t.Data[4*i+1])<<8 | uint32(t.Data[4*i+2])<<16 | uint32(t.Data[4*i+3])<<24)
}

// requireGuards requires every element of whole outside channels [1,
// 1+c) of each image to hold dwGuard.
func requireGuards(t *testing.T, whole wgrt.Tensor, c int, what string) {
	t.Helper()
	plane := whole.Strides[1]
	for i := 0; i < whole.NumElements(); i++ {
		ch := i / plane % whole.Shape[1]
		if ch >= 1 && ch < 1+c {
			continue
		}
		require.Equal(t, dwGuard, getF32(whole, i), "%s: guard at element %d overwritten", what, i)
	}
}

// runGuarded runs call (its output the view of whole) through srv and Go,
// compares them, and checks srv's guards: the C++ answer comes back into
// a copy of whole (the server writes the view's extent).
func runGuarded(t *testing.T, srv *Server, call *wgrt.Call, whole wgrt.Tensor, c int, what string) {
	t.Helper()
	goCall := *call
	goCall.Outputs = cloneOutputs(call.Outputs)
	require.NoError(t, wgref.Call(&goCall), what)
	cWhole := whole
	cWhole.Data = append([]byte(nil), whole.Data...)
	cOut := call.Outputs[0]
	cOut.Data = cWhole.Data[4*whole.Strides[1]:]
	cCall := *call
	cCall.Outputs = []wgrt.Tensor{cOut}
	require.NoError(t, srv.Call(&cCall), what)
	requireGuards(t, cWhole, c, what)
	g, o := goCall.Outputs[0], cCall.Outputs[0]
	idx := make([]int, len(g.Shape))
	for e := 0; e < g.NumElements(); e++ {
		rem, off := e, 0
		for d := len(g.Shape) - 1; d >= 0; d-- {
			idx[d] = rem % g.Shape[d]
			rem /= g.Shape[d]
			off += idx[d] * g.Strides[d]
		}
		gv, cv := float64(getF32(g, off)), float64(getF32(o, off))
		require.LessOrEqual(t, math.Abs(gv-cv), 1e-5+1e-4*math.Abs(gv), "%s at %v: Go %v, C++ %v", what, idx, gv, cv)
	}
}

// depthwiseCall is a depthwise Conv of cc (channel multiplier cc.m/cc.c)
// into a guarded output.
func depthwiseCall(r *rand.Rand, cc convCase, bias bool) (*wgrt.Call, wgrt.Tensor) {
	out := cc.convOut()
	x := randomF32(r, append([]int{cc.n, cc.c}, cc.in...)...)
	w := randomF32(r, append([]int{cc.m, 1}, cc.kernel...)...)
	y, whole := guardedOutput(append([]int{cc.n, cc.m}, out...)...)
	inputs := []wgrt.Tensor{x, w}
	if bias {
		inputs = append(inputs, randomF32(r, cc.m))
	}
	return &wgrt.Call{Kernel: "Conv", Outputs: []wgrt.Tensor{y}, Inputs: inputs, Attrs: cc.attrs()}, whole
}

// depthwiseCases are the 2-D and 1-D cases of the test.
func depthwiseCases(r *rand.Rand) []convCase {
	var cases []convCase
	for _, c := range []int{1, 3, 17, 33} {
		for _, k := range []int{3, 5} {
			for _, s := range []int{1, 2} {
				for _, in := range [][]int{{7, 7}, {13, 11}, {1, 9}, {30, 17}} {
					p := []int{k / 2, k / 2, k / 2, k / 2}
					d := []int{1, 1}
					if r.Intn(3) == 0 {
						p = []int{r.Intn(k + 1), r.Intn(k + 1), r.Intn(k + 1), r.Intn(k + 1)}
					}
					if r.Intn(4) == 0 {
						d = []int{1 + r.Intn(2), 1 + r.Intn(3)}
					}
					cases = append(cases, convCase{n: 1 + r.Intn(2), c: c, m: c, group: c, in: in, kernel: []int{k, k}, strides: []int{s, s}, dil: d, pads: p})
				}
			}
		}
		// 1-D: Conformer's 31 taps, Conv-TasNet's dilated 3, rows shorter
		// than the kernel, longer than one edge piece (4096 floats).
		for _, k := range []int{3, 4, 5, 7, 15, 31} {
			for _, s := range []int{1, 2} {
				for _, t := range []int{1, 5, 37, 70, 200, 1000} {
					d := 1
					switch r.Intn(4) {
					case 0:
						d = 2
					case 1:
						d = 1 + r.Intn(9)
					}
					p := []int{(k - 1) * d / 2, (k - 1) * d / 2}
					if r.Intn(3) == 0 {
						p = []int{r.Intn(k*d + 1), r.Intn(k*d + 1)}
					}
					m := c
					if r.Intn(6) == 0 {
						m = 2 * c
					}
					cases = append(cases, convCase{n: 1 + r.Intn(2), c: c, m: m, group: c, in: []int{t}, kernel: []int{k}, strides: []int{s}, dil: []int{d}, pads: p})
				}
			}
		}
	}
	cases = append(cases,
		convCase{n: 1, c: 3, m: 3, group: 3, in: []int{9000}, kernel: []int{3}, strides: []int{1}, dil: []int{128}, pads: []int{128, 128}},
		convCase{n: 1, c: 2, m: 2, group: 2, in: []int{9001}, kernel: []int{31}, strides: []int{2}, dil: []int{1}, pads: []int{15, 15}},
		convCase{n: 1, c: 2, m: 2, group: 2, in: []int{30}, kernel: []int{3}, strides: []int{1}, dil: []int{3000}, pads: []int{3000, 3000}},
	)
	return cases
}

func TestDepthwiseMatchesGo(t *testing.T) {
	for _, isa := range isaPaths {
		t.Run(isa, func(t *testing.T) {
			t.Setenv("WGREF_ISA", isa)
			srv := startServer(t)
			r := rand.New(rand.NewSource(31))
			for i, cc := range depthwiseCases(r) {
				if slices.Min(cc.convOut()) <= 0 {
					continue
				}
				call, whole := depthwiseCall(r, cc, i%2 == 0)
				for _, threads := range []int{1, 2} {
					call.Threads = threads
					runGuarded(t, srv, call, whole, cc.m, fmt.Sprintf("%s threads %d %v", isa, threads, cc))
				}
			}
		})
	}
}

// broadcastCall is kernel(x, s) (or (s, x) when first) with x [n, c,
// rest...] and s [n, c, 1...], into a guarded output.
func broadcastCall(r *rand.Rand, kernel string, first bool, shape ...int) (*wgrt.Call, wgrt.Tensor) {
	x := randomF32(r, shape...)
	sshape := []int{shape[0], shape[1]}
	for range shape[2:] {
		sshape = append(sshape, 1)
	}
	s := randomF32(r, sshape...)
	y, whole := guardedOutput(shape...)
	inputs := []wgrt.Tensor{x, s}
	if first {
		inputs = []wgrt.Tensor{s, x}
	}
	return &wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{y}, Inputs: inputs}, whole
}

func TestBroadcastRowsMatchGo(t *testing.T) {
	for _, isa := range isaPaths {
		t.Run(isa, func(t *testing.T) {
			t.Setenv("WGREF_ISA", isa)
			srv := startServer(t)
			r := rand.New(rand.NewSource(32))
			for _, kernel := range []string{"Mul", "Add", "PRelu"} {
				for _, c := range []int{1, 3, 17, 33} {
					for _, plane := range [][]int{{1, 1}, {1, 5}, {7, 7}, {3, 11}, {56, 56}, {13}, {250}} {
						shape := append([]int{1 + r.Intn(2), c}, plane...)
						for _, first := range []bool{false, true} {
							if kernel == "PRelu" && first { // the slope broadcasts to x, not x to it
								continue
							}
							call, whole := broadcastCall(r, kernel, first, shape...)
							runGuarded(t, srv, call, whole, c, fmt.Sprintf("%s %s %v first %v", isa, kernel, shape, first))
						}
					}
					// PRelu's slopes of one value and of one a channel
					// (Conv-TasNet's, PyTorch's nn.PReLU), and one an element.
					for _, slope := range [][]int{{1}, {c, 1}, {c, 1, 1}} {
						shape := []int{1 + r.Intn(2), c, 3 + r.Intn(40)}
						if len(slope) == 3 {
							shape = append(shape, 1+r.Intn(9))
						}
						call, whole := broadcastCall(r, "PRelu", false, shape...)
						call.Inputs[1] = randomF32(r, slope...)
						runGuarded(t, srv, call, whole, c, fmt.Sprintf("%s PRelu %v slope %v", isa, shape, slope))
						call.Inputs[1] = randomF32(r, shape...)
						runGuarded(t, srv, call, whole, c, fmt.Sprintf("%s PRelu %v slope %v", isa, shape, shape))
					}
				}
			}
		})
	}
}

// TestDepthwiseTimes prints the kernels' times, Go's and C++'s
// alternating, min and median of 10 calls, for EfficientNet-B0's
// depthwise convolutions and squeeze-and-excitation Mul and the speech
// models' 1-D ones: WRAPGEN_DEPTHWISE_TIMES=1 (and the long tests) runs it.
func TestDepthwiseTimes(t *testing.T) {
	if os.Getenv("WRAPGEN_DEPTHWISE_TIMES") != "1" {
		t.Skip("WRAPGEN_DEPTHWISE_TIMES=1 runs it")
	}
	srv := startServer(t)
	r := rand.New(rand.NewSource(33))
	var calls []*wgrt.Call
	var names []string
	for _, l := range [][4]int{{32, 112, 3, 1}, {96, 112, 3, 2}, {144, 56, 3, 1}, {144, 56, 5, 2}, {240, 28, 5, 1}, {240, 28, 3, 2},
		{480, 14, 3, 1}, {672, 14, 5, 1}, {672, 14, 5, 2}, {1152, 7, 5, 1}, {1152, 7, 3, 1}} {
		c, s, k, st := l[0], l[1], l[2], l[3]
		cc := convCase{n: 2, c: c, m: c, group: c, in: []int{s, s}, kernel: []int{k, k}, strides: []int{st, st}, dil: []int{1, 1},
			pads: []int{k / 2, k / 2, k / 2, k / 2}}
		call, _ := depthwiseCall(r, cc, true)
		calls, names = append(calls, call), append(names, fmt.Sprintf("Conv %dx%d c%d %dx%d s%d", k, k, c, s, s, st))
		o := cc.convOut()
		mul, _ := broadcastCall(r, "Mul", false, 2, c, o[0], o[1])
		calls, names = append(calls, mul), append(names, fmt.Sprintf("Mul [2,%d,%d,%d]*[2,%d,1,1]", c, o[0], o[1], c))
	}
	for _, l := range [][4]int{{144, 200, 31, 1}, {256, 400, 31, 1}, {512, 1000, 3, 1}, {512, 1000, 3, 8}, {512, 1000, 3, 64}} {
		c, n, k, d := l[0], l[1], l[2], l[3]
		cc := convCase{n: 2, c: c, m: c, group: c, in: []int{n}, kernel: []int{k}, strides: []int{1}, dil: []int{d}, pads: []int{(k - 1) * d / 2, (k - 1) * d / 2}}
		call, _ := depthwiseCall(r, cc, d == 1)
		calls, names = append(calls, call), append(names, fmt.Sprintf("Conv k%d d%d c%d [%d]", k, d, c, n))
	}
	prelu, _ := broadcastCall(r, "PRelu", false, 1, 512, 1002)
	prelu.Inputs[1] = randomF32(r, 1)
	calls, names = append(calls, prelu), append(names, "PRelu [1,512,1002] slope [1]")
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	for i, call := range calls {
		call.Threads = 1
		goCall := *call
		goCall.Outputs = cloneOutputs(call.Outputs)
		cCall := *call
		cCall.Outputs = cloneOutputs(call.Outputs)
		var gt, ct []time.Duration
		for rep := 0; rep < 11; rep++ {
			t0 := time.Now()
			require.NoError(t, wgref.Call(&goCall))
			g := time.Since(t0)
			require.NoError(t, srv.Call(&cCall))
			if rep > 0 { // the first warms both
				gt, ct = append(gt, g), append(ct, srv.LastKernelTime())
			}
		}
		slices.Sort(gt)
		slices.Sort(ct)
		t.Logf("%-34s Go %7.3f / %7.3f ms   C++ %7.3f / %7.3f ms (min / median)", names[i], ms(gt[0]), ms(gt[len(gt)/2]), ms(ct[0]), ms(ct[len(ct)/2]))
	}
}
