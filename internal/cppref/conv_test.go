package cppref

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// convCase is one random convolution: spatial sizes, kernel, strides,
// pads (begins, then ends), dilations, group.
type convCase struct {
	n, c, m, group                 int
	in, kernel, strides, dil, pads []int
}

func (cc convCase) String() string {
	return fmt.Sprintf("n%d c%d m%d g%d in%v k%v s%v d%v p%v", cc.n, cc.c, cc.m, cc.group, cc.in, cc.kernel, cc.strides, cc.dil, cc.pads)
}

func (cc convCase) attrs() []wgrt.Attr {
	return []wgrt.Attr{
		{Name: "kernel_shape", Kind: wgrt.AttrInts, Ints: cc.kernel},
		{Name: "strides", Kind: wgrt.AttrInts, Ints: cc.strides},
		{Name: "pads", Kind: wgrt.AttrInts, Ints: cc.pads},
		{Name: "dilations", Kind: wgrt.AttrInts, Ints: cc.dil},
		{Name: "group", Kind: wgrt.AttrInt, Int: cc.group},
	}
}

// convOut is Conv's output spatial sizes (0 or more).
func (cc convCase) convOut() []int {
	r := len(cc.in)
	out := make([]int, r)
	for d := 0; d < r; d++ {
		ext := (cc.kernel[d]-1)*cc.dil[d] + 1
		out[d] = max(0, (cc.in[d]+cc.pads[d]+cc.pads[r+d]-ext)/cc.strides[d]+1)
	}
	return out
}

func randomConvCase(r *rand.Rand, rank int) convCase {
	cc := convCase{n: 1 + r.Intn(2)}
	switch r.Intn(4) {
	case 0: // depthwise, maybe with a multiplier
		cc.c = 1 + r.Intn(6)
		cc.group = cc.c
		cc.m = cc.c * (1 + r.Intn(2))
	case 1: // grouped
		cc.group = 2 + r.Intn(3)
		cc.c = cc.group * (1 + r.Intn(3))
		cc.m = cc.group * (1 + r.Intn(4))
	default:
		cc.group = 1
		cc.c = 1 + r.Intn(7)
		cc.m = 1 + r.Intn(9)
	}
	for d := 0; d < rank; d++ {
		size := 1 + r.Intn(13)
		if rank == 3 {
			size = 1 + r.Intn(6)
		}
		cc.in = append(cc.in, size)
		cc.kernel = append(cc.kernel, 1+r.Intn(min(5, size+1)))
		cc.strides = append(cc.strides, 1+r.Intn(3))
		cc.dil = append(cc.dil, 1+r.Intn(2))
	}
	for d := 0; d < 2*rank; d++ {
		cc.pads = append(cc.pads, r.Intn(3))
	}
	return cc
}

// goConvScratch is the scratch the plan gives Conv (refscratch's rule).
func goConvScratch(cc convCase, out []int) int {
	mg := cc.m / cc.group
	p, ksz := 1, 1
	pointwise := true
	for d := range cc.in {
		p *= out[d]
		ksz *= cc.kernel[d]
		pointwise = pointwise && cc.kernel[d] == 1 && cc.strides[d] == 1 && cc.pads[d] == 0 && cc.pads[len(cc.in)+d] == 0 && out[d] == cc.in[d]
	}
	k := cc.c / cc.group * ksz
	ceil := func(x, to int) int { return (x + to - 1) / to * to }
	kc := min(k, wgref.ScratchBlockK)
	pa := ceil(min(mg, wgref.ScratchBlockM), wgref.ScratchMR) * kc
	if pointwise {
		if mg <= wgref.ScratchGemvMaxRows {
			return 0
		}
		return 4 * (pa + kc*wgref.ScratchNR)
	}
	return 4 * (pa + kc*ceil(min(p, wgref.ScratchBlockN), wgref.ScratchNR))
}

// withScratch is call with each scratch a test gives: none, the plan's
// rule, a generous one.
func withScratch(call *wgrt.Call, rule int) []*wgrt.Call {
	var calls []*wgrt.Call
	for _, size := range []int{-1, rule, 4 << 20} {
		c := *call
		if size >= 0 {
			c.Scratch = make([]byte, size)
		}
		calls = append(calls, &c)
	}
	return calls
}

