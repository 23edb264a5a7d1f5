package wgref

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// resizeToSizesAttrs are ResizeToSizes's attributes for a linear,
// half_pixel resize of the last two axes of a rank-3 input, both
// reported, with the least sizes given.
func resizeToSizesAttrs(least ...int) []wgrt.Attr {
	str := func(name, v string) wgrt.Attr { return wgrt.Attr{Name: name, Kind: wgrt.AttrString, Str: v} }
	return []wgrt.Attr{str("mode", "linear"), str("coordinate_transformation_mode", "half_pixel"),
		str("nearest_mode", "floor"), floatAttr("cubic_coeff_a", -0.75), intAttr("exclude_outside", 0),
		floatAttr("extrapolation_value", 0), intsAttr("roi_num"), intsAttr("roi_den"),
		intsAttr("size_axes", 0, 1, 2), intsAttr("axes", 1, 2), intsAttr("least", least...)}
}

// naiveBilinear is x [c, h, w] resized to [c, oh, ow], half_pixel, the
// input's edge repeated, as a plain loop computes it.
func naiveBilinear(x wgrt.Tensor, oh, ow int) []float64 {
	c, h, w := x.Shape[0], x.Shape[1], x.Shape[2]
	src := func(o, in, out int) (int, int, float64) {
		f := (float64(o)+0.5)*float64(in)/float64(out) - 0.5
		f = max(f, 0)
		i0 := int(math.Floor(f))
		i1 := min(i0+1, in-1)
		return min(i0, in-1), i1, f - float64(i0)
	}
	out := make([]float64, 0, c*oh*ow)
	xs := x.Float32s()
	for ch := range c {
		for i := range oh {
			y0, y1, fy := src(i, h, oh)
			for j := range ow {
				x0, x1, fx := src(j, w, ow)
				at := func(y, x int) float64 { return float64(xs[(ch*h+y)*w+x]) }
				top := at(y0, x0)*(1-fx) + at(y0, x1)*fx
				bottom := at(y1, x0)*(1-fx) + at(y1, x1)*fx
				out = append(out, top*(1-fy)+bottom*fy)
			}
		}
	}
	return out
}

// ResizeToSizes reads the sizes from its input, writes the output
// row-major at those sizes from the start of its capacity, and reports
// each reported size less its least; the values are a plain bilinear
// loop's. Sizes beyond the capacity, below the least, or disagreeing on
// an axis not reported are refused.
func TestResizeToSizesMatchesNaiveLoop(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	x := randomF32(r, 1, 2, 5, 7)
	for _, size := range [][2]int{{5, 7}, {8, 11}, {3, 4}, {9, 2}} {
		out := wgrt.New(wgrt.F32, 2, 10, 12) // the capacity: the bounds
		for i := range out.Data {
			out.Data[i] = 0xff // NaN where nothing is written
		}
		sizes := wgrt.New(wgrt.I64, 3)
		copy(sizes.Int64s(), []int64{2, int64(size[0]), int64(size[1])})
		c1, c2 := wgrt.New(wgrt.I64), wgrt.New(wgrt.I64)
		require.NoError(t, Call(&wgrt.Call{Kernel: "ResizeToSizes2", Outputs: []wgrt.Tensor{out, c1, c2},
			Inputs: []wgrt.Tensor{x, sizes}, Attrs: resizeToSizesAttrs(2, 1)}), "%v", size)
		assert.Equal(t, int64(size[0]-2), c1.Int64s()[0])
		assert.Equal(t, int64(size[1]-1), c2.Int64s()[0])
		want := naiveBilinear(x, size[0], size[1])
		got := out.Float32s()[:len(want)]
		for i := range want {
			require.InDelta(t, want[i], float64(got[i]), 1e-5, "%v at %d", size, i)
		}
	}
	call := func(h, w, c int) error {
		sizes := wgrt.New(wgrt.I64, 3)
		copy(sizes.Int64s(), []int64{int64(c), int64(h), int64(w)})
		return Call(&wgrt.Call{Kernel: "ResizeToSizes2", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 2, 10, 12), wgrt.New(wgrt.I64), wgrt.New(wgrt.I64)},
			Inputs: []wgrt.Tensor{x, sizes}, Attrs: resizeToSizesAttrs(2, 1)})
	}
	assert.ErrorContains(t, call(11, 12, 2), "beyond the 240 the output holds")
	assert.ErrorContains(t, call(1, 5, 2), "below the least the import derived, 2")
	assert.ErrorContains(t, call(4, 5, 3), "the sizes give [3 4 5], but the output is [2 10 12]")
	assert.ErrorContains(t, call(-1, 5, 2), "size -1 on axis 1")
}
