package cppref

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The block convolutions (templates/wgref/conv_depthwise.cc and
// conv_stem.cc: depthwise ones, and stems of at most four input channels)
// against the Go kernels: odd and model-sized planes, pads 0 to 3,
// strides 1 and 2, dilations, channel counts that leave a block partly
// filled, and the layouts they must take (channel slices of larger
// tensors, padded input rows) or leave (transposed inputs). Run it with
// WGREF_ISA=portable, avx2 and avx512 to cover each instruction set's
// kernels (the server inherits the environment).

// blockConvCall is a Conv call of cc (with a bias when bias), its output
// row-major.
func blockConvCall(r *rand.Rand, cc convCase, bias bool) *wgrt.Call {
	out := cc.convOut()
	x := randomF32(r, append([]int{cc.n, cc.c}, cc.in...)...)
	w := randomF32(r, append([]int{cc.m, cc.c / cc.group}, cc.kernel...)...)
	y := newTensor(wgrt.F32, append([]int{cc.n, cc.m}, out...)...)
	inputs := []wgrt.Tensor{x, w}
	if bias {
		inputs = append(inputs, randomF32(r, cc.m))
	}
	return &wgrt.Call{Kernel: "Conv", Outputs: []wgrt.Tensor{y}, Inputs: inputs, Attrs: cc.attrs()}
}

// runBlockConv compares cc through both kernel sets with each scratch.
func runBlockConv(t *testing.T, srv *Server, r *rand.Rand, cc convCase, bias bool) {
	t.Helper()
	out := cc.convOut()
	for _, d := range out {
		if d <= 0 {
			return
		}
	}
	call := blockConvCall(r, cc, bias)
	for _, c := range withScratch(call, goConvScratch(cc, out)) {
		t.Run(cc.String(), func(t *testing.T) { compareWithGo(t, srv, c, 1e-4, 1e-5) })
	}
}

func TestConvDepthwiseBlocks(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(21))
	sizes := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}
	kernels := []int{3, 5, 7}
	for i := 0; i < 160; i++ {
		k := kernels[i%3]
		s := 1 + i/3%2
		ch := 1 + r.Intn(40)
		cc := convCase{n: 1 + r.Intn(2), c: ch, m: ch, group: ch,
			in:      []int{sizes[r.Intn(len(sizes))], sizes[r.Intn(len(sizes))]},
			kernel:  []int{k, k},
			strides: []int{s, s},
			dil:     []int{1, 1},
			pads:    []int{r.Intn(4), r.Intn(4), r.Intn(4), r.Intn(4)},
		}
		if i%10 == 9 { // non-square kernels, mixed strides, dilations
			cc.kernel = []int{1 + r.Intn(5), 1 + r.Intn(5)}
			cc.strides = []int{1 + r.Intn(2), 1 + r.Intn(3)}
			cc.dil = []int{1 + r.Intn(2), 1 + r.Intn(2)}
		}
		runBlockConv(t, srv, r, cc, i%2 == 0)
	}
	// Model-sized planes (MobileNet's and EfficientNet's layers).
	for _, cc := range []convCase{
		{n: 2, c: 16, m: 16, group: 16, in: []int{112, 112}, kernel: []int{3, 3}, strides: []int{2, 2}, dil: []int{1, 1}, pads: []int{1, 1, 1, 1}},
		{n: 1, c: 32, m: 32, group: 32, in: []int{112, 112}, kernel: []int{3, 3}, strides: []int{1, 1}, dil: []int{1, 1}, pads: []int{1, 1, 1, 1}},
		{n: 1, c: 40, m: 40, group: 40, in: []int{56, 56}, kernel: []int{3, 3}, strides: []int{2, 2}, dil: []int{1, 1}, pads: []int{1, 1, 1, 1}},
		{n: 1, c: 24, m: 24, group: 24, in: []int{56, 55}, kernel: []int{5, 5}, strides: []int{1, 1}, dil: []int{1, 1}, pads: []int{2, 2, 2, 2}},
		{n: 2, c: 37, m: 37, group: 37, in: []int{14, 14}, kernel: []int{5, 5}, strides: []int{1, 1}, dil: []int{1, 1}, pads: []int{2, 2, 2, 2}},
		{n: 1, c: 33, m: 33, group: 33, in: []int{14, 14}, kernel: []int{5, 5}, strides: []int{2, 2}, dil: []int{1, 1}, pads: []int{2, 2, 2, 2}},
		{n: 2, c: 40, m: 40, group: 40, in: []int{7, 7}, kernel: []int{7, 7}, strides: []int{1, 1}, dil: []int{1, 1}, pads: []int{3, 3, 3, 3}},
		{n: 1, c: 19, m: 19, group: 19, in: []int{17, 112}, kernel: []int{7, 7}, strides: []int{2, 2}, dil: []int{1, 1}, pads: []int{3, 0, 2, 3}},
		// Pads past the kernel's reach, a multiplier of 2 (tap rows).
		{n: 1, c: 9, m: 9, group: 9, in: []int{3, 4}, kernel: []int{3, 3}, strides: []int{1, 1}, dil: []int{1, 1}, pads: []int{3, 3, 3, 3}},
		{n: 1, c: 9, m: 18, group: 9, in: []int{13, 11}, kernel: []int{3, 3}, strides: []int{2, 2}, dil: []int{1, 1}, pads: []int{1, 1, 1, 1}},
	} {
		runBlockConv(t, srv, r, cc, true)
		runBlockConv(t, srv, r, cc, false)
	}
}