func TestConvMatchesGo(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 300; i++ {
		rank := 1 + i%3
		cc := randomConvCase(r, rank)
		out := cc.convOut()
		x := randomF32(r, append([]int{cc.n, cc.c}, cc.in...)...)
		w := randomF32(r, append([]int{cc.m, cc.c / cc.group}, cc.kernel...)...)
		y := newTensor(wgrt.F32, append([]int{cc.n, cc.m}, out...)...)
		inputs := []wgrt.Tensor{x, w}
		if i%2 == 0 {
			inputs = append(inputs, randomF32(r, cc.m))
		}
		call := &wgrt.Call{Kernel: "Conv", Outputs: []wgrt.Tensor{y}, Inputs: inputs, Attrs: cc.attrs()}
		for _, c := range withScratch(call, goConvScratch(cc, out)) {
			t.Run(cc.String(), func(t *testing.T) { compareWithGo(t, srv, c, 1e-4, 1e-5) })
		}
	}
}

// TestConvModelShapes covers the layers real models run: 1x1, 3x3, the
// 7x7 stride-2 stem, depthwise 3x3 and 5x5 of stride 1 and 2, grouped.
func TestConvModelShapes(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(8))
	cases := []convCase{
		{n: 1, c: 3, m: 16, group: 1, in: []int{33, 31}, kernel: []int{7, 7}, strides: []int{2, 2}, dil: []int{1, 1}, pads: []int{3, 3, 3, 3}},
		{n: 2, c: 16, m: 24, group: 1, in: []int{14, 14}, kernel: []int{1, 1}, strides: []int{1, 1}, dil: []int{1, 1}, pads: []int{0, 0, 0, 0}},
		{n: 1, c: 16, m: 24, group: 1, in: []int{14, 14}, kernel: []int{1, 1}, strides: []int{2, 2}, dil: []int{1, 1}, pads: []int{0, 0, 0, 0}},
		{n: 1, c: 32, m: 40, group: 1, in: []int{15, 17}, kernel: []int{3, 3}, strides: []int{1, 1}, dil: []int{1, 1}, pads: []int{1, 1, 1, 1}},
		{n: 1, c: 300, m: 8, group: 1, in: []int{9, 9}, kernel: []int{3, 3}, strides: []int{1, 1}, dil: []int{1, 1}, pads: []int{1, 1, 1, 1}},
		{n: 1, c: 24, m: 24, group: 24, in: []int{28, 29}, kernel: []int{3, 3}, strides: []int{1, 1}, dil: []int{1, 1}, pads: []int{1, 1, 1, 1}},
		{n: 1, c: 24, m: 24, group: 24, in: []int{28, 29}, kernel: []int{3, 3}, strides: []int{2, 2}, dil: []int{1, 1}, pads: []int{0, 0, 1, 1}},
		{n: 2, c: 16, m: 16, group: 16, in: []int{19, 20}, kernel: []int{5, 5}, strides: []int{1, 1}, dil: []int{1, 1}, pads: []int{2, 2, 2, 2}},
		{n: 1, c: 16, m: 16, group: 16, in: []int{19, 20}, kernel: []int{5, 5}, strides: []int{2, 2}, dil: []int{1, 1}, pads: []int{1, 2, 2, 1}},
		{n: 1, c: 32, m: 64, group: 8, in: []int{14, 14}, kernel: []int{3, 3}, strides: []int{1, 1}, dil: []int{1, 1}, pads: []int{1, 1, 1, 1}},
		{n: 1, c: 8, m: 8, group: 1, in: []int{100}, kernel: []int{3}, strides: []int{1}, dil: []int{2}, pads: []int{2, 2}},
		{n: 1, c: 4, m: 6, group: 2, in: []int{5, 6, 7}, kernel: []int{3, 3, 3}, strides: []int{1, 2, 1}, dil: []int{1, 1, 1}, pads: []int{1, 1, 1, 1, 1, 1}},
	}
	for _, cc := range cases {
		out := cc.convOut()
		x := randomF32(r, append([]int{cc.n, cc.c}, cc.in...)...)
		w := randomF32(r, append([]int{cc.m, cc.c / cc.group}, cc.kernel...)...)
		y := newTensor(wgrt.F32, append([]int{cc.n, cc.m}, out...)...)
		call := &wgrt.Call{Kernel: "Conv", Outputs: []wgrt.Tensor{y}, Inputs: []wgrt.Tensor{x, w, randomF32(r, cc.m)}, Attrs: cc.attrs()}
		for _, c := range withScratch(call, goConvScratch(cc, out)) {
			t.Run(cc.String(), func(t *testing.T) { compareWithGo(t, srv, c, 1e-4, 1e-5) })
		}
	}
}

