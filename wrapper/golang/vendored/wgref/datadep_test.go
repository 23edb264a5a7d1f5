package wgref

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The kernels with a run-time size get their outputs at the bound and
// write them compactly at the size they find: each output here is filled
// with -7 first, so that what lies beyond the compact data is seen to be
// untouched.

const untouched = -7

func capacity(shape ...int) wgrt.Tensor {
	t := wgrt.New(wgrt.I64, shape...)
	for i := range t.Int64s() {
		t.Int64s()[i] = untouched
	}
	return t
}

// compact is want followed by the untouched rest of a capacity of n.
func compact(n int, want ...int64) []int64 {
	out := append([]int64{}, want...)
	for len(out) < n {
		out = append(out, untouched)
	}
	return out
}

func intAttr(name string, v int) wgrt.Attr { return wgrt.Attr{Name: name, Kind: wgrt.AttrInt, Int: v} }

func intsAttr(name string, v ...int) wgrt.Attr {
	return wgrt.Attr{Name: name, Kind: wgrt.AttrInts, Ints: v}
}

func boolAttr(name string, v bool) wgrt.Attr {
	return wgrt.Attr{Name: name, Kind: wgrt.AttrBool, Bool: v}
}

// callOK runs c, which must allocate nothing when given its scratch.
func callOK(t *testing.T, c *wgrt.Call) {
	t.Helper()
	require.NoError(t, Call(c))
	assert.Zero(t, testing.AllocsPerRun(5, func() { _ = Call(c) }), "%s allocates", c.Kernel)
}

// ONNX's example: [[1, 0], [1, 1]] has nonzeros at (0, 0), (1, 0), (1, 1);
// the [2, 4] capacity holds them as [2, 3] from its start.
func TestNonZero(t *testing.T) {
	x := wgrt.View([]bool{true, false, true, true}, 2, 2)
	out, count := capacity(2, 4), capacity()
	callOK(t, &wgrt.Call{Kernel: "NonZero", Inputs: []wgrt.Tensor{x}, Outputs: []wgrt.Tensor{out, count}})
	assert.Equal(t, compact(8, 0, 1, 1, 0, 0, 1), out.Int64s())
	assert.Equal(t, []int64{3}, count.Int64s())

	// Floats: NaN is nonzero, -0 is zero; a strided input (every other
	// element of 8) is read at its strides.
	f := wgrt.View([]float32{0, 9, float32(math.NaN()), 9, float32(math.Copysign(0, -1)), 9, 2, 9}, 8)
	f.Shape, f.Strides = []int{4}, []int{2}
	out, count = capacity(1, 4), capacity()
	callOK(t, &wgrt.Call{Kernel: "NonZero", Inputs: []wgrt.Tensor{f}, Outputs: []wgrt.Tensor{out, count}})
	assert.Equal(t, compact(4, 1, 3), out.Int64s())
	assert.Equal(t, []int64{2}, count.Int64s())

	// A scalar: [0, nz], nothing written, one nonzero counted.
	s := wgrt.View([]int32{5})
	out, count = capacity(0, 1), capacity()
	callOK(t, &wgrt.Call{Kernel: "NonZero", Inputs: []wgrt.Tensor{s}, Outputs: []wgrt.Tensor{out, count}})
	assert.Equal(t, []int64{1}, count.Int64s())

	// None at all.
	z := wgrt.View([]uint8{0, 0, 0}, 3)
	out, count = capacity(1, 3), capacity()
	callOK(t, &wgrt.Call{Kernel: "NonZero", Inputs: []wgrt.Tensor{z}, Outputs: []wgrt.Tensor{out, count}})
	assert.Equal(t, compact(3), out.Int64s())
	assert.Equal(t, []int64{0}, count.Int64s())
}

func axisAttrs(axis int) []wgrt.Attr {
	return []wgrt.Attr{intAttr("axis", axis), boolAttr("has_axis", true)}
}

var noAxis = []wgrt.Attr{intAttr("axis", 0), boolAttr("has_axis", false)}

