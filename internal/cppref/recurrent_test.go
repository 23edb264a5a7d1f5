package cppref

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// rcTensor is a row-major tensor of shape with values in [-scale, scale)
// (f32, f64 or f16).
func rcTensor(r *rand.Rand, d wgrt.DType, scale float64, shape ...int) wgrt.Tensor {
	t := newTensor(d, shape...)
	for i := 0; i < t.NumElements(); i++ {
		v := scale * (2*r.Float64() - 1)
		switch d {
		case wgrt.F32:
			binary.LittleEndian.PutUint32(t.Data[4*i:], math.Float32bits(float32(v)))
		case wgrt.F64:
			binary.LittleEndian.PutUint64(t.Data[8*i:], math.Float64bits(v))
		case wgrt.F16:
			binary.LittleEndian.PutUint16(t.Data[2*i:], f16Bits(float32(v)))
		}
	}
	return t
}

// rcTransposed is t's data laid out with its last two axes swapped in
// memory, as a view of t's shape (a strided operand).
func rcTransposed(t wgrt.Tensor) wgrt.Tensor {
	n := len(t.Shape)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	perm[n-2], perm[n-1] = n-1, n-2
	mem := make([]int, n)
	for i := range mem {
		mem[i] = t.Shape[perm[i]]
	}
	ms := wgrt.RowMajor(make([]int, n), mem)
	strides := make([]int, n)
	for i := range perm {
		strides[perm[i]] = ms[i]
	}
	out := wgrt.Tensor{DType: t.DType, Shape: t.Shape, Strides: strides, Device: "cpu", Data: make([]byte, len(t.Data))}
	size := t.DType.Size()
	var idx [8]int
	for e := 0; e < t.NumElements(); e++ {
		rem, src, dst := e, 0, 0
		for d := n - 1; d >= 0; d-- {
			idx[d] = rem % t.Shape[d]
			rem /= t.Shape[d]
			src += idx[d] * t.Strides[d]
			dst += idx[d] * strides[d]
		}
		copy(out.Data[dst*size:(dst+1)*size], t.Data[src*size:(src+1)*size])
	}
	return out
}

type rcCase struct {
	kernel                       string
	dtype                        wgrt.DType
	seq, batch, input, hidden    int
	dir                          string
	layout                       int
	acts, alpha, beta            string
	clip                         float64
	lbr, inputForget             int
	bias, seqLens, initH, initC  bool
	peep, y, yh, yc, stridedX, w bool
}