func TestConvStemBlocks(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(22))
	sizes := []int{1, 2, 3, 5, 7, 8, 9, 11, 13, 15, 16, 17, 56}
	kernels := []int{3, 5, 7}
	for i := 0; i < 120; i++ {
		k := kernels[i%3]
		s := 1 + i/3%2
		cc := convCase{n: 1 + r.Intn(2), c: 1 + r.Intn(4), m: 1 + r.Intn(40), group: 1,
			in:      []int{sizes[r.Intn(len(sizes))], sizes[r.Intn(len(sizes))]},
			kernel:  []int{k, k},
			strides: []int{s, s},
			dil:     []int{1, 1},
			pads:    []int{r.Intn(4), r.Intn(4), r.Intn(4), r.Intn(4)},
		}
		if i%10 == 9 {
			cc.kernel = []int{1 + r.Intn(4), 2 + r.Intn(4)}
			cc.strides = []int{1 + r.Intn(3), 1 + r.Intn(2)}
			cc.dil = []int{1 + r.Intn(2), 1 + r.Intn(2)}
		}
		runBlockConv(t, srv, r, cc, i%2 == 1)
	}
	for _, cc := range []convCase{
		{n: 2, c: 3, m: 16, group: 1, in: []int{224, 224}, kernel: []int{3, 3}, strides: []int{2, 2}, dil: []int{1, 1}, pads: []int{1, 1, 1, 1}},
		{n: 1, c: 3, m: 64, group: 1, in: []int{113, 117}, kernel: []int{7, 7}, strides: []int{2, 2}, dil: []int{1, 1}, pads: []int{3, 3, 3, 3}},
		{n: 1, c: 3, m: 32, group: 1, in: []int{112, 111}, kernel: []int{3, 3}, strides: []int{2, 2}, dil: []int{1, 1}, pads: []int{0, 0, 1, 1}},
		{n: 1, c: 4, m: 24, group: 1, in: []int{56, 56}, kernel: []int{5, 5}, strides: []int{1, 1}, dil: []int{1, 1}, pads: []int{2, 2, 2, 2}},
		{n: 1, c: 1, m: 8, group: 1, in: []int{17, 112}, kernel: []int{3, 3}, strides: []int{1, 1}, dil: []int{1, 1}, pads: []int{1, 1, 1, 1}},
	} {
		runBlockConv(t, srv, r, cc, true)
	}
}

