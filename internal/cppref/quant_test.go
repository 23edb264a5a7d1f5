package cppref

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The quantization, integer product, signal and linear algebra kernels
// (quant.cc, signal.cc, linalg.cc) against the Go kernels: both fast and
// general paths, strided views, per-axis parameters, edge values.

// qTensor is a row-major tensor of dtype d holding vals (converted as the
// Go kernels store them).
// qCompare is compareWithGo for a call the Go kernel must accept.
func qCompare(t *testing.T, srv *Server, call *wgrt.Call, rtol, atol float64) {
	t.Helper()
	goCall := *call
	goCall.Outputs = cloneOutputs(call.Outputs)
	if call.Scratch != nil {
		goCall.Scratch = make([]byte, len(call.Scratch))
	}
	require.NoError(t, wgref.Call(&goCall))
	compareWithGo(t, srv, call, rtol, atol)
}

func qTensor(d wgrt.DType, shape []int, vals func(i int) float64) wgrt.Tensor {
	t := newTensor(d, shape...)
	for i := 0; i < t.NumElements(); i++ {
		v := vals(i)
		switch d {
		case wgrt.F32:
			binary.LittleEndian.PutUint32(t.Data[4*i:], math.Float32bits(float32(v)))
		case wgrt.F64:
			binary.LittleEndian.PutUint64(t.Data[8*i:], math.Float64bits(v))
		case wgrt.U8, wgrt.I8:
			t.Data[i] = byte(int64(v))
		case wgrt.I32:
			binary.LittleEndian.PutUint32(t.Data[4*i:], uint32(int32(v)))
		case wgrt.I64:
			binary.LittleEndian.PutUint64(t.Data[8*i:], uint64(int64(v)))
		default:
			panic("qTensor: dtype")
		}
	}
	return t
}

// qTransposed is t's last two dimensions swapped: a strided view of a
// fresh tensor holding the same values at the swapped positions.
func qTransposed(d wgrt.DType, shape []int, vals func(i int) float64) wgrt.Tensor {
	r := len(shape)
	ts := append([]int(nil), shape...)
	ts[r-1], ts[r-2] = ts[r-2], ts[r-1]
	t := qTensor(d, ts, vals)
	t.Shape = shape
	st := append([]int(nil), t.Strides...)
	st[r-1], st[r-2] = st[r-2], st[r-1]
	t.Strides = st
	return t
}

func qRandInt(r *rand.Rand, d wgrt.DType) func(int) float64 {
	return func(int) float64 {
		if d == wgrt.I8 {
			return float64(r.Intn(256) - 128)
		}
		return float64(r.Intn(256))
	}
}

func qInts(name string, v ...int) wgrt.Attr {
	return wgrt.Attr{Name: name, Kind: wgrt.AttrInts, Ints: v}
}
func qInt(name string, v int) wgrt.Attr { return wgrt.Attr{Name: name, Kind: wgrt.AttrInt, Int: v} }
func qFloat(name string, v float64) wgrt.Attr {
	return wgrt.Attr{Name: name, Kind: wgrt.AttrFloat, Float: v}
}
func qBool(name string, v bool) wgrt.Attr { return wgrt.Attr{Name: name, Kind: wgrt.AttrBool, Bool: v} }
func qStr(name, v string) wgrt.Attr       { return wgrt.Attr{Name: name, Kind: wgrt.AttrString, Str: v} }
func qScalar(d wgrt.DType, v float64) wgrt.Tensor {
	return qTensor(d, nil, func(int) float64 { return v })
}

