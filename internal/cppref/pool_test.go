package cppref

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The pooling kernels (templates/wgref/pool.cc) against the Go kernels:
// max pooling in blocks of channels and the tap rows of the others, on
// odd planes, pads, strides, dilations, ceil-mode output sizes, channel
// counts that leave a block partly filled, NaN and infinite inputs, and
// channel slices of larger tensors. Run it with WGREF_ISA=portable, avx2
// and avx512 to cover each instruction set's kernels.

// poolCase is one pooling's shapes and attributes (1-D or 2-D).
type poolCase struct {
	n, c                          int
	in, kernel, strides, dil, pad []int // pad: begins, then ends
	ceil, includePad              bool
}

func (pc poolCase) String() string {
	return fmt.Sprintf("n%d c%d in%v k%v s%v d%v p%v ceil=%v incl=%v", pc.n, pc.c, pc.in, pc.kernel, pc.strides, pc.dil, pc.pad, pc.ceil, pc.includePad)
}

// out is the pooled spatial shape: floor or ceil, a ceil window that
// would start in the end padding dropped (PyTorch's and ONNX's rule).
func (pc poolCase) out() []int {
	r := len(pc.in)
	o := make([]int, r)
	for d := range pc.in {
		span := pc.in[d] + pc.pad[d] + pc.pad[r+d] - ((pc.kernel[d]-1)*pc.dil[d] + 1)
		if span < 0 {
			return nil
		}
		o[d] = span/pc.strides[d] + 1
		if pc.ceil && span%pc.strides[d] != 0 {
			o[d]++
			if (o[d]-1)*pc.strides[d] >= pc.in[d]+pc.pad[d] {
				o[d]--
			}
		}
	}
	return o
}

func (pc poolCase) attrs(kind string) []wgrt.Attr {
	a := []wgrt.Attr{
		{Name: "kernel_shape", Kind: wgrt.AttrInts, Ints: pc.kernel},
		{Name: "strides", Kind: wgrt.AttrInts, Ints: pc.strides},
		{Name: "pads", Kind: wgrt.AttrInts, Ints: pc.pad},
	}
	if kind == "MaxPool" {
		a = append(a, wgrt.Attr{Name: "dilations", Kind: wgrt.AttrInts, Ints: pc.dil})
	}
	if pc.includePad {
		a = append(a, iattr("count_include_pad", 1))
	}
	return a
}

// withSpecials sets about one element in frac of t's to NaN, +Inf or
// -Inf.
func withSpecials(r *rand.Rand, t wgrt.Tensor, frac int) {
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	for i := 0; i < len(t.Data)/4; i++ {
		if r.Intn(frac) == 0 {
			binary.LittleEndian.PutUint32(t.Data[4*i:], math.Float32bits(specials[r.Intn(3)]))
		}
	}
}

// randomPoolCase is a 2-D case with a kernel up to 5x5, strides up to 3,
// dilations up to 2 and pads below the kernel.
func randomPoolCase(r *rand.Rand) poolCase {
	sizes := []int{1, 2, 3, 4, 5, 7, 8, 9, 11, 13, 14, 15, 16, 17, 23}
	pc := poolCase{n: 1 + r.Intn(2), c: 1 + r.Intn(40), in: []int{sizes[r.Intn(len(sizes))], sizes[r.Intn(len(sizes))]},
		kernel: []int{1 + r.Intn(5), 1 + r.Intn(5)}, strides: []int{1 + r.Intn(3), 1 + r.Intn(3)}, dil: []int{1, 1},
		ceil: r.Intn(3) == 0, includePad: r.Intn(2) == 0}
	if r.Intn(4) == 0 {
		pc.dil = []int{1 + r.Intn(2), 1 + r.Intn(2)}
	}
	pc.pad = make([]int, 4)
	for i := range pc.pad {
		pc.pad[i] = r.Intn(pc.kernel[i%2])
	}
	return pc
}

