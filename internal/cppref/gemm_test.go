package cppref

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The C++ Sgemm (templates/wgref/gemm.cc) through MatMul and Gemm against
// the Go kernels, at sizes that reach every edge of its micro-kernels
// and blocking (rows and columns 1..70, depth up to 600), with transposed,
// strided and broadcast operands, on each of its paths (WGREF_ISA caps the
// micro-kernel the server picks: portable, avx2, avx512; a path the CPU
// lacks falls back to the next one it has), at one and two threads, the
// two required to give the same bits.

// isaPaths are the WGREF_ISA values the tests run the server with.
var isaPaths = []string{"portable", "avx2", "avx512"}

func gemmIntAttr(name string, v int) wgrt.Attr {
	return wgrt.Attr{Name: name, Kind: wgrt.AttrInt, Int: v}
}

func gemmFloatAttr(name string, v float64) wgrt.Attr {
	return wgrt.Attr{Name: name, Kind: wgrt.AttrFloat, Float: v}
}

// viewF32 is a random f32 matrix view of shape [rows, cols] laid out as
// asked: "row" row-major, "trans" the transpose of a row-major [cols,
// rows], "gap" rows a few floats apart.
func gemmView(r *rand.Rand, layout string, batch []int, rows, cols int) wgrt.Tensor {
	shape := append(append([]int(nil), batch...), rows, cols)
	strides := make([]int, len(shape))
	nb := len(batch)
	var mat int
	switch layout {
	case "trans":
		strides[nb], strides[nb+1] = 1, rows
		mat = rows * cols
	case "gap":
		strides[nb], strides[nb+1] = cols+3, 1
		mat = rows * (cols + 3)
	default:
		strides[nb], strides[nb+1] = cols, 1
		mat = rows * cols
	}
	total := mat
	for i := nb - 1; i >= 0; i-- {
		strides[i] = total
		total *= shape[i]
	}
	t := wgrt.Tensor{DType: wgrt.F32, Shape: shape, Strides: strides, Device: "cpu", Data: make([]byte, 4*total)}
	for i := 0; i < total; i++ {
		binary.LittleEndian.PutUint32(t.Data[4*i:], math.Float32bits(2*r.Float32()-1))
	}
	return t
}

// sameBitsAtThreads runs call through the C++ kernels at one and two
// threads and requires the same output bytes.
func sameBitsAtThreads(t *testing.T, srv *Server, call *wgrt.Call, what string) {
	t.Helper()
	var got [2][]byte
	for i, threads := range []int{1, 2} {
		cc := *call
		cc.Threads = threads
		cc.Outputs = cloneOutputs(call.Outputs)
		require.NoError(t, srv.Call(&cc), what)
		got[i] = cc.Outputs[0].Data
	}
	require.True(t, bytes.Equal(got[0], got[1]), "%s: one and two threads give different bits", what)
}

// dims are sizes around the micro-kernels' tiles (6, 8, 12, 16, 32) and
// the blocks (72 rows, 288 columns; k 256).
var (
	gemmDims  = []int{1, 2, 3, 5, 6, 7, 8, 9, 12, 13, 16, 17, 23, 31, 32, 33, 47, 64, 70}
	gemmDepth = []int{1, 2, 7, 16, 63, 255, 256, 257, 600}
)