func TestQuantizeLinearCpp(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(3))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 2.5, -2.5, 0.5, 1e9, -1e9}
	for _, q := range []wgrt.DType{wgrt.U8, wgrt.I8} {
		for _, xd := range []wgrt.DType{wgrt.F32, wgrt.F64} {
			for _, perAxis := range []int{-1, 0, 1, 2} {
				for _, withZP := range []bool{false, true} {
					for _, strided := range []bool{false, true} {
						shape := []int{3, 4, 5}
						vals := func(i int) float64 {
							if i < len(special) {
								return special[i]
							}
							return 40 * (2*r.Float64() - 1)
						}
						x := qTensor(xd, shape, vals)
						if strided {
							x = qTransposed(xd, shape, vals)
						}
						var s, z wgrt.Tensor
						axis := 1
						if perAxis < 0 {
							s = qScalar(wgrt.F32, 0.37)
							z = qScalar(q, float64(qRandInt(r, q)(0)))
						} else {
							axis = perAxis
							n := shape[axis]
							s = qTensor(wgrt.F32, []int{n}, func(i int) float64 { return 0.1 + 0.3*float64(i) })
							z = qTensor(q, []int{n}, qRandInt(r, q))
						}
						ins := []wgrt.Tensor{x, s}
						if withZP {
							ins = append(ins, z)
						}
						for _, negAxis := range []bool{false, true} {
							a := axis
							if negAxis {
								a -= 3
							}
							call := &wgrt.Call{Kernel: "QuantizeLinear", Outputs: []wgrt.Tensor{newTensor(q, shape...)}, Inputs: ins,
								Attrs: []wgrt.Attr{qInt("axis", a)}}
							t.Run(fmt.Sprintf("%s_%s_axis%d_zp%v_strided%v_neg%v", q, xd, perAxis, withZP, strided, negAxis), func(t *testing.T) {
								qCompare(t, srv, call, 0, 0)
							})
							// Dequantize the quantized values back.
							y := newTensor(q, shape...)
							for i := range y.Data {
								y.Data[i] = byte(r.Intn(256))
							}
							dins := append([]wgrt.Tensor{y}, ins[1:]...)
							for _, od := range []wgrt.DType{wgrt.F32, wgrt.F64} {
								call := &wgrt.Call{Kernel: "DequantizeLinear", Outputs: []wgrt.Tensor{newTensor(od, shape...)}, Inputs: dins,
									Attrs: []wgrt.Attr{qInt("axis", a)}}
								t.Run(fmt.Sprintf("de_%s_%s_axis%d_zp%v_neg%v", q, od, perAxis, withZP, negAxis), func(t *testing.T) {
									qCompare(t, srv, call, 0, 0)
								})
							}
						}
					}
				}
			}
		}
	}
	// Strided outputs, float16 and bfloat16 through the general paths.
	shape := []int{4, 6}
	xs := qTransposed(wgrt.F32, shape, func(int) float64 { return 30 * (2*r.Float64() - 1) })
	outT := qTransposed(wgrt.U8, shape, func(int) float64 { return 0 })
	call := &wgrt.Call{Kernel: "QuantizeLinear", Outputs: []wgrt.Tensor{outT}, Inputs: []wgrt.Tensor{xs, qScalar(wgrt.F32, 0.3), qScalar(wgrt.U8, 100)},
		Attrs: []wgrt.Attr{qInt("axis", 1)}}
	qCompare(t, srv, call, 0, 0)
	for _, od := range []wgrt.DType{wgrt.F16, wgrt.BF16} {
		y := qTensor(wgrt.I8, shape, qRandInt(r, wgrt.I8))
		call = &wgrt.Call{Kernel: "DequantizeLinear", Outputs: []wgrt.Tensor{newTensor(od, shape...)},
			Inputs: []wgrt.Tensor{y, qTensor(wgrt.F32, []int{6}, func(i int) float64 { return 0.01 * float64(i+1) }), qTensor(wgrt.I8, []int{6}, qRandInt(r, wgrt.I8))},
			Attrs:  []wgrt.Attr{qInt("axis", 1)}}
		qCompare(t, srv, call, 0, 0)
	}
	// int32 dequantization (general path), and a bad axis.
	x := qTensor(wgrt.I32, []int{4, 3}, func(i int) float64 { return float64(i*1000 - 5000) })
	call = &wgrt.Call{Kernel: "DequantizeLinear", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, 4, 3)},
		Inputs: []wgrt.Tensor{x, qScalar(wgrt.F32, 0.01), qScalar(wgrt.I32, 7)}, Attrs: []wgrt.Attr{qInt("axis", 1)}}
	qCompare(t, srv, call, 0, 0)
	call = &wgrt.Call{Kernel: "QuantizeLinear", Outputs: []wgrt.Tensor{newTensor(wgrt.U8, 4, 3)},
		Inputs: []wgrt.Tensor{randomF32(r, 4, 3), qTensor(wgrt.F32, []int{3}, func(int) float64 { return 1 })}, Attrs: []wgrt.Attr{qInt("axis", 0)}}
	compareWithGo(t, srv, call, 0, 0)
}