func (rc rcCase) call(r *rand.Rand) *wgrt.Call {
	gates := map[string]int{"RNN": 1, "GRU": 3, "LSTM": 4}[rc.kernel]
	dirs := 1
	if rc.dir == "bidirectional" {
		dirs = 2
	}
	g, h := gates*rc.hidden, rc.hidden
	xs := []int{rc.seq, rc.batch, rc.input}
	state := []int{dirs, rc.batch, h}
	ys := []int{rc.seq, dirs, rc.batch, h}
	if rc.layout == 1 {
		xs = []int{rc.batch, rc.seq, rc.input}
		state = []int{rc.batch, dirs, h}
		ys = []int{rc.batch, rc.seq, dirs, h}
	}
	x := rcTensor(r, rc.dtype, 1, xs...)
	if rc.stridedX {
		x = rcTransposed(x)
	}
	w := rcTensor(r, rc.dtype, 0.4, dirs, g, rc.input)
	if rc.w {
		w = rcTransposed(w)
	}
	// R contracts (spectral radius about 0.5): float32 rounding does not grow from step to step.
	ins := []wgrt.Tensor{x, w, rcTensor(r, rc.dtype, 0.9/math.Sqrt(float64(h)), dirs, g, h)}
	present := []int{1, 1, 1, 0, 0, 0, 0, 0}
	if rc.bias {
		ins = append(ins, rcTensor(r, rc.dtype, 0.5, dirs, 2*g))
		present[3] = 1
	}
	if rc.seqLens {
		sl := newTensor(wgrt.I32, rc.batch)
		for b := 0; b < rc.batch; b++ {
			binary.LittleEndian.PutUint32(sl.Data[4*b:], uint32(r.Intn(rc.seq+1)))
		}
		ins = append(ins, sl)
		present[4] = 1
	}
	if rc.initH {
		ins = append(ins, rcTensor(r, rc.dtype, 1, state...))
		present[5] = 1
	}
	if rc.initC {
		ins = append(ins, rcTensor(r, rc.dtype, 1, state...))
		present[6] = 1
	}
	if rc.peep {
		ins = append(ins, rcTensor(r, rc.dtype, 0.5, dirs, 3*h))
		present[7] = 1
	}
	var outs []wgrt.Tensor
	outPresent := []int{0, 0, 0}
	if rc.y {
		outs = append(outs, newTensor(rc.dtype, ys...))
		outPresent[0] = 1
	}
	if rc.yh {
		outs = append(outs, newTensor(rc.dtype, state...))
		outPresent[1] = 1
	}
	if rc.yc {
		outs = append(outs, newTensor(rc.dtype, state...))
		outPresent[2] = 1
	}
	acts := rc.acts
	if acts == "" {
		one := map[string]string{"RNN": "Tanh", "GRU": "Sigmoid,Tanh", "LSTM": "Sigmoid,Tanh,Tanh"}[rc.kernel]
		acts = strings.TrimSuffix(strings.Repeat(one+",", dirs), ",")
	}
	attrs := []wgrt.Attr{
		{Name: "direction", Kind: wgrt.AttrString, Str: rc.dir},
		{Name: "hidden_size", Kind: wgrt.AttrInt, Int: h},
		{Name: "layout", Kind: wgrt.AttrInt, Int: rc.layout},
		{Name: "activations", Kind: wgrt.AttrString, Str: acts},
		{Name: "activation_alpha", Kind: wgrt.AttrString, Str: rc.alpha},
		{Name: "activation_beta", Kind: wgrt.AttrString, Str: rc.beta},
		{Name: "clip", Kind: wgrt.AttrFloat, Float: rc.clip},
		{Name: "inputs", Kind: wgrt.AttrInts, Ints: present},
		{Name: "outputs", Kind: wgrt.AttrInts, Ints: outPresent},
		{Name: "linear_before_reset", Kind: wgrt.AttrInt, Int: rc.lbr},
		{Name: "input_forget", Kind: wgrt.AttrInt, Int: rc.inputForget},
	}
	return &wgrt.Call{Kernel: rc.kernel, Inputs: ins, Outputs: outs, Attrs: attrs, Scratch: make([]byte, 4<<20)}
}

