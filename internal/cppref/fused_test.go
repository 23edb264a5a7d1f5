package cppref

import (
	"math/rand"
	"testing"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The fused kernels (templates/wgref/fused.cc) against the Go ones: every
// activation, with and without the bias and the sum, on the float32 block
// epilogue's paths and the long float64 way.

var fusedActivations = []struct {
	name        string
	alpha, beta float64
}{
	{"", 0, 0}, {"Relu", 0, 0}, {"Clip", 0, 6}, {"Clip", -0.5, 0.75}, {"HardSigmoid", 1.0 / 6, 0.5},
	{"HardSwish", 0, 0}, {"Sigmoid", 0, 0}, {"SiLU", 0, 0}, {"LeakyRelu", 0.01, 0}, {"Gelu", 0, 0},
}

func fusedActAttrs(name string, alpha, beta float64) []wgrt.Attr {
	return []wgrt.Attr{{Name: "activation", Kind: wgrt.AttrString, Str: name}, gemmFloatAttr("activation_alpha", alpha),
		gemmFloatAttr("activation_beta", beta)}
}

func fusedIntsAttr(name string, v ...int) wgrt.Attr {
	return wgrt.Attr{Name: name, Kind: wgrt.AttrInts, Ints: v}
}

// randomOfDType is a row-major tensor of values in [-2, 2).
func randomOfDType(r *rand.Rand, dt wgrt.DType, shape ...int) wgrt.Tensor {
	t := newTensor(dt, shape...)
	for i := 0; i < t.NumElements(); i++ {
		gemmPut(t, i, float64(r.Float32()*4-2))
	}
	return t
}

func TestFusedConvMatchesGo(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(11))
	type convCase struct {
		x, w                       []int
		group, stride, pad, kernel int
	}
	cases := []convCase{
		{x: []int{2, 6, 7, 9}, w: []int{5, 6, 3, 3}, group: 1, stride: 1, pad: 1, kernel: 3},
		{x: []int{1, 4, 9, 8}, w: []int{6, 2, 3, 3}, group: 2, stride: 2, pad: 1, kernel: 3},
		{x: []int{2, 3, 5, 5}, w: []int{7, 3, 1, 1}, group: 1, stride: 1, pad: 0, kernel: 1}, // 1x1: products into the sum
		{x: []int{1, 8, 6, 7}, w: []int{4, 4, 1, 1}, group: 2, stride: 1, pad: 0, kernel: 1},
		{x: []int{2, 6, 9, 8}, w: []int{6, 1, 3, 3}, group: 6, stride: 1, pad: 1, kernel: 3}, // depthwise
		{x: []int{1, 5, 11, 10}, w: []int{10, 1, 5, 5}, group: 5, stride: 2, pad: 2, kernel: 5},
	}
	for _, dt := range []wgrt.DType{wgrt.F32, wgrt.F64} {
		for _, cc := range cases {
			oh := (cc.x[2]+2*cc.pad-cc.kernel)/cc.stride + 1
			ow := (cc.x[3]+2*cc.pad-cc.kernel)/cc.stride + 1
			shape := []int{cc.x[0], cc.w[0], oh, ow}
			attrs := []wgrt.Attr{fusedIntsAttr("kernel_shape", cc.kernel, cc.kernel), fusedIntsAttr("strides", cc.stride, cc.stride),
				fusedIntsAttr("pads", cc.pad, cc.pad, cc.pad, cc.pad), fusedIntsAttr("dilations", 1, 1), gemmIntAttr("group", cc.group)}
			for _, withBias := range []bool{false, true} {
				for _, withSum := range []bool{false, true} {
					for _, a := range fusedActivations {
						ins := []wgrt.Tensor{randomOfDType(r, dt, cc.x...), randomOfDType(r, dt, cc.w...)}
						if withBias {
							ins = append(ins, randomOfDType(r, dt, cc.w[0]))
						}
						if withSum {
							ins = append(ins, randomOfDType(r, dt, shape...))
						}
						call := &wgrt.Call{Kernel: "FusedConv", Outputs: []wgrt.Tensor{newTensor(dt, shape...)}, Inputs: ins,
							Attrs: append(attrs[:5:5], fusedActAttrs(a.name, a.alpha, a.beta)...), Threads: 1 + r.Intn(2)}
						compareWithGo(t, srv, call, 1e-4, 1e-4)
					}
				}
			}
		}
	}
	// A strided weight: the long way in float32.
	w := randomOfDType(r, wgrt.F32, 3, 5, 4, 2) // [kh][kw] swapped below
	w.Shape, w.Strides = []int{3, 5, 2, 4}, []int{40, 8, 1, 2}
	attrs := []wgrt.Attr{fusedIntsAttr("kernel_shape", 2, 4), fusedIntsAttr("strides", 1, 1), fusedIntsAttr("pads", 0, 1, 0, 1),
		fusedIntsAttr("dilations", 1, 1), gemmIntAttr("group", 1)}
	call := &wgrt.Call{Kernel: "FusedConv", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, 1, 3, 5, 7)},
		Inputs: []wgrt.Tensor{randomOfDType(r, wgrt.F32, 1, 5, 6, 7), w, randomOfDType(r, wgrt.F32, 1, 3, 5, 7)},
		Attrs:  append(attrs, fusedActAttrs("Relu", 0, 0)...)}
	compareWithGo(t, srv, call, 1e-4, 1e-4)
	// An unknown activation.
	call.Attrs = append(attrs, fusedActAttrs("Tanh", 0, 0)...)
	compareWithGo(t, srv, call, 0, 0)
}