func TestDynamicQuantizeLinearCpp(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(4))
	for _, tc := range []struct {
		name string
		vals func(int) float64
	}{
		{"random", func(int) float64 { return 10 * (2*r.Float64() - 1) }},
		{"positive", func(int) float64 { return 3 + r.Float64() }},
		{"negative", func(int) float64 { return -3 - r.Float64() }},
		{"zeros", func(int) float64 { return 0 }},
		{"nan", func(i int) float64 {
			if i == 3 {
				return math.NaN()
			}
			return float64(i)
		}},
	} {
		for _, strided := range []bool{false, true} {
			x := qTensor(wgrt.F32, []int{5, 7}, tc.vals)
			if strided {
				x = qTransposed(wgrt.F32, []int{5, 7}, tc.vals)
			}
			call := &wgrt.Call{Kernel: "DynamicQuantizeLinear",
				Outputs: []wgrt.Tensor{newTensor(wgrt.U8, 5, 7), newTensor(wgrt.F32), newTensor(wgrt.U8)}, Inputs: []wgrt.Tensor{x}}
			t.Run(fmt.Sprintf("%s_%v", tc.name, strided), func(t *testing.T) { qCompare(t, srv, call, 0, 0) })
		}
	}
}

func TestMatMulIntegerCpp(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(5))
	for iter := 0; iter < 40; iter++ {
		ad, bd := []wgrt.DType{wgrt.U8, wgrt.I8}[r.Intn(2)], []wgrt.DType{wgrt.U8, wgrt.I8}[r.Intn(2)]
		m, k, n := 1+r.Intn(6), 1+r.Intn(9), 1+r.Intn(7)
		ashape, bshape, oshape := []int{m, k}, []int{k, n}, []int{m, n}
		switch iter % 4 {
		case 1:
			ashape, oshape = []int{3, m, k}, []int{3, m, n}
		case 2:
			ashape, bshape, oshape = []int{2, 1, m, k}, []int{3, k, n}, []int{2, 3, m, n}
		}
		a := qTensor(ad, ashape, qRandInt(r, ad))
		if iter%3 == 0 {
			a = qTransposed(ad, ashape, qRandInt(r, ad))
		}
		b := qTensor(bd, bshape, qRandInt(r, bd))
		if iter%5 == 0 {
			b = qTransposed(bd, bshape, qRandInt(r, bd))
		}
		var az, bz wgrt.Tensor
		if iter%2 == 0 {
			az, bz = qScalar(ad, qRandInt(r, ad)(0)), qScalar(bd, qRandInt(r, bd)(0))
		} else {
			az, bz = qTensor(ad, []int{m}, qRandInt(r, ad)), qTensor(bd, []int{n}, qRandInt(r, bd))
		}
		ins := []wgrt.Tensor{a, b}
		switch iter % 3 {
		case 1:
			ins = append(ins, az)
		case 2:
			ins = append(ins, az, bz)
		}
		call := &wgrt.Call{Kernel: "MatMulInteger", Outputs: []wgrt.Tensor{newTensor(wgrt.I32, oshape...)}, Inputs: ins}
		t.Run(fmt.Sprintf("mmi%d", iter), func(t *testing.T) { qCompare(t, srv, call, 0, 0) })

		od := []wgrt.DType{wgrt.U8, wgrt.I8}[r.Intn(2)]
		bs := qScalar(wgrt.F32, 0.02)
		if iter%2 == 1 {
			bs = qTensor(wgrt.F32, []int{n}, func(i int) float64 { return 0.01 + 0.01*float64(i) })
		}
		qins := []wgrt.Tensor{a, qScalar(wgrt.F32, 0.05), az, b, bs, bz, qScalar(wgrt.F32, 0.03), qScalar(od, qRandInt(r, od)(0))}
		call = &wgrt.Call{Kernel: "QLinearMatMul", Outputs: []wgrt.Tensor{newTensor(od, oshape...)}, Inputs: qins}
		t.Run(fmt.Sprintf("qlmm%d", iter), func(t *testing.T) { qCompare(t, srv, call, 0, 0) })
	}
}

