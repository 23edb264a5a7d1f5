package wgref

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The fused kernels are checked against the separate reference kernels
// they stand for, run one after another on the same random data: the
// product, the bias Add (MatMul), the residual Add, then the activation
// (SiLU as Sigmoid and Mul).

// fusedActs are the activations with parameters as the rewrite gives them.
var fusedActs = []struct {
	name        string
	alpha, beta float64
}{
	{"", 0, 0}, {"Relu", 0, 0}, {"Clip", 0, 6}, {"Clip", -0.5, 0.75}, {"HardSigmoid", 1.0 / 6, 0.5},
	{"HardSwish", 0, 0}, {"Sigmoid", 0, 0}, {"SiLU", 0, 0}, {"LeakyRelu", 0.01, 0}, {"Gelu", 0, 0},
}

// run calls a reference kernel, failing the test on an error.
func run(t *testing.T, kernel string, out wgrt.Tensor, ins []wgrt.Tensor, attrs ...wgrt.Attr) {
	t.Helper()
	require.NoError(t, Call(&wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{out}, Inputs: ins, Attrs: attrs}))
}

// separately applies the activation to y (in place) with the unfused
// kernels.
func separately(t *testing.T, y wgrt.Tensor, act string, alpha, beta float64) wgrt.Tensor {
	t.Helper()
	out := wgrt.New(y.DType, y.Shape...)
	switch act {
	case "":
		return y
	case "Relu", "HardSwish", "Sigmoid":
		run(t, act, out, []wgrt.Tensor{y})
	case "Clip":
		run(t, act, out, []wgrt.Tensor{y}, floatAttr("min", alpha), floatAttr("max", beta))
	case "HardSigmoid":
		run(t, act, out, []wgrt.Tensor{y}, floatAttr("alpha", alpha), floatAttr("beta", beta))
	case "LeakyRelu":
		run(t, act, out, []wgrt.Tensor{y}, floatAttr("alpha", alpha))
	case "SiLU":
		s := wgrt.New(y.DType, y.Shape...)
		run(t, "Sigmoid", s, []wgrt.Tensor{y})
		run(t, "Mul", out, []wgrt.Tensor{y, s})
	case "Gelu":
		// As PyTorch exports it: (y * (Erf(y / √2) + 1)) * 0.5.
		scalar := func(v float32) wgrt.Tensor { return wgrt.FromFloat32s([]float32{v}) }
		a, b, c, d := wgrt.New(y.DType, y.Shape...), wgrt.New(y.DType, y.Shape...), wgrt.New(y.DType, y.Shape...), wgrt.New(y.DType, y.Shape...)
		run(t, "Div", a, []wgrt.Tensor{y, scalar(1.4142135)})
		run(t, "Erf", b, []wgrt.Tensor{a})
		run(t, "Add", c, []wgrt.Tensor{b, scalar(1)})
		run(t, "Mul", d, []wgrt.Tensor{y, c})
		run(t, "Mul", out, []wgrt.Tensor{d, scalar(0.5)})
	}
	return out
}

func actAttrs(act string, alpha, beta float64) []wgrt.Attr {
	return []wgrt.Attr{{Name: "activation", Kind: wgrt.AttrString, Str: act}, floatAttr("activation_alpha", alpha), floatAttr("activation_beta", beta)}
}

// closeTo asserts the fused result equals the separate one up to float32
// rounding of sums taken in another order.
func closeTo(t *testing.T, want, got wgrt.Tensor, what string) {
	t.Helper()
	require.Equal(t, want.Shape, got.Shape, what)
	w, g := elemsOf(want), elemsOf(got)
	for i := range w {
		if math.Abs(w[i]-g[i]) > 2e-5*(1+math.Abs(w[i])) {
			assert.Failf(t, "fused and separate kernels differ", "%s: element %d: separate %g, fused %g", what, i, w[i], g[i])
			return
		}
	}
}

func elemsOf(t wgrt.Tensor) []float64 {
	out := make([]float64, t.NumElements())
	for i := range out {
		out[i] = loadF(t, i)
	}
	return out
}

func randomOf(r *rand.Rand, dt wgrt.DType, shape ...int) wgrt.Tensor {
	t := wgrt.New(dt, shape...)
	for i := 0; i < t.NumElements(); i++ {
		storeF(t, i, float64(r.Float32()*4-2))
	}
	return t
}