func TestCompress(t *testing.T) {
	input := wgrt.View([]int64{1, 2, 3, 4, 5, 6}, 3, 2)
	run := func(cond []bool, attrs []wgrt.Attr, shape ...int) (wgrt.Tensor, int64) {
		t.Helper()
		out, count := capacity(shape...), capacity()
		callOK(t, &wgrt.Call{Kernel: "Compress", Inputs: []wgrt.Tensor{input, wgrt.View(cond, len(cond))},
			Outputs: []wgrt.Tensor{out, count}, Attrs: attrs})
		return out, count.Int64s()[0]
	}
	// ONNX's examples: axis 0 keeps rows 1 and 2.
	out, k := run([]bool{false, true, true}, axisAttrs(0), 3, 2)
	assert.Equal(t, compact(6, 3, 4, 5, 6), out.Int64s())
	assert.Equal(t, int64(2), k)
	// Axis 1 keeps column 1: [3, 1] from the start, not at the [3, 2]
	// capacity's strides.
	out, k = run([]bool{false, true}, axisAttrs(1), 3, 2)
	assert.Equal(t, compact(6, 2, 4, 6), out.Int64s())
	assert.Equal(t, int64(1), k)
	// A negative axis; a condition shorter than the axis (the rest is
	// false).
	out, k = run([]bool{true}, axisAttrs(-1), 3, 2)
	assert.Equal(t, compact(6, 1, 3, 5), out.Int64s())
	assert.Equal(t, int64(1), k)
	// No axis: over the flattened input; false condition entries beyond
	// the six elements are allowed (as numpy.compress allows them).
	out, k = run([]bool{false, true, false, false, true, false, false, false}, noAxis, 6)
	assert.Equal(t, compact(6, 2, 5), out.Int64s())
	assert.Equal(t, int64(2), k)
	// A true entry beyond the input is refused (numpy.compress raises),
	// with or without an axis, not cut off silently.
	for _, c := range []struct {
		cond  []bool
		attrs []wgrt.Attr
		want  string
	}{
		{[]bool{false, true, false, false, true, false, true}, noAxis, "Compress: condition[6] is true, beyond the input's 6 elements"},
		{[]bool{true, false, false, true}, axisAttrs(0), "Compress: condition[3] is true, beyond the 3 slices of input [3 2] along axis 0"},
		{[]bool{true, false, true}, axisAttrs(-1), "Compress: condition[2] is true, beyond the 2 slices of input [3 2] along axis 1"},
	} {
		err := Call(&wgrt.Call{Kernel: "Compress", Inputs: []wgrt.Tensor{input, wgrt.View(c.cond, len(c.cond))},
			Outputs: []wgrt.Tensor{capacity(6), capacity()}, Attrs: c.attrs})
		assert.EqualError(t, err, c.want)
	}
	out, k = run([]bool{false, false}, noAxis, 2)
	assert.Equal(t, compact(2), out.Int64s())
	assert.Equal(t, int64(0), k)
}

type uniqueWant struct {
	y                        any
	indices, inverse, counts []int64
}

// uniqueCall runs Unique on x with every output, at capacities of bound
// unique values (yShape: Y's capacity), and returns the outputs cut to
// their compact size.
func uniqueCall(t *testing.T, x wgrt.Tensor, bound int, yShape []int, attrs ...wgrt.Attr) (wgrt.Tensor, [3][]int64, int) {
	t.Helper()
	m, hasAxis := x.NumElements(), false
	for _, a := range attrs {
		hasAxis = hasAxis || a.Name == "has_axis" && a.Bool
	}
	for _, a := range attrs {
		if a.Name == "axis" && hasAxis {
			ax := a.Int
			if ax < 0 {
				ax += len(x.Shape)
			}
			m = x.Shape[ax]
		}
	}
	if !hasAxis {
		attrs = append(attrs, noAxis...)
	}
	y := wgrt.New(x.DType, yShape...)
	idx, inv, cnt, count := capacity(bound), capacity(m), capacity(bound), capacity()
	attrs = append(attrs, intsAttr("outputs", 1, 1, 1, 1))
	c := &wgrt.Call{Kernel: "Unique", Inputs: []wgrt.Tensor{x}, Outputs: []wgrt.Tensor{y, idx, inv, cnt, count},
		Attrs: attrs, Scratch: make([]byte, 32*m)}
	callOK(t, c)
	u := int(count.Int64s()[0])
	for _, o := range []wgrt.Tensor{idx, cnt} {
		assert.Equal(t, compact(bound-u), o.Int64s()[u:], "beyond the %d unique values", u)
	}
	return y, [3][]int64{idx.Int64s()[:u], inv.Int64s(), cnt.Int64s()[:u]}, u
}