// TestConvViewsAndDTypes runs Conv into a channel slice of a larger
// output, from a transposed input, and in float64 and float16.
func TestConvViewsAndDTypes(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(9))
	cc := convCase{n: 2, c: 6, m: 4, group: 2, in: []int{7, 9}, kernel: []int{3, 2}, strides: []int{2, 1}, dil: []int{1, 2}, pads: []int{1, 0, 1, 2}}
	out := cc.convOut()
	x := randomF32(r, cc.n, cc.c, cc.in[0], cc.in[1])
	w := randomF32(r, cc.m, cc.c/cc.group, cc.kernel[0], cc.kernel[1])
	b := randomF32(r, cc.m)
	// The output as channels [2, 6) of an [N, 2M+1, ...] tensor.
	big := newTensor(wgrt.F32, cc.n, 2*cc.m+1, out[0], out[1])
	view := big
	view.Shape = []int{cc.n, cc.m, out[0], out[1]}
	view.Data = big.Data[2*big.Strides[1]*4:]
	for _, c := range withScratch(&wgrt.Call{Kernel: "Conv", Outputs: []wgrt.Tensor{view}, Inputs: []wgrt.Tensor{x, w, b}, Attrs: cc.attrs()}, 1<<16) {
		compareWithGo(t, srv, c, 1e-4, 1e-5)
	}
	// The input with its spatial axes transposed.
	xt := randomF32(r, cc.n, cc.c, cc.in[1], cc.in[0])
	xt.Shape = []int{cc.n, cc.c, cc.in[0], cc.in[1]}
	xt.Strides = []int{xt.Strides[0], xt.Strides[1], 1, cc.in[0]}
	y := newTensor(wgrt.F32, cc.n, cc.m, out[0], out[1])
	for _, c := range withScratch(&wgrt.Call{Kernel: "Conv", Outputs: []wgrt.Tensor{y}, Inputs: []wgrt.Tensor{xt, w, b}, Attrs: cc.attrs()}, 1<<16) {
		compareWithGo(t, srv, c, 1e-4, 1e-5)
	}
	// float64 and float16.
	for _, dt := range []wgrt.DType{wgrt.F64, wgrt.F16} {
		conv := func(src wgrt.Tensor) wgrt.Tensor {
			dst := newTensor(dt, src.Shape...)
			for i := 0; i < src.NumElements(); i++ {
				v := math.Float32frombits(binary.LittleEndian.Uint32(src.Data[4*i:]))
				if dt == wgrt.F64 {
					binary.LittleEndian.PutUint64(dst.Data[8*i:], math.Float64bits(float64(v)))
				} else {
					binary.LittleEndian.PutUint16(dst.Data[2*i:], f16Bits(v))
				}
			}
			return dst
		}
		y := newTensor(dt, cc.n, cc.m, out[0], out[1])
		call := &wgrt.Call{Kernel: "Conv", Outputs: []wgrt.Tensor{y}, Inputs: []wgrt.Tensor{conv(x), conv(w), conv(b)}, Attrs: cc.attrs()}
		compareWithGo(t, srv, call, 1e-3, 1e-3)
	}
	// Go refuses integer outputs; so must C++.
	yi := newTensor(wgrt.I32, cc.n, cc.m, out[0], out[1])
	compareWithGo(t, srv, &wgrt.Call{Kernel: "Conv", Outputs: []wgrt.Tensor{yi}, Inputs: []wgrt.Tensor{x, w}, Attrs: cc.attrs()}, 0, 0)
}

// f16Bits is v as IEEE half bits, truncating the mantissa (test values
// only; both sides read the same bits).
func f16Bits(v float32) uint16 {
	b := math.Float32bits(v)
	sign := uint16(b>>16) & 0x8000
	exp := int((b>>23)&0xff) - 127 + 15
	if exp <= 0 {
		return sign
	}
	return sign | uint16(exp)<<10 | uint16((b>>13)&0x3ff)
}

func TestConvTransposeMatchesGo(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(10))
	for i := 0; i < 150; i++ {
		rank := 1 + i%3
		cc := randomConvCase(r, rank)
		// ConvTranspose's weight is [C, M/group, ...]; the output
		// (in-1)*stride - pads + (k-1)*dil + 1, plus an output padding.
		if cc.m%cc.group != 0 {
			cc.m = cc.group
		}
		out := make([]int, rank)
		ok := true
		for d := 0; d < rank; d++ {
			out[d] = (cc.in[d]-1)*cc.strides[d] - cc.pads[d] - cc.pads[rank+d] + (cc.kernel[d]-1)*cc.dil[d] + 1 + r.Intn(cc.strides[d])
			ok = ok && out[d] > 0
		}
		if !ok {
			continue
		}
		x := randomF32(r, append([]int{cc.n, cc.c}, cc.in...)...)
		w := randomF32(r, append([]int{cc.c, cc.m / cc.group}, cc.kernel...)...)
		y := newTensor(wgrt.F32, append([]int{cc.n, cc.m}, out...)...)
		inputs := []wgrt.Tensor{x, w}
		if i%2 == 0 {
			inputs = append(inputs, randomF32(r, cc.m))
		}
		call := &wgrt.Call{Kernel: "ConvTranspose", Outputs: []wgrt.Tensor{y}, Inputs: inputs, Attrs: cc.attrs()}
		for _, c := range withScratch(call, 8*y.NumElements()) {
			t.Run(cc.String(), func(t *testing.T) { compareWithGo(t, srv, c, 1e-5, 1e-6) })
		}
	}
}