func TestSgemmMatMulMatchesGo(t *testing.T) {
	for _, isa := range isaPaths {
		t.Run(isa, func(t *testing.T) {
			t.Setenv("WGREF_ISA", isa)
			srv := startServer(t)
			r := rand.New(rand.NewSource(7))
			layouts := []string{"row", "trans", "gap"}
			for i := 0; i < 60; i++ {
				m, n, k := gemmDims[r.Intn(len(gemmDims))], gemmDims[r.Intn(len(gemmDims))], gemmDepth[r.Intn(len(gemmDepth))]
				if i < 8 { // the largest
					m, n = 70-i, 70-2*i
				}
				la, lb := layouts[r.Intn(3)], layouts[r.Intn(3)]
				a, b := gemmView(r, la, nil, m, k), gemmView(r, lb, nil, k, n)
				what := fmt.Sprintf("%s MatMul %dx%dx%d A %s B %s", isa, m, n, k, la, lb)
				for _, threads := range []int{1, 2} {
					call := &wgrt.Call{Kernel: "MatMul", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, m, n)}, Inputs: []wgrt.Tensor{a, b}, Threads: threads}
					compareWithGo(t, srv, call, 1e-4, 1e-4)
				}
				sameBitsAtThreads(t, srv, &wgrt.Call{Kernel: "MatMul", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, m, n)}, Inputs: []wgrt.Tensor{a, b}}, what)
			}
		})
	}
}

func TestSgemmMatMulBatchAndVectors(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(8))
	type mmCase struct{ a, b, out []int }
	cases := []mmCase{
		{[]int{2, 1, 13, 37}, []int{3, 37, 17}, []int{2, 3, 13, 17}},
		{[]int{4, 9, 70}, []int{70, 33}, []int{4, 9, 33}}, // B shared: one product of 36 rows
		{[]int{1, 5, 300}, []int{6, 300, 1}, []int{6, 5, 1}},
		{[]int{37}, []int{37, 19}, []int{19}},
		{[]int{3, 41}, []int{41}, []int{3}},
		{[]int{600}, []int{600}, []int{}},
		{[]int{2, 64, 9}, []int{2, 9, 70}, []int{2, 64, 70}},
		{[]int{1, 2}, []int{5, 2, 70}, []int{5, 1, 70}},
	}
	for _, cc := range cases {
		for _, threads := range []int{1, 2} {
			a, b := randomF32(r, cc.a...), randomF32(r, cc.b...)
			call := &wgrt.Call{Kernel: "MatMul", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, cc.out...)}, Inputs: []wgrt.Tensor{a, b}, Threads: threads}
			compareWithGo(t, srv, call, 1e-4, 1e-4)
		}
	}
	// Other dtypes: the float64 and integer paths.
	for _, dt := range []wgrt.DType{wgrt.F64, wgrt.I32, wgrt.I64} {
		a, b := newTensor(dt, 2, 3, 7), newTensor(dt, 7, 5)
		for i := 0; i < a.NumElements(); i++ {
			gemmPut(a, i, float64(r.Intn(11)-5))
		}
		for i := 0; i < b.NumElements(); i++ {
			gemmPut(b, i, float64(r.Intn(11)-5))
		}
		compareWithGo(t, srv, &wgrt.Call{Kernel: "MatMul", Outputs: []wgrt.Tensor{newTensor(dt, 2, 3, 5)}, Inputs: []wgrt.Tensor{a, b}}, 1e-12, 0)
	}
	// A strided output: the naive float path.
	out := newTensor(wgrt.F32, 9, 11)
	out.Shape, out.Strides = []int{11, 9}, []int{1, 11}
	compareWithGo(t, srv, &wgrt.Call{Kernel: "MatMul", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{randomF32(r, 11, 5), randomF32(r, 5, 9)}}, 1e-5, 1e-6)
	// Errors: inner sizes, batch shapes.
	compareWithGo(t, srv, &wgrt.Call{Kernel: "MatMul", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, 3, 4)}, Inputs: []wgrt.Tensor{randomF32(r, 3, 5), randomF32(r, 6, 4)}}, 0, 0)
	compareWithGo(t, srv, &wgrt.Call{Kernel: "MatMul", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, 3, 3, 4)}, Inputs: []wgrt.Tensor{randomF32(r, 2, 3, 5), randomF32(r, 3, 5, 4)}}, 0, 0)
}