func TestConvIntegerCpp(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(6))
	for iter := 0; iter < 40; iter++ {
		rank := 1 + iter%3
		g := 1 + r.Intn(3)
		cin, cout := g*(1+r.Intn(3)), g*(1+r.Intn(3))
		nb := 1 + r.Intn(2)
		in, kern, str, dil, pads := make([]int, rank), make([]int, rank), make([]int, rank), make([]int, rank), make([]int, 2*rank)
		outSp := make([]int, rank)
		for d := 0; d < rank; d++ {
			in[d] = 2 + r.Intn(5)
			kern[d] = 1 + r.Intn(3)
			str[d] = 1 + r.Intn(2)
			dil[d] = 1 + r.Intn(2)
			pads[d], pads[rank+d] = r.Intn(2), r.Intn(3)
			ext := (kern[d]-1)*dil[d] + 1
			outSp[d] = max(0, (in[d]+pads[d]+pads[rank+d]-ext)/str[d]+1)
		}
		xd, wd := []wgrt.DType{wgrt.U8, wgrt.I8}[r.Intn(2)], []wgrt.DType{wgrt.U8, wgrt.I8}[r.Intn(2)]
		x := qTensor(xd, append([]int{nb, cin}, in...), qRandInt(r, xd))
		w := qTensor(wd, append([]int{cout, cin / g}, kern...), qRandInt(r, wd))
		oshape := append([]int{nb, cout}, outSp...)
		attrs := []wgrt.Attr{qInts("kernel_shape", kern...), qInts("strides", str...), qInts("pads", pads...), qInts("dilations", dil...), qInt("group", g)}
		xz := qScalar(xd, qRandInt(r, xd)(0))
		wz := qScalar(wd, qRandInt(r, wd)(0))
		if iter%2 == 1 {
			wz = qTensor(wd, []int{cout}, qRandInt(r, wd))
		}
		ins := []wgrt.Tensor{x, w}
		switch iter % 3 {
		case 1:
			ins = append(ins, xz)
		case 2:
			ins = append(ins, xz, wz)
		}
		call := &wgrt.Call{Kernel: "ConvInteger", Outputs: []wgrt.Tensor{newTensor(wgrt.I32, oshape...)}, Inputs: ins, Attrs: attrs}
		t.Run(fmt.Sprintf("ci%d", iter), func(t *testing.T) { qCompare(t, srv, call, 0, 0) })

		od := []wgrt.DType{wgrt.U8, wgrt.I8}[r.Intn(2)]
		ws := qScalar(wgrt.F32, 0.02)
		if iter%2 == 0 {
			ws = qTensor(wgrt.F32, []int{cout}, func(i int) float64 { return 0.01 + 0.005*float64(i) })
		}
		qins := []wgrt.Tensor{x, qScalar(wgrt.F32, 0.05), xz, w, ws, wz, qScalar(wgrt.F32, 0.07), qScalar(od, qRandInt(r, od)(0))}
		if iter%3 != 0 {
			qins = append(qins, qTensor(wgrt.I32, []int{cout}, func(int) float64 { return float64(r.Intn(2000) - 1000) }))
		}
		call = &wgrt.Call{Kernel: "QLinearConv", Outputs: []wgrt.Tensor{newTensor(od, oshape...)}, Inputs: qins, Attrs: attrs}
		t.Run(fmt.Sprintf("qlc%d", iter), func(t *testing.T) { qCompare(t, srv, call, 0, 0) })
	}
}