// TestPoolMatchesGo runs the pooling kernels on random 1-D to 3-D windows
// (strides, pads, dilations, ceil-mode output sizes), MaxPool with and
// without Indices in both storage orders, and the Global ones.
func TestPoolMatchesGo(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(11))
	for i := 0; i < 300; i++ {
		rank := 1 + i%3
		n, c := 1+r.Intn(2), 1+r.Intn(4)
		var in, kernel, strides, dil, pads, out []int
		for d := 0; d < rank; d++ {
			size := 1 + r.Intn(12)
			in = append(in, size)
			kernel = append(kernel, 1+r.Intn(min(4, size)))
			strides = append(strides, 1+r.Intn(3))
			dil = append(dil, 1+r.Intn(2))
		}
		for d := 0; d < 2*rank; d++ {
			pads = append(pads, r.Intn(kernel[d%rank]))
		}
		ceil := r.Intn(2) == 1
		ok := true
		for d := 0; d < rank; d++ {
			span := in[d] + pads[d] + pads[rank+d] - ((kernel[d]-1)*dil[d] + 1)
			o := span/strides[d] + 1
			if ceil {
				// ONNX's ceil mode: the last window starts inside the
				// input or its begin padding.
				o = (span+strides[d]-1)/strides[d] + 1
				if (o-1)*strides[d] >= in[d]+pads[d] {
					o--
				}
			}
			out = append(out, o)
			ok = ok && span >= 0
		}
		if !ok {
			continue
		}
		x := randomF32(r, append([]int{n, c}, in...)...)
		shape := append([]int{n, c}, out...)
		attrs := []wgrt.Attr{
			{Name: "kernel_shape", Kind: wgrt.AttrInts, Ints: kernel},
			{Name: "strides", Kind: wgrt.AttrInts, Ints: strides},
			{Name: "pads", Kind: wgrt.AttrInts, Ints: pads},
		}
		name := fmt.Sprintf("in%v k%v s%v d%v p%v", in, kernel, strides, dil, pads)
		withDil := append(attrs, wgrt.Attr{Name: "dilations", Kind: wgrt.AttrInts, Ints: dil})
		maxAttrs := append(withDil, wgrt.Attr{Name: "storage_order", Kind: wgrt.AttrInt, Int: r.Intn(2)})
		calls := []*wgrt.Call{
			{Kernel: "MaxPool", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, shape...)}, Inputs: []wgrt.Tensor{x}, Attrs: maxAttrs},
			{Kernel: "MaxPool", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, shape...), newTensor(wgrt.I64, shape...)}, Inputs: []wgrt.Tensor{x}, Attrs: maxAttrs},
			{Kernel: "AveragePool", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, shape...)}, Inputs: []wgrt.Tensor{x},
				Attrs: append(withDil, wgrt.Attr{Name: "count_include_pad", Kind: wgrt.AttrInt, Int: r.Intn(2)})},
			{Kernel: "AveragePool", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, shape...)}, Inputs: []wgrt.Tensor{x}, Attrs: attrs},
			{Kernel: "LpPool", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, shape...)}, Inputs: []wgrt.Tensor{x},
				Attrs: append(withDil, wgrt.Attr{Name: "p", Kind: wgrt.AttrInt, Int: 1 + r.Intn(3)})},
		}
		gshape := []int{n, c}
		for range in {
			gshape = append(gshape, 1)
		}
		for _, k := range []string{"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"} {
			calls = append(calls, &wgrt.Call{Kernel: k, Outputs: []wgrt.Tensor{newTensor(wgrt.F32, gshape...)}, Inputs: []wgrt.Tensor{x}})
		}
		for _, call := range calls {
			t.Run(call.Kernel+" "+name, func(t *testing.T) { compareWithGo(t, srv, call, 1e-5, 1e-6) })
		}
	}
}