func TestUniqueFlattened(t *testing.T) {
	x := wgrt.View([]float32{2, 1, 1, 3, 4, 3}, 6)
	// ONNX's example 1: in order of first occurrence.
	y, o, u := uniqueCall(t, x, 6, []int{6}, intAttr("sorted", 0))
	assert.Equal(t, 4, u)
	assert.Equal(t, []float32{2, 1, 3, 4}, y.Float32s()[:u])
	assert.Equal(t, [3][]int64{{0, 1, 3, 4}, {0, 1, 1, 2, 3, 2}, {1, 2, 2, 1}}, o)
	// Sorted.
	y, o, u = uniqueCall(t, x, 6, []int{6}, intAttr("sorted", 1))
	assert.Equal(t, []float32{1, 2, 3, 4}, y.Float32s()[:u])
	assert.Equal(t, [3][]int64{{1, 0, 3, 4}, {1, 0, 0, 2, 3, 2}, {2, 1, 2, 1}}, o)
	// ONNX's example 2: a matrix, flattened.
	y, o, u = uniqueCall(t, wgrt.View([]int32{1, 3, 2, 3}, 2, 2), 4, []int{4})
	assert.Equal(t, []int32{1, 2, 3}, y.Int32s()[:u])
	assert.Equal(t, [3][]int64{{0, 2, 1}, {0, 2, 1, 2}, {1, 1, 2}}, o)
	// -0 equals 0 (Y keeps the first), NaNs are one value, last.
	nan, negZero := float32(math.NaN()), float32(math.Copysign(0, -1))
	y, o, u = uniqueCall(t, wgrt.View([]float32{0, negZero, nan, 1, nan}, 5), 5, []int{5})
	assert.Equal(t, 3, u)
	assert.Equal(t, uint32(0), math.Float32bits(y.Float32s()[0]))
	assert.Equal(t, float32(1), y.Float32s()[1])
	assert.True(t, math.IsNaN(float64(y.Float32s()[2])))
	assert.Equal(t, [3][]int64{{0, 3, 2}, {0, 0, 2, 1, 2}, {2, 1, 2}}, o)
	// Unsigned values above the int64 range order as unsigned.
	y, o, u = uniqueCall(t, wgrt.View([]uint64{math.MaxUint64, 1, math.MaxUint64}, 3), 3, []int{3})
	assert.Equal(t, []uint64{1, math.MaxUint64}, y.Uint64s()[:u])
	assert.Equal(t, [3][]int64{{1, 0}, {1, 0, 1}, {1, 2}}, o)
}

func TestUniqueAxis(t *testing.T) {
	// ONNX's example 3: rows.
	x := wgrt.View([]float32{1, 0, 0, 1, 0, 0, 2, 3, 4}, 3, 3)
	y, o, u := uniqueCall(t, x, 3, []int{3, 3}, append(axisAttrs(0), intAttr("sorted", 1))...)
	assert.Equal(t, []float32{1, 0, 0, 2, 3, 4}, y.Float32s()[:u*3])
	assert.Equal(t, [3][]int64{{0, 2}, {0, 0, 1}, {2, 1}}, o)

	// ONNX's example 4: slices along axis 1 of [2, 4, 2], three unique:
	// Y is [2, 3, 2], written from the start of its [2, 4, 2] capacity.
	x = wgrt.View([]float32{1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1}, 2, 4, 2)
	y, o, u = uniqueCall(t, x, 4, []int{2, 4, 2}, append(axisAttrs(1), intAttr("sorted", 1))...)
	assert.Equal(t, 3, u)
	assert.Equal(t, []float32{0, 1, 1, 1, 2, 1, 0, 1, 1, 1, 2, 1}, y.Float32s()[:2*u*2])
	assert.Equal(t, [3][]int64{{1, 0, 2}, {1, 0, 2, 0}, {2, 1, 1}}, o)
	// The same in order of first occurrence, axis given as -2.
	y, o, u = uniqueCall(t, x, 4, []int{2, 4, 2}, append(axisAttrs(-2), intAttr("sorted", 0))...)
	assert.Equal(t, []float32{1, 1, 0, 1, 2, 1, 1, 1, 0, 1, 2, 1}, y.Float32s()[:2*u*2])
	assert.Equal(t, [3][]int64{{0, 1, 2}, {0, 1, 2, 1}, {1, 2, 1}}, o)

	// Slices compare element by element: [0, 5] before [1, 0].
	x = wgrt.View([]int64{1, 0, 0, 5, 1, 0}, 3, 2)
	y, o, u = uniqueCall(t, x, 3, []int{3, 2}, axisAttrs(0)...)
	assert.Equal(t, []int64{0, 5, 1, 0}, y.Int64s()[:u*2])
	assert.Equal(t, [3][]int64{{1, 0}, {1, 0, 1}, {1, 2}}, o)
}