// runPool compares kind over pc from x into a fresh row-major output.
func runPool(t *testing.T, srv *Server, kind string, pc poolCase, x wgrt.Tensor) {
	t.Helper()
	o := pc.out()
	if o == nil {
		return
	}
	y := newTensor(wgrt.F32, append([]int{pc.n, pc.c}, o...)...)
	call := &wgrt.Call{Kernel: kind, Outputs: []wgrt.Tensor{y}, Inputs: []wgrt.Tensor{x}, Attrs: pc.attrs(kind)}
	t.Run(kind+" "+pc.String(), func(t *testing.T) { compareWithGo(t, srv, call, 1e-6, 1e-6) })
}

func TestPoolWindows(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(51))
	for i := 0; i < 200; i++ {
		pc := randomPoolCase(r)
		x := randomF32(r, append([]int{pc.n, pc.c}, pc.in...)...)
		if i%4 == 3 {
			withSpecials(r, x, 7)
		}
		runPool(t, srv, "MaxPool", pc, x)
		if pc.dil[0] == 1 && pc.dil[1] == 1 {
			runPool(t, srv, "AveragePool", pc, x)
		}
	}
	// Model-sized planes (ResNet's stem pooling, SqueezeNet's ceil-mode
	// ones), a 1-D pooling, pads past the kernel's reach.
	for _, pc := range []poolCase{
		{n: 2, c: 64, in: []int{112, 112}, kernel: []int{3, 3}, strides: []int{2, 2}, dil: []int{1, 1}, pad: []int{1, 1, 1, 1}},
		{n: 1, c: 96, in: []int{109, 109}, kernel: []int{3, 3}, strides: []int{2, 2}, dil: []int{1, 1}, pad: []int{0, 0, 0, 0}, ceil: true},
		{n: 1, c: 35, in: []int{27, 26}, kernel: []int{3, 3}, strides: []int{2, 2}, dil: []int{1, 1}, pad: []int{0, 0, 0, 0}, ceil: true},
		{n: 1, c: 17, in: []int{300, 7}, kernel: []int{2, 2}, strides: []int{2, 2}, dil: []int{1, 1}, pad: []int{0, 0, 0, 0}},
		{n: 1, c: 16, in: []int{9, 700}, kernel: []int{3, 3}, strides: []int{1, 1}, dil: []int{1, 1}, pad: []int{1, 1, 1, 1}},
		{n: 2, c: 18, in: []int{3, 4}, kernel: []int{3, 3}, strides: []int{1, 1}, dil: []int{1, 1}, pad: []int{3, 2, 3, 3}},
		{n: 2, c: 20, in: []int{37}, kernel: []int{3}, strides: []int{2}, dil: []int{1}, pad: []int{1, 1}},
	} {
		x := randomF32(r, append([]int{pc.n, pc.c}, pc.in...)...)
		runPool(t, srv, "MaxPool", pc, x)
		runPool(t, srv, "AveragePool", pc, x)
		withSpecials(r, x, 50)
		runPool(t, srv, "MaxPool", pc, x)
	}
}