// TestRecurrentMatchesGo runs RNN, GRU and LSTM on every path (step by
// step, windowed projections, the general float64 one) through both
// kernel sets.
func TestRecurrentMatchesGo(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(7))
	dirs := []string{"forward", "reverse", "bidirectional"}
	for i := 0; i < 120; i++ {
		kernel := []string{"RNN", "GRU", "LSTM"}[i%3]
		rc := rcCase{kernel: kernel, dtype: wgrt.F32, seq: 1 + r.Intn(6), batch: 1 + r.Intn(5), input: 1 + r.Intn(9), hidden: 1 + r.Intn(9),
			dir: dirs[r.Intn(3)], layout: r.Intn(2), lbr: r.Intn(2), bias: r.Intn(3) > 0, seqLens: r.Intn(2) == 0,
			initH: r.Intn(2) == 0, initC: kernel == "LSTM" && r.Intn(2) == 0, peep: kernel == "LSTM" && r.Intn(2) == 0,
			y: r.Intn(4) > 0, yh: r.Intn(2) == 0, yc: kernel == "LSTM" && r.Intn(3) > 0, stridedX: r.Intn(4) == 0, w: r.Intn(5) == 0}
		if kernel != "GRU" {
			rc.lbr = 0
		}
		if kernel == "LSTM" && r.Intn(4) == 0 {
			rc.inputForget = 1
		}
		if r.Intn(4) == 0 {
			rc.clip = 0.3 + r.Float64()
		}
		switch r.Intn(8) {
		case 0: // wide enough for the windowed path, and more than projectSteps steps sometimes
			rc.hidden, rc.input = 100+r.Intn(20), 60+r.Intn(10)
			if r.Intn(2) == 0 {
				rc.seq = 65 + r.Intn(10)
				rc.batch = 1 + r.Intn(3)
			}
		case 1:
			rc.dtype = wgrt.F64
		case 2:
			rc.dtype = wgrt.F16
		}
		if r.Intn(6) == 0 {
			n := map[string]int{"RNN": 1, "GRU": 2, "LSTM": 3}[kernel]
			if rc.dir == "bidirectional" {
				n *= 2
			}
			pool := []string{"Relu", "LeakyRelu", "HardSigmoid", "Affine", "Softsign", "Elu", "ScaledTanh", "ThresholdedRelu", "Softplus", "Sigmoid", "Tanh"}
			var acts, alpha, beta []string
			for k := 0; k < n; k++ {
				acts = append(acts, pool[r.Intn(len(pool))])
				alpha = append(alpha, fmt.Sprintf("%g", 0.1+r.Float64()))
				beta = append(beta, fmt.Sprintf("%g", r.Float64()-0.5))
			}
			rc.acts, rc.alpha, rc.beta = strings.Join(acts, ","), strings.Join(alpha, ","), strings.Join(beta, ",")
		}
		if !rc.y && !rc.yh && !rc.yc {
			rc.yh = true
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			tol := 1e-4
			if rc.dtype == wgrt.F16 {
				tol = 4e-3
			}
			t.Logf("%+v", rc)
			compareWithGo(t, srv, rc.call(r), tol, tol)
		})
	}
	// The windowed path with batches whose steps' products are GEMMs, sequences beyond one window.
	fixed := []rcCase{
		{kernel: "GRU", dtype: wgrt.F32, seq: 70, batch: 6, input: 7, hidden: 20, dir: "bidirectional", bias: true, seqLens: true, initH: true, y: true, yh: true},
		{kernel: "LSTM", dtype: wgrt.F32, seq: 66, batch: 5, input: 9, hidden: 30, dir: "reverse", layout: 1, bias: true, seqLens: true, peep: true, initC: true, yh: true, yc: true, stridedX: true},
		{kernel: "RNN", dtype: wgrt.F32, seq: 5, batch: 9, input: 300, hidden: 40, dir: "forward", bias: true, y: true, w: true},
		{kernel: "GRU", dtype: wgrt.F32, seq: 3, batch: 4, input: 5, hidden: 6, dir: "forward", lbr: 1, bias: true, yh: true},
	}
	for i, rc := range fixed {
		t.Run(fmt.Sprint("fixed", i), func(t *testing.T) { compareWithGo(t, srv, rc.call(r), 1e-4, 1e-4) })
	}
}

// TestRecurrentDotRowsMatchGo covers the steps' dot products (R's and W's
// rows with one or two batch entries' vectors) on each instruction set's
// form, portable included: sizes around their 8 lanes and 4-row blocks,
// step by step and windowed (hidden 100+).
func TestRecurrentDotRowsMatchGo(t *testing.T) {
	for _, isa := range isaPaths {
		t.Run(isa, func(t *testing.T) {
			t.Setenv("WGREF_ISA", isa)
			srv := startServer(t)
			r := rand.New(rand.NewSource(11))
			sizes := []int{1, 3, 7, 8, 9, 15, 16, 17, 33, 64, 101}
			for i, hidden := range sizes {
				kernel := []string{"RNN", "GRU", "LSTM"}[i%3]
				rc := rcCase{kernel: kernel, dtype: wgrt.F32, seq: 4, batch: 1 + i%3, input: sizes[(i+4)%len(sizes)], hidden: hidden,
					dir: "bidirectional", lbr: i % 2, bias: true, initH: true, y: true, yh: true, yc: kernel == "LSTM"}
				if kernel != "GRU" {
					rc.lbr = 0
				}
				t.Run(fmt.Sprint(kernel, hidden), func(t *testing.T) {
					t.Logf("%+v", rc)
					compareWithGo(t, srv, rc.call(r), 1e-4, 1e-4)
				})
			}
		})
	}
}