func TestFusedConvMatchesSeparateKernels(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	type convCase struct {
		x, w               []int
		group, stride, pad int
		kernel             int
	}
	cases := []convCase{
		{x: []int{2, 6, 7, 9}, w: []int{5, 6, 3, 3}, group: 1, stride: 1, pad: 1, kernel: 3},
		{x: []int{1, 4, 9, 8}, w: []int{6, 2, 3, 3}, group: 2, stride: 2, pad: 1, kernel: 3},
		{x: []int{2, 3, 5, 5}, w: []int{7, 3, 1, 1}, group: 1, stride: 1, pad: 0, kernel: 1}, // 1x1: straight to GEMM
		// Depthwise, as MobileNet's: tap rows, then the activation.
		{x: []int{2, 6, 9, 8}, w: []int{6, 1, 3, 3}, group: 6, stride: 1, pad: 1, kernel: 3},
		{x: []int{1, 5, 11, 10}, w: []int{10, 1, 5, 5}, group: 5, stride: 2, pad: 2, kernel: 5},
	}
	for _, dt := range []wgrt.DType{wgrt.F32, wgrt.F64} {
		for ci, cc := range cases {
			x, w := randomOf(r, dt, cc.x...), randomOf(r, dt, cc.w...)
			bias := randomOf(r, dt, cc.w[0])
			oh := (cc.x[2]+2*cc.pad-cc.kernel)/cc.stride + 1
			ow := (cc.x[3]+2*cc.pad-cc.kernel)/cc.stride + 1
			shape := []int{cc.x[0], cc.w[0], oh, ow}
			attrs := []wgrt.Attr{intsAttr("kernel_shape", cc.kernel, cc.kernel), intsAttr("strides", cc.stride, cc.stride),
				intsAttr("pads", cc.pad, cc.pad, cc.pad, cc.pad), intsAttr("dilations", 1, 1), intAttr("group", cc.group)}
			for _, withBias := range []bool{false, true} {
				for _, withSum := range []bool{false, true} {
					for _, a := range fusedActs {
						for _, inPlace := range []bool{false, true} {
							if inPlace && !withSum {
								continue
							}
							what := fmt.Sprintf("%s case %d bias %v sum %v act %q in place %v", dt, ci, withBias, withSum, a.name, inPlace)
							ins := []wgrt.Tensor{x, w}
							if withBias {
								ins = append(ins, bias)
							}
							conv := wgrt.New(dt, shape...)
							run(t, "Conv", conv, ins, attrs...)
							sum := randomOf(r, dt, shape...)
							pre := conv
							if withSum {
								pre = wgrt.New(dt, shape...)
								run(t, "Add", pre, []wgrt.Tensor{conv, sum})
								ins = append(ins, sum)
							}
							want := separately(t, pre, a.name, a.alpha, a.beta)
							out := wgrt.New(dt, shape...)
							if inPlace {
								out = clone(sum)
								ins[len(ins)-1] = out
							}
							err := Call(&wgrt.Call{Kernel: "FusedConv", Outputs: []wgrt.Tensor{out}, Inputs: ins, Attrs: append(attrs[:5:5], actAttrs(a.name, a.alpha, a.beta)...)})
							if inPlace && dt != wgrt.F32 {
								// The long way computes the product into the
								// output first: it refuses to run in place.
								require.ErrorContains(t, err, "shares memory", what)
								continue
							}
							require.NoError(t, err, what)
							closeTo(t, want, out, what)
						}
					}
				}
			}
		}
	}
}

func TestFusedGemmMatchesSeparateKernels(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	const m, k, n = 7, 11, 19
	for _, transB := range []int{0, 1} {
		for _, cShape := range [][]int{nil, {n}, {m, 1}, {m, n}} {
			for _, ab := range [][2]float64{{1, 1}, {0.5, 0.25}} {
				for _, a := range fusedActs {
					for _, inPlace := range []bool{false, true} {
						what := fmt.Sprintf("transB %d C %v alpha/beta %v act %q in place %v", transB, cShape, ab, a.name, inPlace)
						A := randomOf(r, wgrt.F32, m, k)
						B := randomOf(r, wgrt.F32, k, n)
						if transB == 1 {
							B = randomOf(r, wgrt.F32, n, k)
						}
						attrs := []wgrt.Attr{floatAttr("alpha", ab[0]), floatAttr("beta", ab[1]), intAttr("transA", 0), intAttr("transB", transB)}
						ins := []wgrt.Tensor{A, B}
						if cShape != nil {
							ins = append(ins, randomOf(r, wgrt.F32, cShape...))
						}
						g := wgrt.New(wgrt.F32, m, n)
						run(t, "Gemm", g, ins, attrs...)
						sum := randomOf(r, wgrt.F32, m, n)
						pre := wgrt.New(wgrt.F32, m, n)
						run(t, "Add", pre, []wgrt.Tensor{g, sum})
						want := separately(t, pre, a.name, a.alpha, a.beta)
						if cShape == nil {
							// Without C the sum is the third input: C, at beta 1.
							attrs[1] = floatAttr("beta", 1)
						}
						ins = append(ins, sum)
						out := wgrt.New(wgrt.F32, m, n)
						if inPlace {
							out = clone(sum)
							ins[len(ins)-1] = out
						}
						require.NoError(t, Call(&wgrt.Call{Kernel: "FusedGemm", Outputs: []wgrt.Tensor{out}, Inputs: ins, Attrs: append(attrs, actAttrs(a.name, a.alpha, a.beta)...)}), what)
						closeTo(t, want, out, what)
					}
				}
			}
		}
	}
}

