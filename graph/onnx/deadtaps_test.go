package onnx_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/graph/onnx"
)

// A dilated convolution whose outer taps read only padding at every output
// position loses them at import with FoldWeights (kernel, pads and weight
// cut), and gives the output of the whole kernel; where every tap reads
// the input somewhere, or pads would go negative, nothing is cut.
func TestFoldWeightsTrimsDeadTaps(t *testing.T) {
	const m, c = 6, 5
	r := rand.New(rand.NewPCG(7, 8))
	w := make([]float32, m*c*9)
	for i := range w {
		w[i] = float32(r.Float64()*2 - 1)
	}
	for _, tc := range []struct {
		h, w       int
		dilations  []int64
		pads       []int64
		kernel     []int64 // after trimming
		trimmedPad []int64
	}{
		// DeepLab's atrous pyramid at 14x14: dilation 24, only the center.
		{14, 14, []int64{24, 24}, []int64{24, 24, 24, 24}, []int64{1, 1}, []int64{0, 0, 0, 0}},
		// Rows dead at dilation 9 over 6 rows, columns all alive over 12.
		{6, 12, []int64{9, 9}, []int64{9, 9, 9, 9}, []int64{1, 3}, []int64{0, 9, 0, 9}},
		// Uneven pads: only the first row of taps reads the input.
		{5, 5, []int64{6, 1}, []int64{0, 1, 12, 1}, []int64{1, 3}, []int64{0, 1, 0, 1}},
		// Every tap reads the input: nothing cut.
		{14, 14, []int64{12, 12}, []int64{12, 12, 12, 12}, []int64{3, 3}, []int64{12, 12, 12, 12}},
	} {
		data := onnx.DilatedConvModel(m, c, tc.h, tc.w, w, tc.dilations, tc.pads)
		gKept, kept := importQDQ(t, data, false)
		gTrim, trimmed := importQDQ(t, data, true)
		require.Len(t, gTrim.Ops, 1)
		op := gTrim.Ops[0]
		var kernel, pads []expr.Expr
		for _, a := range op.Attrs {
			switch a.Name {
			case "kernel_shape":
				kernel = a.Ints
			case "pads":
				pads = a.Ints
			}
		}
		var gotK, gotP []int64
		for _, e := range kernel {
			v, _ := e.IsConst()
			gotK = append(gotK, v)
		}
		for _, e := range pads {
			v, _ := e.IsConst()
			gotP = append(gotP, v)
		}
		assert.Equal(t, tc.kernel, gotK, "%+v kernel", tc)
		assert.Equal(t, tc.trimmedPad, gotP, "%+v pads", tc)
		require.Len(t, trimmed.Weights, 1)
		assert.Equal(t, []int64{m, c, tc.kernel[0], tc.kernel[1]}, trimmed.Weights[0].Shape)

		x := randomInputSized(c, tc.h, tc.w, 9)
		want, got := floats(runQDQ(t, gKept, kept, x)), floats(runQDQ(t, gTrim, trimmed, x))
		require.Len(t, got, len(want))
		for i := range want {
			assert.InDelta(t, want[i], got[i], 1e-5*max(1, math.Abs(float64(want[i]))), "%+v element %d", tc, i)
		}
	}
}