// TestConvBlockViews runs the block convolutions into a channel slice of
// a larger output, from a channel slice of a larger input with padded
// rows, and from a transposed input (which they leave to tap rows).
func TestConvBlockViews(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(23))
	for _, cc := range []convCase{
		{n: 2, c: 21, m: 21, group: 21, in: []int{13, 15}, kernel: []int{3, 3}, strides: []int{2, 2}, dil: []int{1, 1}, pads: []int{1, 1, 1, 1}},
		{n: 2, c: 17, m: 17, group: 17, in: []int{9, 11}, kernel: []int{5, 5}, strides: []int{1, 1}, dil: []int{1, 1}, pads: []int{2, 1, 2, 3}},
		{n: 2, c: 3, m: 19, group: 1, in: []int{15, 21}, kernel: []int{3, 3}, strides: []int{2, 2}, dil: []int{1, 1}, pads: []int{1, 1, 1, 1}},
	} {
		t.Run(fmt.Sprint(cc), func(t *testing.T) {
			out := cc.convOut()
			ih, iw := cc.in[0], cc.in[1]
			// Input: channels [3, 3+c) of [n, c+5, ih, iw+4], columns [1, 1+iw).
			bigX := randomF32(r, cc.n, cc.c+5, ih, iw+4)
			xv := bigX
			xv.Shape = []int{cc.n, cc.c, ih, iw}
			xv.Data = bigX.Data[4*(3*bigX.Strides[1]+1):]
			w := randomF32(r, cc.m, cc.c/cc.group, cc.kernel[0], cc.kernel[1])
			b := randomF32(r, cc.m)
			// Output: channels [2, 2+m) of [n, 2m+1, oh, ow].
			bigY := newTensor(wgrt.F32, cc.n, 2*cc.m+1, out[0], out[1])
			yv := bigY
			yv.Shape = []int{cc.n, cc.m, out[0], out[1]}
			yv.Data = bigY.Data[4*2*bigY.Strides[1]:]
			call := &wgrt.Call{Kernel: "Conv", Outputs: []wgrt.Tensor{yv}, Inputs: []wgrt.Tensor{xv, w, b}, Attrs: cc.attrs()}
			for _, c := range withScratch(call, goConvScratch(cc, out)) {
				compareWithGo(t, srv, c, 1e-4, 1e-5)
			}
			// The input with its spatial axes transposed.
			xt := randomF32(r, cc.n, cc.c, iw, ih)
			xt.Shape = []int{cc.n, cc.c, ih, iw}
			xt.Strides = []int{xt.Strides[0], xt.Strides[1], 1, ih}
			y := newTensor(wgrt.F32, cc.n, cc.m, out[0], out[1])
			call = &wgrt.Call{Kernel: "Conv", Outputs: []wgrt.Tensor{y}, Inputs: []wgrt.Tensor{xt, w, b}, Attrs: cc.attrs()}
			for _, c := range withScratch(call, goConvScratch(cc, out)) {
				compareWithGo(t, srv, c, 1e-4, 1e-5)
			}
			// FusedConv with an activation over the block path.
			y = newTensor(wgrt.F32, cc.n, cc.m, out[0], out[1])
			attrs := append(cc.attrs(), fusedActAttrs("HardSwish", 0, 0)...)
			call = &wgrt.Call{Kernel: "FusedConv", Outputs: []wgrt.Tensor{y}, Inputs: []wgrt.Tensor{xv, w, b}, Attrs: attrs}
			for _, c := range withScratch(call, goConvScratch(cc, out)) {
				compareWithGo(t, srv, c, 1e-4, 1e-5)
			}
		})
	}
}

// TestConvBlocksSameAtAnyThreadCount requires the C++ block convolutions
// to give the same bits on one thread as on two (units of images x
// channel blocks x bands, each whole on one thread).
func TestConvBlocksSameAtAnyThreadCount(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(24))
	for _, cc := range []convCase{
		{n: 2, c: 40, m: 40, group: 40, in: []int{28, 27}, kernel: []int{5, 5}, strides: []int{1, 1}, dil: []int{1, 1}, pads: []int{2, 2, 2, 2}},
		{n: 1, c: 24, m: 24, group: 24, in: []int{112, 111}, kernel: []int{3, 3}, strides: []int{2, 2}, dil: []int{1, 1}, pads: []int{1, 1, 1, 1}},
		{n: 1, c: 3, m: 24, group: 1, in: []int{224, 223}, kernel: []int{3, 3}, strides: []int{2, 2}, dil: []int{1, 1}, pads: []int{1, 1, 1, 1}},
	} {
		call := blockConvCall(r, cc, true)
		var got [][]byte
		for _, threads := range []int{1, 2, 0} {
			c := *call
			c.Threads = threads
			c.Outputs = cloneOutputs(call.Outputs)
			require.NoError(t, srv.Call(&c))
			got = append(got, c.Outputs[0].Data)
		}
		require.Equal(t, got[0], got[1], cc.String())
		require.Equal(t, got[0], got[2], cc.String())
		compareWithGo(t, srv, call, 1e-4, 1e-5)
	}
}
