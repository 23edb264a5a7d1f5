package wgref

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// resizePlanes gives resizeEach's results for every mode, coordinate
// transformation and nearest rounding it takes, up and down, with and
// without exclude_outside, over planes of a batch of channels and a lone
// plane, into a strided output; it declines what it does not take. Cubic
// gives the same bits; linear and nearest run separably in float32 (a
// zero's sign as copied, not summed), within float32 rounding.
func TestResizePlanesSameBits(t *testing.T) {
	r := rand.New(rand.NewSource(36))
	c := &wgrt.Call{Kernel: "Resize"}
	type sizes struct{ in, out []int }
	for _, sz := range []sizes{
		{[]int{2, 3, 7, 7}, []int{2, 3, 28, 28}},
		{[]int{1, 5, 1, 1}, []int{1, 5, 14, 14}},
		{[]int{9, 17}, []int{4, 40}},
		{[]int{1, 2, 30, 31}, []int{1, 2, 15, 62}},
	} {
		for _, mode := range []string{"nearest", "linear", "cubic"} {
			for _, coord := range []string{"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"} {
				for _, nearest := range []string{"round_prefer_floor", "floor", "ceil"} {
					if mode != "nearest" && nearest != "floor" {
						continue
					}
					for _, exclude := range []bool{false, true} {
						m := resizeModes{mode: mode, coord: coord, nearest: nearest, cubicA: -0.75, exclude: exclude}
						x := randomOf(r, wgrt.F32, sz.in...)
						rank := len(sz.in)
						scales := make([]float64, rank)
						for k := range scales {
							scales[k] = float64(sz.out[k]) / float64(sz.in[k])
						}
						want := wgrt.New(wgrt.F32, sz.out...)
						require.NoError(t, resizeEach(c, want, x, scales, m))
						// The output a view with a gap after each row.
						wide := append([]int{}, sz.out...)
						wide[rank-1] += 3
						buf := wgrt.New(wgrt.F32, wide...)
						got := buf
						got.Shape = sz.out
						done, err := resizePlanes(c, got, x, scales, m)
						require.NoError(t, err)
						require.True(t, done, "%v %s %s declined", sz, mode, coord)
						what := []any{sz, mode, coord, nearest, exclude}
						for o := range indices(sz.out) {
							a, b := want.Float32s()[offsetOf(o, want.Strides)], got.Float32s()[offsetOf(o, got.Strides)]
							if mode == "cubic" {
								require.Equal(t, math.Float32bits(a), math.Float32bits(b), "%v at %v: %g, element by element %g", what, o, b, a)
								continue
							}
							require.InDelta(t, a, b, 1e-6*(1+math.Abs(float64(a))), "%v at %v: %g, element by element %g", what, o, b, a)
						}
					}
				}
			}
		}
	}
	// Not taken: a leading axis resized, crop and resize, other dtypes.
	x := randomOf(r, wgrt.F32, 2, 3, 4, 4)
	done, err := resizePlanes(c, wgrt.New(wgrt.F32, 2, 6, 8, 8), x, []float64{1, 2, 2, 2}, resizeModes{mode: "linear", coord: "half_pixel"})
	require.NoError(t, err)
	require.False(t, done)
	done, err = resizePlanes(c, wgrt.New(wgrt.F32, 2, 3, 8, 8), x, []float64{1, 1, 2, 2}, resizeModes{mode: "linear", coord: "tf_crop_and_resize", roiNum: []int{0, 0, 0, 0, 1, 1, 1, 1}, roiDen: []int{1, 1, 1, 1, 1, 1, 1, 1}})
	require.NoError(t, err)
	require.False(t, done)
}
