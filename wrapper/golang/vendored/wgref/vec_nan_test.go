package wgref

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// pytorchAct is an activation at a special value as PyTorch gives it
// (NaN in, NaN out; the infinities where the result is defined), and
// whether the case is checked (x·gate at -Inf is left aside).
func pytorchAct(act fusedAct, x float64) (float64, bool) {
	inf := math.Inf(1)
	switch {
	case math.IsNaN(x):
		return math.NaN(), true
	case act.kind == "Relu":
		return math.Max(x, 0), true
	case act.kind == "LeakyRelu" && x < 0:
		return act.alpha * x, true
	case act.kind == "Clip":
		return math.Min(math.Max(x, act.alpha), act.beta), true
	case act.kind == "HardSigmoid":
		return math.Max(0, math.Min(1, act.alpha*x+act.beta)), true
	case act.kind == "Sigmoid" && x == inf:
		return 1, true
	case act.kind == "Sigmoid" && x == -inf:
		return 0, true
	case x == -inf && act.kind != "LeakyRelu":
		return 0, false
	case act.kind == "LeakyRelu" || x == inf:
		return x, true
	}
	return 0, false
}

// specials are the values each path is checked at, placed in a vector
// body and in a tail.
var specials = []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}

var nanActs = []fusedAct{{kind: "Relu"}, {kind: "LeakyRelu", alpha: 0.1}, {kind: "Clip", alpha: -0.5, beta: 0.75},
	{kind: "HardSigmoid", alpha: 0.2, beta: 0.5}, {kind: "HardSwish"}, {kind: "Sigmoid"}, {kind: "SiLU"}, {kind: "Gelu"}}

// checkSpecials checks got at the positions of the specials placed in
// src by placeSpecials.
func checkSpecials(t *testing.T, act fusedAct, at []int, src, got []float32, what string) {
	t.Helper()
	for _, i := range at {
		want, ok := pytorchAct(act, float64(src[i]))
		if !ok {
			continue
		}
		if math.IsNaN(want) {
			require.True(t, math.IsNaN(float64(got[i])), "%s %s(%v) at %d: got %v, want NaN", what, act.kind, src[i], i, got[i])
			continue
		}
		require.Equal(t, float32(want), got[i], "%s %s(%v) at %d", what, act.kind, src[i], i)
	}
}

// placeSpecials puts each special in row at a body and a tail position;
// it returns the positions.
func placeSpecials(row []float32, salt int) []int {
	var at []int
	for k, v := range specials {
		for _, i := range []int{(3*k + salt) % min(16, len(row)), len(row) - 1 - k} {
			row[i] = v
			at = append(at, i)
		}
	}
	return at
}

// TestActivationRowsKeepNaN: every row form of every activation (the Go
// form, the assembly rows, the one-pass bias-and-activation finish on each
// vector path) gives NaN for NaN and PyTorch's values at ±Inf. At beeff6f
// Relu gave 0 for NaN on each of them.
func TestActivationRowsKeepNaN(t *testing.T) {
	r := rand.New(rand.NewSource(52))
	for _, act := range nanActs {
		for _, n := range []int{7, 33, 70} {
			src := randFloats(r, n)
			at := placeSpecials(src, n)
			got := make([]float32, n)
			if act.kind != "SiLU" {
				act.rowKernel().rowGo(got, src)
				checkSpecials(t, act, at, src, got, "rowGo")
			}
			copy(got, src)
			act.apply(got)
			checkSpecials(t, act, at, src, got, "apply")
			for _, path := range finishPaths() {
				restore := path.use()
				c := append([]float32(nil), src...)
				e := rowEpilogue{act: act, bias: []float32{0}, biasStride: 0}
				e.finish(c, n, 0, 1, 0, n)
				restore()
				checkSpecials(t, act, at, src, c, "finish "+path.name)
			}
		}
	}
}