// TestPoolViews pools a channel slice of a larger input with padded
// rows into a channel slice of a larger output, and a transposed input
// (which the blocks leave to the generic loop).
func TestPoolViews(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(52))
	for _, pc := range []poolCase{
		{n: 2, c: 21, in: []int{13, 15}, kernel: []int{3, 3}, strides: []int{2, 2}, dil: []int{1, 1}, pad: []int{1, 1, 1, 1}},
		{n: 2, c: 33, in: []int{9, 11}, kernel: []int{2, 3}, strides: []int{1, 2}, dil: []int{1, 1}, pad: []int{1, 1, 0, 1}, ceil: true},
	} {
		o := pc.out()
		ih, iw := pc.in[0], pc.in[1]
		bigX := randomF32(r, pc.n, pc.c+5, ih, iw+4)
		withSpecials(r, bigX, 11)
		xv := bigX
		xv.Shape = []int{pc.n, pc.c, ih, iw}
		xv.Data = bigX.Data[4*(3*bigX.Strides[1]+1):]
		xt := randomF32(r, pc.n, pc.c, iw, ih)
		xt.Shape = []int{pc.n, pc.c, ih, iw}
		xt.Strides = []int{xt.Strides[0], xt.Strides[1], 1, ih}
		for _, kind := range []string{"MaxPool", "AveragePool"} {
			for _, x := range []wgrt.Tensor{xv, xt} {
				// Output: channels [2, 2+c) of [n, 2c+1, oh, ow]; the
				// channels around it must stay as they were.
				bigY := randomF32(r, pc.n, 2*pc.c+1, o[0], o[1])
				yv := bigY
				yv.Shape = []int{pc.n, pc.c, o[0], o[1]}
				yv.Data = bigY.Data[4*2*bigY.Strides[1]:]
				call := &wgrt.Call{Kernel: kind, Outputs: []wgrt.Tensor{yv}, Inputs: []wgrt.Tensor{x}, Attrs: pc.attrs(kind)}
				// The server sees the bytes from the view's start to the
				// tensor's end: the channels after the view must stay.
				data := append([]byte(nil), bigY.Data...)
				c := *call
				c.Outputs = []wgrt.Tensor{yv}
				c.Outputs[0].Data = data[4*2*bigY.Strides[1]:]
				require.NoError(t, srv.Call(&c))
				for b := 0; b < pc.n; b++ {
					for ch := 0; ch < 2*pc.c+1; ch++ {
						if ch >= 2 && ch < 2+pc.c {
							continue
						}
						at := 4 * (b*bigY.Strides[0] + ch*bigY.Strides[1])
						end := at + 4*o[0]*o[1]
						require.Equal(t, bigY.Data[at:end], data[at:end], "%s %v: channel %d of the output's neighbours changed", kind, pc, ch)
					}
				}
				compareWithGo(t, srv, call, 1e-6, 1e-6)
			}
		}
	}
}

// TestPoolSameAtAnyThreadCount requires the same bits on one thread as
// on two.
func TestPoolSameAtAnyThreadCount(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(53))
	pc := poolCase{n: 2, c: 40, in: []int{56, 55}, kernel: []int{3, 3}, strides: []int{2, 2}, dil: []int{1, 1}, pad: []int{1, 1, 1, 1}}
	for _, kind := range []string{"MaxPool", "AveragePool"} {
		x := randomF32(r, pc.n, pc.c, pc.in[0], pc.in[1])
		o := pc.out()
		call := &wgrt.Call{Kernel: kind, Outputs: []wgrt.Tensor{newTensor(wgrt.F32, pc.n, pc.c, o[0], o[1])},
			Inputs: []wgrt.Tensor{x}, Attrs: pc.attrs(kind)}
		var got [][]byte
		for _, threads := range []int{1, 2} {
			c := *call
			c.Threads = threads
			c.Outputs = cloneOutputs(call.Outputs)
			require.NoError(t, srv.Call(&c))
			got = append(got, c.Outputs[0].Data)
		}
		require.Equal(t, got[0], got[1], kind)
		compareWithGo(t, srv, call, 1e-6, 1e-6)
	}
}

func TestPoolGlobal(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(54))
	for _, shape := range [][]int{{2, 7, 1, 1}, {1, 3, 5, 7}, {2, 40, 7, 7}, {1, 17, 33, 31}, {2, 9, 112}, {1, 5, 3, 4, 5}} {
		for _, kind := range []string{"GlobalAveragePool", "GlobalMaxPool"} {
			x := randomF32(r, shape...)
			if kind == "GlobalMaxPool" && shape[1] > 5 {
				withSpecials(r, x, 97)
			}
			os := append([]int{shape[0], shape[1]}, make([]int, len(shape)-2)...)
			for d := 2; d < len(os); d++ {
				os[d] = 1
			}
			call := &wgrt.Call{Kernel: kind, Outputs: []wgrt.Tensor{newTensor(wgrt.F32, os...)}, Inputs: []wgrt.Tensor{x}}
			t.Run(fmt.Sprint(kind, shape), func(t *testing.T) { compareWithGo(t, srv, call, 1e-6, 1e-7) })
		}
	}
}