// Optional outputs left out: Y and inverse_indices only.
func TestUniqueSomeOutputs(t *testing.T) {
	x := wgrt.View([]int64{3, 1, 3}, 3)
	y, inv, count := capacity(3), capacity(3), capacity()
	callOK(t, &wgrt.Call{Kernel: "Unique", Inputs: []wgrt.Tensor{x}, Outputs: []wgrt.Tensor{y, inv, count},
		Attrs: append([]wgrt.Attr{intAttr("sorted", 1), intsAttr("outputs", 1, 0, 1, 0)}, noAxis...), Scratch: make([]byte, 32*3)})
	assert.Equal(t, compact(3, 1, 3), y.Int64s())
	assert.Equal(t, []int64{1, 0, 1}, inv.Int64s())
	assert.Equal(t, []int64{2}, count.Int64s())

	// Too little scratch is an error, not a crash.
	c := &wgrt.Call{Kernel: "Unique", Inputs: []wgrt.Tensor{x}, Outputs: []wgrt.Tensor{y, count},
		Attrs: append([]wgrt.Attr{intsAttr("outputs", 1)}, noAxis...), Scratch: make([]byte, 8)}
	assert.ErrorContains(t, Call(c), "scratch")
}

// The boxes of ONNX's NonMaxSuppression node tests: [y1, x1, y2, x2],
// 0 and 1 overlapping 3 with IoU 0.82, 2 overlapping 0 the same, 3 and
// 4 apart, 5 far away.
var (
	nmsBoxes  = []float32{0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, -0.1, 1, 0.9, 0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100, 1, 101}
	nmsScores = []float32{0.9, 0.75, 0.6, 0.95, 0.5, 0.3}
)

type nmsCase struct {
	name           string
	boxes, scores  []float32
	b, c, n        int
	attrs          []wgrt.Attr
	extra          []wgrt.Tensor // run-time scalar inputs
	want           []int64
	centerPointBox int
}

func nmsAttrs(most int, iou, score float64, hasScore bool) []wgrt.Attr {
	return []wgrt.Attr{
		intAttr("max_output_boxes_per_class", most), boolAttr("max_output_boxes_per_class_from_input", false),
		floatAttr("iou_threshold", iou), boolAttr("iou_threshold_from_input", false),
		floatAttr("score_threshold", score), boolAttr("score_threshold_from_input", false),
		boolAttr("has_score_threshold", hasScore),
	}
}

