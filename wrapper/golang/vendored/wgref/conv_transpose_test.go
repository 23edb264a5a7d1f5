package wgref

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// ConvTranspose over float32 (the row-major fast path, and a strided
// input view that takes the general one) gives what a plain loop over
// every output element and every tap that reaches it gives: ranks 1 to 3,
// groups, strides, dilations, uneven pads, a bias, a kernel larger than
// the stride and one smaller.
func TestConvTransposeMatchesNaiveLoop(t *testing.T) {
	r := rand.New(rand.NewSource(34))
	cases := []struct {
		x, w                     []int
		strides, pads, dilations []int
		group                    int
	}{
		{x: []int{2, 6, 11}, w: []int{6, 3, 5}, strides: []int{3}, pads: []int{2, 1}, dilations: []int{2}, group: 2},
		{x: []int{1, 8, 40}, w: []int{8, 1, 16}, strides: []int{8}, pads: []int{0, 0}, dilations: []int{1}, group: 1},
		{x: []int{1, 3, 9}, w: []int{3, 2, 2}, strides: []int{4}, pads: []int{1, 0}, dilations: []int{1}, group: 1},
		{x: []int{2, 4, 7, 5}, w: []int{4, 2, 3, 2}, strides: []int{2, 1}, pads: []int{1, 0, 0, 1}, dilations: []int{1, 2}, group: 2},
		{x: []int{1, 2, 3, 4, 3}, w: []int{2, 3, 2, 3, 2}, strides: []int{1, 2, 2}, pads: []int{0, 1, 1, 0, 1, 0}, dilations: []int{2, 1, 1}, group: 1},
	}
	for n, tc := range cases {
		rank := len(tc.x) - 2
		mg := tc.w[1]
		outShape := []int{tc.x[0], mg * tc.group}
		for d := 0; d < rank; d++ {
			outShape = append(outShape, (tc.x[2+d]-1)*tc.strides[d]-tc.pads[d]-tc.pads[rank+d]+tc.dilations[d]*(tc.w[2+d]-1)+1)
		}
		x, w, bias := randomF32(r, 2, tc.x...), randomF32(r, 2, tc.w...), randomF32(r, 1, mg*tc.group)
		kernel := tc.w[2:]
		want := wgrt.New(wgrt.F32, outShape...)
		// want[b, oc, o] = bias[oc] + sum over ci in oc's group, taps k and
		// input positions i with i*s - p + k*d = o of x[b, ci, i]·w[ci, om, k].
		cg := tc.x[1] / tc.group
		wantF := want.Float32s()
		for o := range indices(outShape) {
			b, oc := o[0], o[1]
			gi, om := oc/mg, oc%mg
			sum := 0.0
			for ci := gi * cg; ci < (gi+1)*cg; ci++ {
			taps:
				for k := range indices(kernel) {
					in := make([]int, rank)
					for d := 0; d < rank; d++ {
						num := o[2+d] + tc.pads[d] - k[d]*tc.dilations[d]
						if num < 0 || num%tc.strides[d] != 0 || num/tc.strides[d] >= tc.x[2+d] {
							continue taps
						}
						in[d] = num / tc.strides[d]
					}
					sum += float64(x.Float32s()[offsetOf(append([]int{b, ci}, in...), x.Strides)]) *
						float64(w.Float32s()[offsetOf(append([]int{ci, om}, k...), w.Strides)])
				}
			}
			wantF[offsetOf(o, want.Strides)] = float32(sum + float64(bias.Float32s()[oc]))
		}
		attrs := []wgrt.Attr{intsAttr("kernel_shape", kernel...), intsAttr("strides", tc.strides...), intsAttr("pads", tc.pads...),
			intsAttr("dilations", tc.dilations...), intAttr("group", tc.group)}
		for _, view := range []bool{false, true} {
			in := x
			if view {
				in = reversedView(r, tc.x...)
				copyInto(in, x)
			}
			got := wgrt.New(wgrt.F32, outShape...)
			require.NoError(t, Call(&wgrt.Call{Kernel: "ConvTranspose", Outputs: []wgrt.Tensor{got}, Inputs: []wgrt.Tensor{in, w, bias}, Attrs: attrs}))
			for i, g := range got.Float32s() {
				require.InDelta(t, wantF[i], g, 1e-5*math.Max(1, math.Abs(float64(wantF[i]))), "case %d (view %v), element %d", n, view, i)
			}
		}
	}
}

// copyInto copies src's elements into dst of the same shape, index by index.
func copyInto(dst, src wgrt.Tensor) {
	for i := range indices(src.Shape) {
		storeF(dst, offsetOf(i, dst.Strides), loadF(src, offsetOf(i, src.Strides)))
	}
}