// TestActivationKernelsKeepNaN: the activation kernels, float32 and
// float64, give NaN for NaN, as PyTorch (Relu gave 0; ThresholdedRelu and
// Shrink too).
func TestActivationKernelsKeepNaN(t *testing.T) {
	cases := []struct {
		kernel string
		attrs  []wgrt.Attr
	}{
		{"Relu", nil}, {"LeakyRelu", []wgrt.Attr{floatAttr("alpha", 0.1)}}, {"Clip", []wgrt.Attr{floatAttr("min", 0), floatAttr("max", 6)}},
		{"HardSigmoid", []wgrt.Attr{floatAttr("alpha", 0.2), floatAttr("beta", 0.5)}}, {"HardSwish", nil}, {"Sigmoid", nil},
		{"Elu", []wgrt.Attr{floatAttr("alpha", 1)}}, {"Celu", []wgrt.Attr{floatAttr("alpha", 1)}},
		{"Selu", []wgrt.Attr{floatAttr("alpha", 1.67), floatAttr("gamma", 1.05)}},
		{"ThresholdedRelu", []wgrt.Attr{floatAttr("alpha", 1)}}, {"Shrink", []wgrt.Attr{floatAttr("bias", 0), floatAttr("lambd", 0.5)}},
	}
	for _, c := range cases {
		for _, dt := range []wgrt.DType{wgrt.F32, wgrt.F64} {
			for _, n := range []int{1, 19} {
				in := wgrt.New(dt, n)
				for i := 0; i < n; i++ {
					storeF(in, i, math.NaN())
				}
				out := wgrt.New(dt, n)
				run(t, c.kernel, out, []wgrt.Tensor{in}, c.attrs...)
				for i := 0; i < n; i++ {
					require.True(t, math.IsNaN(loadF(out, i)), "%s %s n %d at %d: %v", c.kernel, dt, n, i, loadF(out, i))
				}
			}
		}
	}
}

// TestFusedEpiloguesKeepNaN: a NaN in a fused kernel's input reaches its
// output through every activation, on the block epilogue and the
// micro-kernel's own finish (a convolution large enough for the packed
// GEMM), exactly where the unfused product has one.
func TestFusedEpiloguesKeepNaN(t *testing.T) {
	r := rand.New(rand.NewSource(53))
	x := randomOf(r, wgrt.F32, 1, 16, 12, 12)
	w := randomOf(r, wgrt.F32, 32, 16, 3, 3)
	b := randomOf(r, wgrt.F32, 32)
	xs := elems[float32](x)
	xs[5*144+3*12+4] = float32(math.NaN())
	xs[9*144+10*12+1] = float32(math.Inf(1))
	conv := []wgrt.Attr{intsAttr("kernel_shape", 3, 3), intsAttr("strides", 1, 1), intsAttr("pads", 1, 1, 1, 1), intsAttr("dilations", 1, 1), intAttr("group", 1)}
	plain := wgrt.New(wgrt.F32, 1, 32, 12, 12)
	run(t, "Conv", plain, []wgrt.Tensor{x, w, b}, conv...)
	a := randomOf(r, wgrt.F32, 9, 40)
	bm := randomOf(r, wgrt.F32, 40, 33)
	elems[float32](a)[2*40+7] = float32(math.NaN())
	plainMM := wgrt.New(wgrt.F32, 9, 33)
	run(t, "MatMul", plainMM, []wgrt.Tensor{a, bm})
	for _, act := range nanActs {
		attrs := actAttrs(act.kind, act.alpha, act.beta)
		out := wgrt.New(wgrt.F32, 1, 32, 12, 12)
		run(t, "FusedConv", out, []wgrt.Tensor{x, w, b}, append(append([]wgrt.Attr(nil), conv...), attrs...)...)
		sameNaNs(t, act, elems[float32](plain), elems[float32](out), "FusedConv")
		mm := wgrt.New(wgrt.F32, 9, 33)
		run(t, "FusedMatMul", mm, []wgrt.Tensor{a, bm}, attrs...)
		sameNaNs(t, act, elems[float32](plainMM), elems[float32](mm), "FusedMatMul")
		gm := wgrt.New(wgrt.F32, 9, 33)
		run(t, "FusedGemm", gm, []wgrt.Tensor{a, bm}, attrs...)
		sameNaNs(t, act, elems[float32](plainMM), elems[float32](gm), "FusedGemm")
	}
}

// sameNaNs checks that the fused output is NaN exactly where the
// activation of the unfused product is.
func sameNaNs(t *testing.T, act fusedAct, product, fused []float32, what string) {
	t.Helper()
	nans := 0
	for i, v := range product {
		want, ok := pytorchAct(act, float64(v))
		if !ok || !math.IsNaN(want) && !math.IsInf(float64(v), 0) {
			continue
		}
		if math.IsNaN(want) {
			nans++
			require.True(t, math.IsNaN(float64(fused[i])), "%s %s at %d: got %v, want NaN", what, act.kind, i, fused[i])
		} else {
			require.Equal(t, float32(want), fused[i], "%s %s at %d (product %v)", what, act.kind, i, v)
		}
	}
	require.NotZero(t, nans, fmt.Sprintf("%s: the NaN reached no output", what))
}