func TestNonMaxSuppression(t *testing.T) {
	flipped := []float32{1, 1, 0, 0, 0, 0.1, 1, 1.1, 0, 0.9, 1, -0.1, 0, 10, 1, 11, 1, 10.1, 0, 11.1, 1, 101, 0, 100}
	centered := []float32{0.5, 0.5, 1, 1, 0.5, 0.6, 1, 1, 0.5, 0.4, 1, 1, 0.5, 10.5, 1, 1, 0.5, 10.6, 1, 1, 0.5, 100.5, 1, 1}
	identical := make([]float32, 40)
	for i := range 10 {
		copy(identical[4*i:], []float32{0, 0, 1, 1})
	}
	zeroLast := []float32{0.9, 0.75, 0.6, 0.95, 0.5, 0}
	twoClasses := append(append([]float32{}, nmsScores...), nmsScores...)
	runTime := []wgrt.Attr{
		intAttr("max_output_boxes_per_class", 0), boolAttr("max_output_boxes_per_class_from_input", true),
		floatAttr("iou_threshold", 0), boolAttr("iou_threshold_from_input", true),
		floatAttr("score_threshold", 0), boolAttr("score_threshold_from_input", true),
		boolAttr("has_score_threshold", true),
	}
	for _, tc := range []nmsCase{
		{name: "suppress_by_IOU", boxes: nmsBoxes, scores: nmsScores, b: 1, c: 1, n: 6,
			attrs: nmsAttrs(3, 0.5, 0, true), want: []int64{0, 0, 3, 0, 0, 0, 0, 0, 5}},
		{name: "flipped_coordinates", boxes: flipped, scores: nmsScores, b: 1, c: 1, n: 6,
			attrs: nmsAttrs(3, 0.5, 0, true), want: []int64{0, 0, 3, 0, 0, 0, 0, 0, 5}},
		{name: "center_point_box", boxes: centered, scores: nmsScores, b: 1, c: 1, n: 6, centerPointBox: 1,
			attrs: nmsAttrs(3, 0.5, 0, true), want: []int64{0, 0, 3, 0, 0, 0, 0, 0, 5}},
		{name: "limit_output_size", boxes: nmsBoxes, scores: nmsScores, b: 1, c: 1, n: 6,
			attrs: nmsAttrs(2, 0.5, 0, true), want: []int64{0, 0, 3, 0, 0, 0}},
		{name: "suppress_by_IOU_and_scores", boxes: nmsBoxes, scores: nmsScores, b: 1, c: 1, n: 6,
			attrs: nmsAttrs(3, 0.5, 0.4, true), want: []int64{0, 0, 3, 0, 0, 0}},
		{name: "identical_boxes", boxes: identical, scores: []float32{0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9},
			b: 1, c: 1, n: 10, attrs: nmsAttrs(3, 0.5, 0, true), want: []int64{0, 0, 0}},
		{name: "two_classes", boxes: nmsBoxes, scores: twoClasses, b: 1, c: 2, n: 6,
			attrs: nmsAttrs(2, 0.5, 0, true), want: []int64{0, 0, 3, 0, 0, 0, 0, 1, 3, 0, 1, 0}},
		{name: "two_batches", boxes: append(append([]float32{}, nmsBoxes...), nmsBoxes...), scores: twoClasses, b: 2, c: 1, n: 6,
			attrs: nmsAttrs(2, 0.5, 0, true), want: []int64{0, 0, 3, 0, 0, 0, 1, 0, 3, 1, 0, 0}},
		// Box 5 scoring 0: above no threshold, but kept without one.
		// Equal scores go by index; a negative maximum selects nothing.
		{name: "score_threshold_0", boxes: nmsBoxes, scores: zeroLast, b: 1, c: 1, n: 6,
			attrs: nmsAttrs(6, 0.5, 0, true), want: []int64{0, 0, 3, 0, 0, 0}},
		{name: "no_score_threshold", boxes: nmsBoxes, scores: zeroLast, b: 1, c: 1, n: 6,
			attrs: nmsAttrs(6, 0.5, 0, false), want: []int64{0, 0, 3, 0, 0, 0, 0, 0, 5}},
		{name: "ties", boxes: nmsBoxes, scores: []float32{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, b: 1, c: 1, n: 6,
			attrs: nmsAttrs(6, 0.5, 0, false), want: []int64{0, 0, 0, 0, 0, 3, 0, 0, 5}},
		{name: "negative_max", boxes: nmsBoxes, scores: nmsScores, b: 1, c: 1, n: 6,
			attrs: nmsAttrs(-1, 0.5, 0, true), want: nil},
		// The scalars as run-time inputs (the node tests' form).
		{name: "run_time_inputs", boxes: nmsBoxes, scores: nmsScores, b: 1, c: 1, n: 6, attrs: runTime,
			extra: []wgrt.Tensor{wgrt.View([]int64{3}, 1), wgrt.View([]float32{0.5}, 1), wgrt.View([]float32{0.4}, 1)},
			want:  []int64{0, 0, 3, 0, 0, 0}},
	} {
		bound := tc.b * tc.c * tc.n
		out, count := capacity(bound, 3), capacity()
		ins := append([]wgrt.Tensor{wgrt.View(tc.boxes, tc.b, tc.n, 4), wgrt.View(tc.scores, tc.b, tc.c, tc.n)}, tc.extra...)
		attrs := append([]wgrt.Attr{intAttr("center_point_box", tc.centerPointBox)}, tc.attrs...)
		c := &wgrt.Call{Kernel: "NonMaxSuppression", Inputs: ins, Outputs: []wgrt.Tensor{out, count}, Attrs: attrs,
			Scratch: make([]byte, 12*tc.n)}
		require.NoError(t, Call(c), tc.name)
		assert.Equal(t, compact(3*bound, tc.want...), out.Int64s(), tc.name)
		assert.Equal(t, []int64{int64(len(tc.want) / 3)}, count.Int64s(), tc.name)
		assert.Zero(t, testing.AllocsPerRun(5, func() { _ = Call(c) }), tc.name)
	}
}

// A bound too small for the data is an error: the importer's bound and
// the kernel disagree.
func TestRunTimeSizeBeyondBound(t *testing.T) {
	x := wgrt.View([]int64{1, 2, 3}, 3)
	out, count := capacity(1, 2), capacity()
	err := Call(&wgrt.Call{Kernel: "NonZero", Inputs: []wgrt.Tensor{x}, Outputs: []wgrt.Tensor{out, count}})
	assert.ErrorContains(t, err, "3 entries found, beyond the 2")
	bad := wgrt.New(wgrt.I32)
	err = Call(&wgrt.Call{Kernel: "NonZero", Inputs: []wgrt.Tensor{x}, Outputs: []wgrt.Tensor{capacity(1, 3), bad}})
	assert.ErrorContains(t, err, "want an i64 scalar")
}