func TestFusedMatMulMatchesSeparateKernels(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	const m, k, n = 5, 9, 21
	for _, aShape := range [][]int{{m, k}, {2, m, k}, {k}} {
		for _, withBias := range []bool{false, true} {
			for _, withSum := range []bool{false, true} {
				for _, a := range fusedActs {
					for _, inPlace := range []bool{false, true} {
						if inPlace && !withSum || !withBias && !withSum && a.name == "" {
							continue
						}
						what := fmt.Sprintf("a %v bias %v sum %v act %q in place %v", aShape, withBias, withSum, a.name, inPlace)
						A, B := randomOf(r, wgrt.F32, aShape...), randomOf(r, wgrt.F32, k, n)
						shape := append(append([]int(nil), aShape[:len(aShape)-1]...), n)
						pre := wgrt.New(wgrt.F32, shape...)
						run(t, "MatMul", pre, []wgrt.Tensor{A, B})
						ins := []wgrt.Tensor{A, B}
						if withBias {
							bias := randomOf(r, wgrt.F32, n)
							next := wgrt.New(wgrt.F32, shape...)
							run(t, "Add", next, []wgrt.Tensor{pre, bias})
							pre = next
							ins = append(ins, bias)
						}
						sum := randomOf(r, wgrt.F32, shape...)
						if withSum {
							next := wgrt.New(wgrt.F32, shape...)
							run(t, "Add", next, []wgrt.Tensor{pre, sum})
							pre = next
							ins = append(ins, sum)
						}
						want := separately(t, pre, a.name, a.alpha, a.beta)
						out := wgrt.New(wgrt.F32, shape...)
						if inPlace {
							out = clone(sum)
							ins[len(ins)-1] = out
						}
						require.NoError(t, Call(&wgrt.Call{Kernel: "FusedMatMul", Outputs: []wgrt.Tensor{out}, Inputs: ins, Attrs: actAttrs(a.name, a.alpha, a.beta)}), what)
						closeTo(t, want, out, what)
					}
				}
			}
		}
	}
}

