package onnx

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// floatSizeModel is ConstantOfShape([round(float32(h) op num/den)]) for x
// [h]: the size computed in float32 from x's shape, as interpolate's
// scale_factor exports it (op Mul or Div, round Floor or Ceil).
func floatSizeModel(op, round string, num, den int64) []byte {
	toF := map[string]int64{"to": 1}
	return chainModel([]tInput{{"x", 1, []any{"h"}}}, []tNode{
		{op: "Shape", ins: []string{"x"}, outs: []string{"s"}},
		{op: "Cast", ins: []string{"s"}, outs: []string{"hf"}, ints: toF},
		{op: "Constant", outs: []string{"num"}, constI64: []int64{num}},
		{op: "Constant", outs: []string{"den"}, constI64: []int64{den}},
		{op: "Cast", ins: []string{"num"}, outs: []string{"numf"}, ints: toF},
		{op: "Cast", ins: []string{"den"}, outs: []string{"denf"}, ints: toF},
		{op: "Div", ins: []string{"numf", "denf"}, outs: []string{"k"}},
		{op: op, ins: []string{"hf", "k"}, outs: []string{"m"}},
		{op: round, ins: []string{"m"}, outs: []string{"r"}},
		{op: "Cast", ins: []string{"r"}, outs: []string{"size"}, ints: map[string]int64{"to": 7}},
		{op: "ConstantOfShape", ins: []string{"size"}, outs: []string{"y"}},
	}, "y")
}

// Sizes computed in float32 from h fold to an integer expression that
// equals float32 arithmetic's result at every h up to 5000, with the max
// the import gives h for exactness.
func TestFloatSizesFold(t *testing.T) {
	for _, tc := range []struct {
		op, round string
		num, den  int64
		want      string
	}{
		{"Mul", "Floor", 3, 2, "h + h//2"},
		{"Mul", "Ceil", 3, 2, "(h + 1)//2 + h"},
		{"Mul", "Floor", 5, 4, "h + h//4"},
		{"Mul", "Floor", 1, 2, "h//2"},
		{"Mul", "Floor", 2, 1, "2*h"},
		{"Div", "Floor", 4, 1, "h//4"},
		{"Div", "Ceil", 2, 1, "(h + 1)//2"},
		{"Div", "Floor", 1, 2, "2*h"},
	} {
		g, res, err := Parse("float_sizes.onnx", floatSizeModel(tc.op, tc.round, tc.num, tc.den), Options{})
		require.NoError(t, err, "%+v", tc)
		size := g.Tensor("y").Shape[0]
		assert.Equal(t, tc.want, size.String(), "%+v", tc)
		k := float32(tc.num) / float32(tc.den)
		for h := int64(1); h <= 5000; h++ {
			got, err := size.Eval(expr.Env{"h": h})
			require.NoError(t, err)
			var f float32
			if tc.op == "Mul" {
				f = float32(h) * k
			} else {
				f = float32(h) / k
			}
			want := math.Floor(float64(f))
			if tc.round == "Ceil" {
				want = math.Ceil(float64(f))
			}
			require.Equal(t, int64(want), got, "%+v at h=%d", tc, h)
		}
		hmax := g.Symbol("h").Max
		assert.Positive(t, hmax, "%+v: h gets a max", tc)
		assert.GreaterOrEqual(t, hmax, int64(minExactMax))
		// Exact at the max: the integers float32 holds fit 24 bits.
		factor := int64(1)
		if tc.op == "Mul" {
			factor = tc.num
		}
		assert.LessOrEqual(t, factor*hmax, int64(1)<<24, "%+v", tc)
		assert.NotEmpty(t, res.Notes)
	}
}

// Not exact: 1/3 is no float; a user's max too large for exactness; both
// leave the size to run time, which ConstantOfShape cannot take.
func TestFloatSizesNotExact(t *testing.T) {
	// Not folded, the size is a run-time size (above its least value,
	// floor(1 * k)) bounded over h's range (h's max from the exact cast
	// to float32, 2^24 - 1, or -max): at least its largest value, and
	// above it by at most float32's rounding slack.
	for _, tc := range []struct {
		name     string
		op       string
		num, den int64
		hmax     int64
		most     float64
	}{
		{"third", "Div", 3, 1, 1<<24 - 1, float64(1<<24-1) / 3},
		{"tenth", "Mul", 1, 10, 1<<24 - 1, float64(1<<24-1) / 10},
		{"big", "Mul", 3, 2, 10_000_000, 15_000_000},
	} {
		var opts Options
		if tc.name == "big" {
			opts.Max = map[string]int64{"h": tc.hmax}
		}
		g, res, err := Parse(tc.name+".onnx", floatSizeModel(tc.op, "Floor", tc.num, tc.den), opts)
		require.NoError(t, err, tc.name)
		s := g.Symbol("constantofshape_1")
		require.NotNil(t, s, tc.name)
		require.True(t, s.RunTime(), tc.name)
		least := math.Floor(float64(tc.num) / float64(tc.den))
		if tc.op == "Div" {
			least = math.Floor(float64(tc.den) / float64(tc.num))
		}
		want := "constantofshape_1"
		if least > 0 {
			want = fmt.Sprintf("constantofshape_1 + %d", int64(least))
		}
		assert.Equal(t, want, g.Tensor("y").Shape[0].String(), tc.name)
		most := float64(s.Max) + least
		assert.GreaterOrEqual(t, most, math.Floor(tc.most), tc.name)
		assert.LessOrEqual(t, most, math.Floor(tc.most*(1+1.0/(1<<20)))+1, tc.name)
		if tc.name == "big" {
			assert.Contains(t, res.Notes, `"size" is a shape computed at run time: Mul computed in f32 (3*h) is exact in 24 bits only for h up to 5592405, below its -max 10000000: -max h=5592405 would fold it`)
		}
	}
	g, _, err := Parse("small.onnx", floatSizeModel("Mul", "Floor", 3, 2), Options{Max: map[string]int64{"h": 4096}})
	require.NoError(t, err)
	assert.Equal(t, int64(4096), g.Symbol("h").Max)
}