func TestFusedGemmMatchesGo(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(12))
	for _, size := range [][3]int{{7, 19, 11}, {33, 70, 257}} {
		m, n, k := size[0], size[1], size[2]
		for _, transB := range []int{0, 1} {
			for _, cShape := range [][]int{nil, {n}, {m, 1}, {m, n}, {}} {
				for _, ab := range [][2]float64{{1, 1}, {0.5, 0.25}, {2, 0}} {
					for _, withSum := range []bool{false, true} {
						for _, a := range fusedActivations {
							bshape := []int{k, n}
							if transB == 1 {
								bshape = []int{n, k}
							}
							ins := []wgrt.Tensor{randomF32(r, m, k), randomF32(r, bshape...)}
							if cShape != nil {
								ins = append(ins, randomF32(r, cShape...))
							}
							if withSum {
								ins = append(ins, randomF32(r, m, n))
							}
							attrs := []wgrt.Attr{gemmFloatAttr("alpha", ab[0]), gemmFloatAttr("beta", ab[1]), gemmIntAttr("transA", 0),
								gemmIntAttr("transB", transB)}
							call := &wgrt.Call{Kernel: "FusedGemm", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, m, n)}, Inputs: ins,
								Attrs: append(attrs, fusedActAttrs(a.name, a.alpha, a.beta)...), Threads: 1 + r.Intn(2)}
							compareWithGo(t, srv, call, 1e-4, 1e-4)
						}
					}
				}
			}
		}
	}
	// float64: the long way; a strided output too.
	ins := []wgrt.Tensor{randomOfDType(r, wgrt.F64, 5, 4), randomOfDType(r, wgrt.F64, 4, 6), randomOfDType(r, wgrt.F64, 6),
		randomOfDType(r, wgrt.F64, 5, 6)}
	compareWithGo(t, srv, &wgrt.Call{Kernel: "FusedGemm", Outputs: []wgrt.Tensor{newTensor(wgrt.F64, 5, 6)}, Inputs: ins,
		Attrs: append([]wgrt.Attr{gemmFloatAttr("alpha", 0.5)}, fusedActAttrs("Gelu", 0, 0)...)}, 1e-9, 1e-12)
	out := newTensor(wgrt.F32, 6, 5)
	out.Shape, out.Strides = []int{5, 6}, []int{1, 5}
	compareWithGo(t, srv, &wgrt.Call{Kernel: "FusedGemm", Outputs: []wgrt.Tensor{out},
		Inputs: []wgrt.Tensor{randomF32(r, 5, 4), randomF32(r, 4, 6), randomF32(r, 6)}, Attrs: fusedActAttrs("SiLU", 0, 0)}, 1e-4, 1e-5)
}

func TestFusedMatMulMatchesGo(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(13))
	type mmCase struct{ a, b, out []int }
	cases := []mmCase{
		{[]int{7, 11}, []int{11, 19}, []int{7, 19}},
		{[]int{2, 5, 40}, []int{40, 33}, []int{2, 5, 33}},
		{[]int{3, 9, 20}, []int{3, 20, 17}, []int{3, 9, 17}},
		{[]int{1, 300}, []int{300, 70}, []int{1, 70}},
	}
	for _, cc := range cases {
		n := cc.out[len(cc.out)-1]
		for _, bias := range [][]int{nil, {n}, {1}, cc.out, {cc.out[len(cc.out)-2], 1}} {
			for _, withSum := range []bool{false, true} {
				for _, a := range fusedActivations {
					ins := []wgrt.Tensor{randomF32(r, cc.a...), randomF32(r, cc.b...)}
					if bias != nil {
						ins = append(ins, randomF32(r, bias...))
					} else if withSum {
						continue // a lone third input is the bias
					}
					if withSum {
						ins = append(ins, randomF32(r, cc.out...))
					}
					call := &wgrt.Call{Kernel: "FusedMatMul", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, cc.out...)}, Inputs: ins,
						Attrs: fusedActAttrs(a.name, a.alpha, a.beta), Threads: 1 + r.Intn(2)}
					compareWithGo(t, srv, call, 1e-4, 1e-4)
				}
			}
		}
	}
	// float64, the long way.
	ins := []wgrt.Tensor{randomOfDType(r, wgrt.F64, 2, 3, 4), randomOfDType(r, wgrt.F64, 4, 5), randomOfDType(r, wgrt.F64, 3, 1),
		randomOfDType(r, wgrt.F64, 2, 3, 5)}
	compareWithGo(t, srv, &wgrt.Call{Kernel: "FusedMatMul", Outputs: []wgrt.Tensor{newTensor(wgrt.F64, 2, 3, 5)}, Inputs: ins,
		Attrs: fusedActAttrs("HardSwish", 0, 0)}, 1e-9, 1e-12)
	// The sum of another shape: an error.
	ins = []wgrt.Tensor{randomF32(r, 3, 4), randomF32(r, 4, 5), randomF32(r, 5), randomF32(r, 3, 1)}
	compareWithGo(t, srv, &wgrt.Call{Kernel: "FusedMatMul", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, 3, 5)}, Inputs: ins,
		Attrs: fusedActAttrs("", 0, 0)}, 0, 0)
}
