package wgref

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Stride-2 convolutions with taps read in place (conv_stem.go) against
// the naive loop, on the AVX2 and AVX-512 paths: 3x3, 7x7 and 1x1 kernels, odd and even widths,
// asymmetric pads, output channels off the tile's rows and output rows
// off its columns, fused bias and Relu, a batch; filters packed once or
// per call; the same bits with three threads; no allocation per call.
// Where im2col's product runs every column in whole tiles or through the
// full kernel (a plane of n positions, n mod 16 not in 1..4), the same
// bits as im2col too.
func TestStemConvMatchesNaive(t *testing.T) {
	if !stemTapsVector {
		t.Skip("no AVX2 on this CPU: convStem is not taken")
	}
	cases := []kernelRowCase{
		{name: "3x3 pad 1, 16 outputs", n: 1, c: 3, m: 16, h: 40, w: 38, kh: 3, kw: 3, pads: [4]int{1, 1, 1, 1}, bias: true, relu: true},
		{name: "7x7 no pad, odd width, 13 outputs", n: 1, c: 3, m: 13, h: 31, w: 37, kh: 7, kw: 7},
		{name: "7x7 pad 3, batch of two", n: 2, c: 3, m: 20, h: 34, w: 36, kh: 7, kw: 7, pads: [4]int{3, 3, 3, 3}, bias: true},
		{name: "asymmetric pads, one channel", n: 1, c: 1, m: 7, h: 21, w: 40, kh: 3, kw: 3, pads: [4]int{0, 1, 1, 0}, relu: true},
		{name: "1x1, four channels", n: 1, c: 4, m: 24, h: 28, w: 40, kh: 1, kw: 1, bias: true},
		{name: "large enough to share with the pool", n: 1, c: 3, m: 48, h: 96, w: 96, kh: 3, kw: 3, pads: [4]int{1, 1, 1, 1}, bias: true, relu: true},
	}
	forEachKernelPath(t, func(t *testing.T) {
		if running.id == kernelGo {
			t.Skip("the portable path packs im2col")
		}
		testStemCases(t, cases)
	})
}

func testStemCases(t *testing.T, cases []kernelRowCase) {
	r := rand.New(rand.NewSource(31))
	for _, tc := range cases {
		tc.strides, tc.dil = [2]int{2, 2}, [2]int{1, 1}
		oh, ow := tc.outSize()
		xd, wd := randFloats(r, tc.n*tc.c*tc.h*tc.w), randFloats(r, tc.m*tc.c*tc.kh*tc.kw)
		x, w := wgrt.View(xd, tc.n, tc.c, tc.h, tc.w), wgrt.View(wd, tc.m, tc.c, tc.kh, tc.kw)
		ins := []wgrt.Tensor{x, w}
		kernel := "Conv"
		var bd []float32
		attrs := []wgrt.Attr{intsAttr("kernel_shape", tc.kh, tc.kw), intsAttr("strides", 2, 2),
			intsAttr("pads", tc.pads[0], tc.pads[1], tc.pads[2], tc.pads[3]), intsAttr("dilations", 1, 1), intAttr("group", 1)}
		if tc.bias || tc.relu {
			kernel, bd = "FusedConv", make([]float32, tc.m)
			if tc.bias {
				bd = randFloats(r, tc.m)
			}
			ins = append(ins, wgrt.View(bd, tc.m))
			act := ""
			if tc.relu {
				act = "Relu"
			}
			attrs = append(attrs, actAttrs(act, 0, 0)...)
		}
		want := tc.naive(xd, wd, bd, nil)
		outShape := []int{tc.n, tc.m, oh, ow}
		run := func(prepare bool, threads int) []float32 {
			c := &wgrt.Call{Kernel: kernel, Inputs: ins, Attrs: attrs, Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, outShape...)},
				Scratch: make([]byte, 4*convPackFloats(x.Shape, w.Shape, outShape, 1, false, prepare)), Threads: threads}
			if prepare {
				p, _, err := Prepare(c)
				require.NoError(t, err, tc.name)
				c.Prepared = p
			}
			require.NoError(t, Call(c), tc.name)
			require.Zero(t, testing.AllocsPerRun(3, func() { _ = Call(c) }), "%s: allocations per call, %d threads", tc.name, threads)
			return elems[float32](c.Outputs[0])
		}
		require.True(t, stemFits(x, w, wgrt.New(wgrt.F32, outShape...), convAttrs{kernel: []int{tc.kh, tc.kw}, strides: []int{2, 2}, dilations: []int{1, 1}, pads: tc.pads[:], group: 1}), "%s: convStem does not take it", tc.name)
		got := run(false, 1)
		requireClose(t, want, got, 1e-4, "%s", tc.name)
		require.True(t, slices.Equal(got, run(true, 1)), "%s: prepared filters change bits", tc.name)
		require.True(t, slices.Equal(got, run(true, 3)), "%s: three threads change bits", tc.name)
		if n := oh * ow % 16; n == 0 || n > 4 {
			stemTapsVector = false
			im2col := run(true, 1)
			stemTapsVector = true
			require.True(t, slices.Equal(got, im2col), "%s: not im2col's bits", tc.name)
		}
	}
}