// Every float is p * 2^shift with p odd.
func TestDyadic(t *testing.T) {
	for _, f := range []float64{1.5, 0.75, 3, 1024, float64(float32(1.0 / 3)), float64(float32(0.1)), -2.5} {
		p, shift, ok := dyadic(f)
		require.True(t, ok, f)
		assert.Equal(t, f, float64(p)*math.Pow(2, float64(shift)), f)
		assert.NotZero(t, p%2, f)
	}
	_, _, ok := dyadic(1.0 / 3) // float64's: 53 bits, beyond what sizes use
	assert.False(t, ok)
	_, _, ok = dyadic(math.Inf(1))
	assert.False(t, ok)
}

// resizePerAxisModel resizes x [h, w] to floor(float32(shape(x)) * k) with
// k = num/den elementwise, one float multiplier per axis (as a detection
// transform's per-axis scale exports), or the same multiplier for both
// when num and den have one element.
func resizePerAxisModel(num, den []int64) []byte {
	toF := map[string]int64{"to": 1}
	return chainModel([]tInput{{"x", 1, []any{"h", "w"}}}, []tNode{
		{op: "Shape", ins: []string{"x"}, outs: []string{"s"}},
		{op: "Cast", ins: []string{"s"}, outs: []string{"sf"}, ints: toF},
		{op: "Constant", outs: []string{"num"}, constI64: num},
		{op: "Constant", outs: []string{"den"}, constI64: den},
		{op: "Cast", ins: []string{"num"}, outs: []string{"numf"}, ints: toF},
		{op: "Cast", ins: []string{"den"}, outs: []string{"denf"}, ints: toF},
		{op: "Div", ins: []string{"numf", "denf"}, outs: []string{"k"}},
		{op: "Mul", ins: []string{"sf", "k"}, outs: []string{"m"}},
		{op: "Floor", ins: []string{"m"}, outs: []string{"r"}},
		{op: "Cast", ins: []string{"r"}, outs: []string{"size"}, ints: map[string]int64{"to": 7}},
		{op: "Resize", ins: []string{"x", "", "", "size"}, outs: []string{"y"}},
	}, "y")
}

// One float multiplier per axis folds as the scalar form does: the output
// is shaped by integer expressions of h and w, not by run-time sizes
// bounded at float32's significand (every run then asked for an 844 TB
// pool).
func TestResizePerAxisFloatScalesFold(t *testing.T) {
	for _, tc := range []struct {
		num, den []int64
		want     []string
	}{
		{[]int64{3}, []int64{2}, []string{"h + h//2", "w + w//2"}},
		{[]int64{3, 2}, []int64{2, 1}, []string{"h + h//2", "2*w"}},
		{[]int64{5, 1}, []int64{4, 2}, []string{"h + h//4", "w//2"}},
	} {
		g, _, err := Parse("per_axis.onnx", resizePerAxisModel(tc.num, tc.den), Options{})
		require.NoError(t, err, "%+v", tc)
		y := g.Tensor("y")
		require.Len(t, y.Shape, 2)
		for i, want := range tc.want {
			assert.Equal(t, want, y.Shape[i].String(), "%+v axis %d", tc, i)
		}
		for _, s := range g.Symbols {
			assert.False(t, s.RunTime(), "%+v: symbol %s is a run-time size", tc, s.Name)
		}
		for i, want := range tc.want {
			k := float32(tc.num[min(i, len(tc.num)-1)]) / float32(tc.den[min(i, len(tc.den)-1)])
			for v := int64(1); v <= 3000; v += 7 {
				got, err := y.Shape[i].Eval(expr.Env{"h": v, "w": v})
				require.NoError(t, err)
				assert.Equal(t, int64(math.Floor(float64(float32(v)*k))), got, "%s at %d", want, v)
			}
		}
	}
}
