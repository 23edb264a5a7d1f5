package wgref

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The calls whose locals once moved to the heap on every call (issue 55),
// at one and two threads: FusedGemm (a Linear and its activation; alpha 1
// and another), FusedMatMul and FusedConv the long way (float64: the
// producer runs through unfused), and the kernels that lay their output
// out on the stack at a shape read at run time.
func TestSteadyCallsAllocateNothing(t *testing.T) {
	r := rand.New(rand.NewSource(55))
	gemm := func(alpha float64, act string) *wgrt.Call {
		m, n, k := 24, 40, 30
		return &wgrt.Call{Kernel: "FusedGemm", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, m, n)},
			Inputs:  []wgrt.Tensor{randomOf(r, wgrt.F32, m, k), randomOf(r, wgrt.F32, n, k), randomOf(r, wgrt.F32, n)},
			Attrs:   append([]wgrt.Attr{floatAttr("alpha", alpha), floatAttr("beta", 1), intAttr("transA", 0), intAttr("transB", 1)}, actAttrs(act, 0, 0)...),
			Scratch: make([]byte, 4*gemmPackFloats(m, n, k, bStrided))}
	}
	sizes := func(vs ...int64) wgrt.Tensor {
		s := wgrt.New(wgrt.I64, len(vs))
		copy(s.Int64s(), vs)
		return s
	}
	toSizes := []wgrt.Attr{intsAttr("axes", 1), intsAttr("least", 1)}
	calls := map[string]*wgrt.Call{
		"FusedGemm, alpha 1":   gemm(1, "Relu"),
		"FusedGemm, alpha 0.5": gemm(0.5, "Sigmoid"),
		"FusedMatMul, f64": {Kernel: "FusedMatMul", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F64, 6, 5)},
			Inputs: []wgrt.Tensor{randomOf(r, wgrt.F64, 6, 7), randomOf(r, wgrt.F64, 7, 5), randomOf(r, wgrt.F64, 5)}, Attrs: actAttrs("Relu", 0, 0)},
		"FusedConv, f64": {Kernel: "FusedConv", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F64, 1, 3, 5, 5)},
			Inputs: []wgrt.Tensor{randomOf(r, wgrt.F64, 1, 2, 5, 5), randomOf(r, wgrt.F64, 3, 2, 3, 3), randomOf(r, wgrt.F64, 3)},
			Attrs: append([]wgrt.Attr{intsAttr("kernel_shape", 3, 3), intsAttr("strides", 1, 1), intsAttr("pads", 1, 1, 1, 1),
				intsAttr("dilations", 1, 1), intAttr("group", 1)}, actAttrs("Relu", 0, 0)...)},
		"ConstantOfShapeToSizes1": {Kernel: "ConstantOfShapeToSizes1", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 3, 9), wgrt.New(wgrt.I64)},
			Inputs: []wgrt.Tensor{sizes(3, 7)}, Attrs: append([]wgrt.Attr{floatAttr("value", 2)}, toSizes...)},
		"ExpandToSizes1": {Kernel: "ExpandToSizes1", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 3, 9), wgrt.New(wgrt.I64)},
			Inputs: []wgrt.Tensor{randomOf(r, wgrt.F32, 3, 1), sizes(3, 7)}, Attrs: toSizes},
		"ResizeToSizes2": {Kernel: "ResizeToSizes2", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 2, 10, 12), wgrt.New(wgrt.I64), wgrt.New(wgrt.I64)},
			Inputs: []wgrt.Tensor{randomF32(r, 1, 2, 5, 7), sizes(2, 8, 11)}, Attrs: resizeToSizesAttrs(2, 1)},
	}
	defer SetThreads(Threads())
	for _, threads := range []int{1, 2} {
		SetThreads(threads)
		for name, c := range calls {
			require.NoError(t, Call(c), name)
			assert.Zero(t, testing.AllocsPerRun(10, func() { _ = Call(c) }), "%s, %d threads", name, threads)
		}
	}
}