func gemmPut(t wgrt.Tensor, i int, v float64) {
	switch t.DType {
	case wgrt.F64:
		binary.LittleEndian.PutUint64(t.Data[8*i:], math.Float64bits(v))
	case wgrt.I64:
		binary.LittleEndian.PutUint64(t.Data[8*i:], uint64(int64(v)))
	case wgrt.I32:
		binary.LittleEndian.PutUint32(t.Data[4*i:], uint32(int32(v)))
	case wgrt.F32:
		binary.LittleEndian.PutUint32(t.Data[4*i:], math.Float32bits(float32(v)))
	}
}

func TestSgemmGemmMatchesGo(t *testing.T) {
	for _, isa := range isaPaths {
		t.Run(isa, func(t *testing.T) {
			t.Setenv("WGREF_ISA", isa)
			srv := startServer(t)
			r := rand.New(rand.NewSource(9))
			for i := 0; i < 40; i++ {
				m, n, k := gemmDims[r.Intn(len(gemmDims))], gemmDims[r.Intn(len(gemmDims))], gemmDepth[r.Intn(len(gemmDepth))]
				ta, tb := r.Intn(2), r.Intn(2)
				ashape, bshape := []int{m, k}, []int{k, n}
				if ta == 1 {
					ashape = []int{k, m}
				}
				if tb == 1 {
					bshape = []int{n, k}
				}
				ab := [][2]float64{{1, 1}, {0.5, 2}, {1, 0}, {-1.5, 0.25}}[r.Intn(4)]
				ins := []wgrt.Tensor{randomF32(r, ashape...), randomF32(r, bshape...)}
				switch r.Intn(5) {
				case 1:
					ins = append(ins, randomF32(r, n))
				case 2:
					ins = append(ins, randomF32(r, m, 1))
				case 3:
					ins = append(ins, randomF32(r, m, n))
				case 4:
					ins = append(ins, randomF32(r))
				}
				attrs := []wgrt.Attr{gemmFloatAttr("alpha", ab[0]), gemmFloatAttr("beta", ab[1]), gemmIntAttr("transA", ta), gemmIntAttr("transB", tb)}
				for _, threads := range []int{1, 2} {
					call := &wgrt.Call{Kernel: "Gemm", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, m, n)}, Inputs: ins, Attrs: attrs, Threads: threads}
					compareWithGo(t, srv, call, 1e-4, 1e-4)
				}
				sameBitsAtThreads(t, srv, &wgrt.Call{Kernel: "Gemm", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, m, n)}, Inputs: ins, Attrs: attrs},
					fmt.Sprintf("%s Gemm %dx%dx%d", isa, m, n, k))
			}
		})
	}
}

// TestSgemmLarge runs products past one block in every direction, at two
// threads, where the threads split the tiles.
func TestSgemmLarge(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(10))
	for _, s := range [][3]int{{150, 200, 300}, {64, 400, 576}, {300, 40, 70}} {
		a, b := randomF32(r, s[0], s[2]), randomF32(r, s[2], s[1])
		call := &wgrt.Call{Kernel: "MatMul", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, s[0], s[1])}, Inputs: []wgrt.Tensor{a, b}, Threads: 2}
		compareWithGo(t, srv, call, 1e-4, 1e-4)
		sameBitsAtThreads(t, srv, call, fmt.Sprint("MatMul ", s))
	}
	// Gemm with f64 operands: the float64 path.
	a, b := newTensor(wgrt.F64, 4, 6), newTensor(wgrt.F64, 6, 3)
	for i := 0; i < 24; i++ {
		gemmPut(a, i, r.Float64())
	}
	for i := 0; i < 18; i++ {
		gemmPut(b, i, r.Float64())
	}
	compareWithGo(t, srv, &wgrt.Call{Kernel: "Gemm", Outputs: []wgrt.Tensor{newTensor(wgrt.F64, 4, 3)}, Inputs: []wgrt.Tensor{a, b},
		Attrs: []wgrt.Attr{gemmFloatAttr("alpha", 0.5)}}, 1e-12, 0)
}