func TestDFTCpp(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(7))
	for _, tc := range []struct {
		shape   []int
		axis, n int
		inverse bool
	}{
		{[]int{2, 8, 1}, 1, 8, false},
		{[]int{2, 8, 2}, 1, 8, true},
		{[]int{3, 5, 2}, 0, 4, false},
		{[]int{2, 6, 1}, 1, 9, false},
		{[]int{2, 6, 2}, 1, 4, true},
	} {
		for _, xd := range []wgrt.DType{wgrt.F32, wgrt.F64} {
			x := qTensor(xd, tc.shape, func(int) float64 { return 2*r.Float64() - 1 })
			oshape := append([]int(nil), tc.shape...)
			oshape[tc.axis], oshape[len(oshape)-1] = tc.n, 2
			call := &wgrt.Call{Kernel: "DFT", Outputs: []wgrt.Tensor{newTensor(xd, oshape...)}, Inputs: []wgrt.Tensor{x},
				Attrs: []wgrt.Attr{qInt("axis", tc.axis), qInt("length", tc.n), qBool("inverse", tc.inverse)}}
			t.Run(fmt.Sprintf("%v_%d_%d_%v_%s", tc.shape, tc.axis, tc.n, tc.inverse, xd), func(t *testing.T) {
				qCompare(t, srv, call, 1e-5, 1e-6)
			})
		}
	}
	for _, complexIn := range []bool{false, true} {
		for _, win := range []bool{false, true} {
			last := 1
			if complexIn {
				last = 2
			}
			x := qTensor(wgrt.F32, []int{2, 20, last}, func(int) float64 { return 2*r.Float64() - 1 })
			step, n := 3, 8
			frames := (20-n)/step + 1
			ins := []wgrt.Tensor{x}
			if win {
				ins = append(ins, qTensor(wgrt.F32, []int{n}, func(i int) float64 { return 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n)) }))
			}
			bins := n/2 + 1
			if complexIn {
				bins = n
			}
			call := &wgrt.Call{Kernel: "STFT", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, 2, frames, bins, 2)}, Inputs: ins,
				Attrs: []wgrt.Attr{qInt("frame_step", step), qInt("frame_length", n), qBool("has_window", win)}}
			t.Run(fmt.Sprintf("stft_%v_%v", complexIn, win), func(t *testing.T) { qCompare(t, srv, call, 1e-5, 1e-6) })
		}
	}
	for _, tc := range []struct {
		dft, rate, bins int
		lo, hi          float64
	}{{64, 16000, 8, 0, 8000}, {512, 22050, 40, 20, 11000}, {16, 8000, 3, 100, 3900}, {8, 100, 20, 0, 50}} {
		call := &wgrt.Call{Kernel: "MelWeightMatrix", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, tc.dft/2+1, tc.bins)},
			Attrs: []wgrt.Attr{qInt("dft_length", tc.dft), qInt("sample_rate", tc.rate), qFloat("lower_edge_hertz", tc.lo), qFloat("upper_edge_hertz", tc.hi)}}
		t.Run(fmt.Sprintf("mel_%v", tc), func(t *testing.T) { qCompare(t, srv, call, 1e-6, 1e-7) })
	}
}

