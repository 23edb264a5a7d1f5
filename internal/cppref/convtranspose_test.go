package cppref

import (
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// ConvTranspose (templates/wgref/conv_transpose.cc's float64 scatter
// with the plan's scratch, conv.cc's gather without it) against Go's
// kernel on each instruction set's path (WGREF_ISA) at 1 and 2 threads:
// 1-D to 3-D, odd sizes, strides 1 to 4, pads, output paddings (the
// output's extra size), dilations, groups, with and without bias, a
// strided input view, into a guarded output view. Both sides add the
// same products in the same order, so on amd64 (where neither fuses a
// multiply-add) they agree bit for bit.

// transposeCase is a ConvTranspose: convCase's fields (m the output
// channels) and the output padding of each dimension.
type transposeCase struct {
	convCase
	outPad []int
	bias   bool
}

// outShape is the output's spatial sizes (some may be 0 or less).
func (tc transposeCase) outShape() []int {
	r := len(tc.in)
	out := make([]int, r)
	for d := 0; d < r; d++ {
		out[d] = (tc.in[d]-1)*tc.strides[d] - tc.pads[d] - tc.pads[r+d] + (tc.kernel[d]-1)*tc.dil[d] + 1 + tc.outPad[d]
	}
	return out
}

func (tc transposeCase) String() string {
	return fmt.Sprintf("%v op%v bias %v", tc.convCase, tc.outPad, tc.bias)
}

func randomTransposeCase(r *rand.Rand, rank int) transposeCase {
	tc := transposeCase{convCase: convCase{n: 1 + r.Intn(2), group: 1 + r.Intn(2)}, bias: r.Intn(2) == 0}
	tc.c = tc.group * (1 + r.Intn(3))
	tc.m = tc.group * (1 + r.Intn(3))
	for d := 0; d < rank; d++ {
		size := 1 + r.Intn(12)
		if rank == 3 {
			size = 1 + r.Intn(5)
		}
		tc.in = append(tc.in, size)
		tc.kernel = append(tc.kernel, 1+r.Intn(5))
		tc.strides = append(tc.strides, 1+r.Intn(4))
		tc.dil = append(tc.dil, 1+r.Intn(3))
		tc.outPad = append(tc.outPad, r.Intn(tc.strides[d]))
	}
	for d := 0; d < 2*rank; d++ {
		tc.pads = append(tc.pads, r.Intn(3))
	}
	return tc
}

// transposeCases are random cases and the shapes models use: Conv-TasNet's
// decoder (16 taps, stride 8, pad 8), UNet's 2x2 stride 2 upsampling,
// 4x4 stride 2 pad 1 (DCGAN's), grouped, output-padded and dilated, and
// one big enough to be shared among threads.
func transposeCases(r *rand.Rand) []transposeCase {
	cc := func(n, c, m, g int, in, k, s, d, p []int) convCase {
		return convCase{n: n, c: c, m: m, group: g, in: in, kernel: k, strides: s, dil: d, pads: p}
	}
	cases := []transposeCase{
		{cc(2, 33, 1, 1, []int{101}, []int{16}, []int{8}, []int{1}, []int{8, 8}), []int{0}, false},
		{cc(1, 7, 3, 1, []int{45}, []int{16}, []int{8}, []int{1}, []int{8, 8}), []int{5}, true},
		{cc(1, 5, 2, 1, []int{23}, []int{21}, []int{3}, []int{1}, []int{4, 2}), []int{2}, true},
		{cc(1, 4, 4, 2, []int{19}, []int{7}, []int{4}, []int{2}, []int{3, 1}), []int{3}, false},
		{cc(1, 8, 4, 1, []int{5, 7}, []int{2, 2}, []int{2, 2}, []int{1, 1}, []int{0, 0, 0, 0}), []int{0, 0}, true},
		{cc(2, 3, 5, 1, []int{4, 3}, []int{2, 2}, []int{2, 2}, []int{1, 1}, []int{0, 0, 0, 0}), []int{1, 1}, false},
		{cc(1, 6, 4, 1, []int{5, 6}, []int{4, 4}, []int{2, 2}, []int{1, 1}, []int{1, 1, 1, 1}), []int{0, 0}, true},
		{cc(1, 6, 4, 2, []int{5, 6}, []int{4, 4}, []int{2, 2}, []int{1, 1}, []int{1, 1, 1, 1}), []int{1, 0}, true},
		{cc(1, 4, 6, 2, []int{7, 5}, []int{4, 4}, []int{2, 2}, []int{2, 2}, []int{1, 1, 1, 1}), []int{1, 1}, false},
		{cc(1, 3, 3, 1, []int{6, 9}, []int{3, 5}, []int{3, 1}, []int{2, 1}, []int{2, 0, 1, 3}), []int{2, 0}, true},
		{cc(2, 4, 6, 1, []int{33, 35}, []int{4, 4}, []int{2, 2}, []int{1, 1}, []int{1, 1, 1, 1}), []int{0, 0}, true},
		{cc(1, 2, 2, 1, []int{3, 4, 5}, []int{2, 3, 2}, []int{2, 1, 3}, []int{1, 2, 1}, []int{0, 1, 0, 1, 0, 1}), []int{1, 0, 2}, true},
	}
	for i := 0; i < 90; i++ {
		cases = append(cases, randomTransposeCase(r, 1+i%3))
	}
	return cases
}

// transposeCall is tc's ConvTranspose, its input a view of channels [1,
// 1+c) of a bigger tensor, its output guarded (guardedOutput), with the
// plan's scratch when scratch.
func transposeCall(r *rand.Rand, tc transposeCase, out []int, scratch bool) (*wgrt.Call, wgrt.Tensor) {
	big := randomF32(r, append([]int{tc.n, tc.c + 2}, tc.in...)...)
	x := big
	x.Shape = append([]int{tc.n, tc.c}, tc.in...)
	x.Data = big.Data[4*big.Strides[1]:]
	w := randomF32(r, append([]int{tc.c, tc.m / tc.group}, tc.kernel...)...)
	y, whole := guardedOutput(append([]int{tc.n, tc.m}, out...)...)
	inputs := []wgrt.Tensor{x, w}
	if tc.bias {
		inputs = append(inputs, randomF32(r, tc.m))
	}
	call := &wgrt.Call{Kernel: "ConvTranspose", Outputs: []wgrt.Tensor{y}, Inputs: inputs, Attrs: tc.attrs()}
	if scratch {
		call.Scratch = make([]byte, 8*y.NumElements())
	}
	return call, whole
}

// runTransposeGuarded is runGuarded requiring the same bits on amd64.
func runTransposeGuarded(t *testing.T, srv *Server, call *wgrt.Call, whole wgrt.Tensor, c int, what string) {
	t.Helper()
	goCall := *call
	goCall.Outputs = cloneOutputs(call.Outputs)
	if call.Scratch != nil {
		goCall.Scratch = make([]byte, len(call.Scratch))
	}
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
		gv, cv := getF32(g, off), getF32(o, off)
		if runtime.GOARCH == "amd64" {
			require.Equal(t, math.Float32bits(gv), math.Float32bits(cv), "%s at %v: Go %v, C++ %v", what, idx, gv, cv)
		} else {
			require.LessOrEqual(t, math.Abs(float64(gv-cv)), 1e-5+1e-5*math.Abs(float64(gv)), "%s at %v: Go %v, C++ %v", what, idx, gv, cv)
		}
	}
}

func TestConvTransposeScatterMatchesGo(t *testing.T) {
	for _, isa := range isaPaths {
		t.Run(isa, func(t *testing.T) {
			t.Setenv("WGREF_ISA", isa)
			srv := startServer(t)
			r := rand.New(rand.NewSource(41))
			ran := 0
			for _, tc := range transposeCases(r) {
				out := tc.outShape()
				if min(out[0], out[len(out)-1]) <= 0 || (len(out) > 2 && out[1] <= 0) {
					continue
				}
				for _, scratch := range []bool{true, false} {
					call, whole := transposeCall(r, tc, out, scratch)
					for _, threads := range []int{1, 2} {
						call.Threads = threads
						runTransposeGuarded(t, srv, call, whole, tc.m, fmt.Sprintf("%s threads %d scratch %v %v", isa, threads, scratch, tc))
						ran++
					}
				}
			}
			require.Greater(t, ran, 300)
		})
	}
}
