package wgref

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Transpose gives, element by element, what its definition gives
// (out[i] = x[i permuted]), with the blocked path (copyTransposed32) and
// without: the last two axes swapped (whole blocks of 8 and ragged edges),
// an attention's Kᵀ and a MultiheadAttention's [T, B·H, d] → [B·H, d, T],
// a 2-D Wᵀ, matrices under 8 (the loop), a strided input, int32 as float32,
// and a layout that is no transpose of the inner two.
func TestTransposeMatchesDefinition(t *testing.T) {
	defer func(had bool) { transposeVector = had }(transposeVector)
	r := rand.New(rand.NewSource(34))
	cases := []struct {
		shape, perm []int
		view        bool
		dtype       wgrt.DType
	}{
		{shape: []int{1, 128, 2, 64}, perm: []int{0, 2, 3, 1}},
		{shape: []int{64, 4, 64}, perm: []int{1, 2, 0}},
		{shape: []int{37, 45}, perm: []int{1, 0}},
		{shape: []int{256, 256}, perm: []int{1, 0}},
		{shape: []int{3, 17, 9}, perm: []int{0, 2, 1}},
		{shape: []int{5, 7}, perm: []int{1, 0}},
		{shape: []int{8, 8}, perm: []int{1, 0}, dtype: wgrt.I32},
		{shape: []int{2, 19, 24}, perm: []int{0, 2, 1}, view: true},
		{shape: []int{4, 16, 3, 10}, perm: []int{1, 0, 2, 3}},
	}
	for _, c := range cases {
		rank := len(c.shape)
		var x wgrt.Tensor
		if c.view {
			x = reversedView(r, c.shape...)
		} else {
			x = randomF32(r, 3, c.shape...)
		}
		if c.dtype == wgrt.I32 {
			is := make([]int32, prod(c.shape))
			for i := range is {
				is[i] = r.Int31()
			}
			x = wgrt.View(is, c.shape...)
		}
		outShape := make([]int, rank)
		for d, p := range c.perm {
			outShape[d] = c.shape[p]
		}
		for _, vector := range []bool{false, true} {
			transposeVector = vector && haveAVX2FMA
			out := wgrt.New(x.DType, outShape...)
			require.NoError(t, Call(&wgrt.Call{Kernel: "Transpose", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x}, Attrs: []wgrt.Attr{intsAttr("perm", c.perm...)}}))
			what := fmt.Sprintf("%v perm %v view %v vector %v", c.shape, c.perm, c.view, transposeVector)
			src := make([]int, rank)
			for o := range indices(outShape) {
				for d, p := range c.perm {
					src[p] = o[d]
				}
				require.Equal(t, loadF(x, offsetOf(src, x.Strides)), loadF(out, offsetOf(o, out.Strides)), "%s at %v", what, o)
			}
		}
	}
}

// The blocked transpose allocates nothing.
func TestTransposeAllocatesNothing(t *testing.T) {
	x := randomF32(rand.New(rand.NewSource(1)), 1, 1, 128, 2, 64)
	out := wgrt.New(wgrt.F32, 1, 2, 64, 128)
	c := &wgrt.Call{Kernel: "Transpose", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x}, Attrs: []wgrt.Attr{intsAttr("perm", 0, 2, 3, 1)}}
	require.Zero(t, testing.AllocsPerRun(5, func() { _ = Call(c) }))
}