// A fused kernel given its scratch allocates nothing.
func TestFusedConvAllocatesNothing(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	x, w, b := randomOf(r, wgrt.F32, 1, 8, 10, 10), randomOf(r, wgrt.F32, 8, 8, 3, 3), randomOf(r, wgrt.F32, 8)
	out := randomOf(r, wgrt.F32, 1, 8, 10, 10)
	c := &wgrt.Call{Kernel: "FusedConv", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x, w, b, out},
		Attrs: append([]wgrt.Attr{intsAttr("kernel_shape", 3, 3), intsAttr("strides", 1, 1), intsAttr("pads", 1, 1, 1, 1),
			intsAttr("dilations", 1, 1), intAttr("group", 1)}, actAttrs("Relu", 0, 0)...),
		Scratch: make([]byte, 4*convPackFloats(x.Shape, w.Shape, out.Shape, 1, false, false))}
	allocs := testing.AllocsPerRun(5, func() {
		if err := Call(c); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}

// Bad operands are errors naming the kernel, not panics.
func TestFusedKernelErrors(t *testing.T) {
	x, w := wgrt.New(wgrt.F32, 1, 2, 4, 4), wgrt.New(wgrt.F32, 3, 2, 1, 1)
	attrs := []wgrt.Attr{intsAttr("kernel_shape", 1, 1), intsAttr("strides", 1, 1), intsAttr("pads", 0, 0, 0, 0), intsAttr("dilations", 1, 1), intAttr("group", 1)}
	call := func(kernel string, out wgrt.Tensor, ins []wgrt.Tensor, attrs []wgrt.Attr) error {
		return Call(&wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{out}, Inputs: ins, Attrs: attrs})
	}
	out := wgrt.New(wgrt.F32, 1, 3, 4, 4)
	assert.ErrorContains(t, call("FusedConv", out, []wgrt.Tensor{x, w}, append(attrs, actAttrs("Tanh", 0, 0)...)), `FusedConv: unknown activation "Tanh"`)
	assert.ErrorContains(t, call("FusedConv", out, []wgrt.Tensor{x, w}, attrs), `FusedConv: attribute "activation" is missing`)
	assert.ErrorContains(t, call("FusedConv", out, []wgrt.Tensor{x, w, wgrt.New(wgrt.F32, 5)}, append(attrs, actAttrs("", 0, 0)...)), "FusedConv: input [1 2 4 4], weight [3 2 1 1], bias and output [1 3 4 4] do not fit")
	assert.ErrorContains(t, call("FusedConv", out, []wgrt.Tensor{x, w, wgrt.New(wgrt.F32, 3), wgrt.New(wgrt.F32, 1, 3, 4, 5)}, append(attrs, actAttrs("", 0, 0)...)), "FusedConv: sum of shape [1 3 4 5], the output is [1 3 4 4]")
	assert.ErrorContains(t, call("FusedMatMul", wgrt.New(wgrt.F32, 2, 3), []wgrt.Tensor{wgrt.New(wgrt.F32, 2, 4), wgrt.New(wgrt.F32, 4, 3), wgrt.New(wgrt.F32, 2)}, actAttrs("", 0, 0)), "FusedMatMul: bias of shape [2] does not broadcast to [2 3]")
}

// A FusedConv with a residual sum gives the same bits in place (the output
// is the sum's memory, as the planner may choose) as into memory of its
// own: the planner's aliasing must not change a number. Depths past one
// block of k included.
func TestFusedConvSumInPlaceSameBits(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, ch := range []int{3, 300, 600} {
		x, w := randomOf(r, wgrt.F32, 1, ch, 9, 11), randomOf(r, wgrt.F32, 24, ch, 3, 3)
		bias, sum := randomOf(r, wgrt.F32, 24), randomOf(r, wgrt.F32, 1, 24, 9, 11)
		attrs := append([]wgrt.Attr{intsAttr("kernel_shape", 3, 3), intsAttr("strides", 1, 1), intsAttr("pads", 1, 1, 1, 1),
			intsAttr("dilations", 1, 1), intAttr("group", 1)}, actAttrs("Relu", 0, 0)...)
		call := func(out wgrt.Tensor, s wgrt.Tensor) []float32 {
			c := &wgrt.Call{Kernel: "FusedConv", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x, w, bias, s}, Attrs: attrs,
				Scratch: make([]byte, 4*convPackFloats(x.Shape, w.Shape, out.Shape, 1, false, false))}
			require.NoError(t, Call(c))
			return out.Float32s()
		}
		apart := call(wgrt.New(wgrt.F32, 1, 24, 9, 11), sum)
		own := clone(sum)
		inPlace := call(own, own)
		for i := range apart {
			require.Equal(t, math.Float32bits(apart[i]), math.Float32bits(inPlace[i]), "%d channels: element %d", ch, i)
		}
	}
}

// A fused pointwise convolution of at most four output channels (whose
// product runs row by row, gemvRows) still adds its bias and applies its
// activation: it did not, before.
func TestFusedPointwiseFewChannels(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	x := randomOf(r, wgrt.F32, 2, 8, 6, 6)
	attrs := []wgrt.Attr{intsAttr("kernel_shape", 1, 1), intsAttr("strides", 1, 1), intsAttr("pads", 0, 0, 0, 0), intsAttr("dilations", 1, 1), intAttr("group", 1)}
	for _, m := range []int{1, 3, 4} {
		for _, a := range fusedActs {
			w, b := randomOf(r, wgrt.F32, m, 8, 1, 1), randomOf(r, wgrt.F32, m)
			y := wgrt.New(wgrt.F32, 2, m, 6, 6)
			run(t, "Conv", y, []wgrt.Tensor{x, w, b}, attrs...)
			out := wgrt.New(wgrt.F32, 2, m, 6, 6)
			run(t, "FusedConv", out, []wgrt.Tensor{x, w, b}, append(slices.Clone(attrs), actAttrs(a.name, a.alpha, a.beta)...)...)
			closeTo(t, separately(t, y, a.name, a.alpha, a.beta), out, fmt.Sprintf("%d channels, %q", m, a.name))
		}
	}
}