func TestDetCpp(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(8))
	for _, shape := range [][]int{{1, 1}, {3, 3}, {5, 5}, {2, 3, 4, 4}, {2, 0, 0}, {20, 20}} {
		for _, strided := range []bool{false, true} {
			vals := func(int) float64 { return 2*r.Float64() - 1 }
			x := qTensor(wgrt.F64, shape, vals)
			if strided {
				x = qTransposed(wgrt.F64, shape, vals)
			}
			m := shape[len(shape)-1]
			call := &wgrt.Call{Kernel: "Det", Outputs: []wgrt.Tensor{newTensor(wgrt.F64, shape[:len(shape)-2]...)}, Inputs: []wgrt.Tensor{x},
				Scratch: make([]byte, 8*m*m+8)}
			t.Run(fmt.Sprintf("%v_%v", shape, strided), func(t *testing.T) { qCompare(t, srv, call, 1e-9, 1e-12) })
		}
	}
	// A singular matrix, and float32 without scratch.
	x := qTensor(wgrt.F32, []int{3, 3}, func(i int) float64 { return float64(i % 3) })
	call := &wgrt.Call{Kernel: "Det", Outputs: []wgrt.Tensor{newTensor(wgrt.F32)}, Inputs: []wgrt.Tensor{x}}
	qCompare(t, srv, call, 0, 0)
	x = randomF32(r, 4, 6, 6)
	call = &wgrt.Call{Kernel: "Det", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, 4)}, Inputs: []wgrt.Tensor{x}}
	qCompare(t, srv, call, 1e-5, 1e-6)
}

func TestTfIdfVectorizerCpp(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(9))
	// 1-grams 2 3 5, 2-grams (2,3) (3,5) (5,7), 3-grams (2,3,5).
	pool := []int{2, 3, 5, 2, 3, 3, 5, 5, 7, 2, 3, 5}
	starts := []int{0, 3, 9, 12}
	indexes := []int{0, 1, 2, 3, 4, 5, 6}
	for _, mode := range []string{"TF", "IDF", "TFIDF"} {
		for _, weights := range []string{"", "0.5,2,1,3,0.25,1.5,4", "1,2"} {
			for _, skips := range []int{0, 1, 3} {
				for _, rank := range []int{1, 2} {
					for _, xd := range []wgrt.DType{wgrt.I32, wgrt.I64} {
						shape, oshape := []int{12}, []int{7}
						if rank == 2 {
							shape, oshape = []int{3, 10}, []int{3, 7}
						}
						x := qTensor(xd, shape, func(int) float64 { return float64([]int{2, 3, 5, 7, 1}[r.Intn(5)]) })
						call := &wgrt.Call{Kernel: "TfIdfVectorizer", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, oshape...)}, Inputs: []wgrt.Tensor{x},
							Attrs: []wgrt.Attr{qStr("mode", mode), qInt("min_gram_length", 1), qInt("max_skip_count", skips),
								qInts("pool", pool...), qInts("pool_starts", starts...), qInts("pool_indexes", indexes...), qStr("weights", weights)}}
						t.Run(fmt.Sprintf("%s_%q_%d_%d_%s", mode, weights, skips, rank, xd), func(t *testing.T) { qCompare(t, srv, call, 0, 0) })
					}
				}
			}
		}
	}
	// From 2-grams on, and a bad weight.
	x := qTensor(wgrt.I64, []int{2, 8}, func(int) float64 { return float64([]int{2, 3, 5, 7}[r.Intn(4)]) })
	call := &wgrt.Call{Kernel: "TfIdfVectorizer", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, 2, 4)}, Inputs: []wgrt.Tensor{x},
		Attrs: []wgrt.Attr{qStr("mode", "TFIDF"), qInt("min_gram_length", 2), qInt("max_skip_count", 2),
			qInts("pool", 2, 3, 3, 5, 5, 7, 2, 3, 5), qInts("pool_starts", 0, 6, 9), qInts("pool_indexes", 0, 1, 2, 3), qStr("weights", "1,x,2,3")}}
	compareWithGo(t, srv, call, 0, 0)
}
