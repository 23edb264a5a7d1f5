package onnx

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// detectionSize is torchvision's resized height, floor(h * min(lo / min(h,
// w), hi / max(h, w))), as the ONNX export computes it in float32.
func detectionSize(lo, hi float32) *sizeExpr {
	h, w := exactSize(expr.Sym("h")), exactSize(expr.Sym("w"))
	f := func(k sizeKind, args ...*sizeExpr) *sizeExpr {
		return &sizeExpr{op: sizeFloat, args: []*sizeExpr{{op: k, args: args}}}
	}
	recip := func(x *sizeExpr) *sizeExpr { return f(sizeDiv, exactSize(expr.Const(1)), x) }
	scale := &sizeExpr{op: sizeMin, args: []*sizeExpr{
		f(sizeMul, recip(&sizeExpr{op: sizeMin, args: []*sizeExpr{h, w}}), &sizeExpr{op: sizeConst, c: float64(lo)}),
		f(sizeMul, recip(&sizeExpr{op: sizeMax, args: []*sizeExpr{h, w}}), &sizeExpr{op: sizeConst, c: float64(hi)}),
	}}
	return &sizeExpr{op: sizeTrunc, args: []*sizeExpr{{op: sizeFloor, args: []*sizeExpr{f(sizeMul, h, scale)}}}}
}

// detectionSizeF32 is the same in float32, plainly.
func detectionSizeF32(lo, hi float32, h, w int64) int64 {
	fh, fw := float32(h), float32(w)
	scale := min((1/min(fh, fw))*lo, (1/max(fh, fw))*hi)
	return int64(math.Floor(float64(fh * scale)))
}

// The range sizeRange finds for the detection size holds every value
// float32 computes over the symbols' box, and is tight: within one of the
// true largest and smallest, though h appears four times in the formula
// (interval arithmetic alone bounds it by h's max times 320).
func TestSizeRangeDetection(t *testing.T) {
	for _, tc := range []struct {
		lo, hi     float32
		hmin, hmax int64
		wmin, wmax int64
	}{
		{320, 640, 1, 300, 1, 300},
		{320, 640, 32, 400, 16, 200},
		{24, 40, 1, 64, 1, 64},
		{800, 1333, 100, 700, 100, 700},
	} {
		trueLo, trueHi := int64(math.MaxInt64), int64(math.MinInt64)
		for h := tc.hmin; h <= tc.hmax; h++ {
			for w := tc.wmin; w <= tc.wmax; w++ {
				v := detectionSizeF32(tc.lo, tc.hi, h, w)
				trueLo, trueHi = min(trueLo, v), max(trueHi, v)
			}
		}
		im := &importer{bounds: expr.Bounds{"h": {Min: tc.hmin, Max: tc.hmax}, "w": {Min: tc.wmin, Max: tc.wmax}}}
		lo, hi, err := im.sizeRange(detectionSize(tc.lo, tc.hi))
		require.NoError(t, err, "%+v", tc)
		assert.LessOrEqual(t, lo, trueLo, "%+v", tc)
		assert.GreaterOrEqual(t, lo, trueLo-1, "%+v", tc)
		assert.GreaterOrEqual(t, hi, trueHi, "%+v", tc)
		assert.LessOrEqual(t, hi, trueHi+1, "%+v", tc)
	}
}

// Over unbounded symbols the detection size still has a bound (it never
// passes hi), but a size that grows with h does not: the error names the
// symbol to bound.
func TestSizeBoundUnbounded(t *testing.T) {
	im := &importer{bounds: expr.Bounds{"h": {Min: 1, Max: -1}, "w": {Min: 1, Max: -1}}}
	_, err := im.sizeBound(detectionSize(320, 640))
	require.Error(t, err, "interval arithmetic alone does not see the bound")
	assert.Contains(t, err.Error(), "-max h=N -max w=N")
	grow := &sizeExpr{op: sizeFloor, args: []*sizeExpr{{op: sizeMul, args: []*sizeExpr{exactSize(expr.Sym("h")), {op: sizeConst, c: 3.3}}}}}
	_, err = im.sizeBound(grow)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-max h=N")
	assert.NotContains(t, err.Error(), "w=N")
}

// resizeFloatSizeModel resizes x [h] to floor(float(h) * 33/10), computed
// in dtype to (1 f32, 11 f64), which no integer expression folds.
func resizeFloatSizeModel(to int64) []byte {
	toF := map[string]int64{"to": to}
	return chainModel([]tInput{{"x", 1, []any{"h"}}}, []tNode{
		{op: "Shape", ins: []string{"x"}, outs: []string{"s"}},
		{op: "Cast", ins: []string{"s"}, outs: []string{"hf"}, ints: toF},
		{op: "Constant", outs: []string{"num"}, constI64: []int64{33}},
		{op: "Constant", outs: []string{"den"}, constI64: []int64{10}},
		{op: "Cast", ins: []string{"num"}, outs: []string{"numf"}, ints: toF},
		{op: "Cast", ins: []string{"den"}, outs: []string{"denf"}, ints: toF},
		{op: "Div", ins: []string{"numf", "denf"}, outs: []string{"k"}},
		{op: "Mul", ins: []string{"hf", "k"}, outs: []string{"m"}},
		{op: "Floor", ins: []string{"m"}, outs: []string{"r"}},
		{op: "Cast", ins: []string{"r"}, outs: []string{"size"}, ints: map[string]int64{"to": 7}},
		{op: "Resize", ins: []string{"x", "", "", "size"}, outs: []string{"y"}},
	}, "y")
}

// A Resize whose size is computed in float from h gets a run-time size
// above its least value, bounded over h's range; with a float64
// computation and no -max, h's range (up to 2^53, for an exact cast) gives
// no usable bound, and the error says to give h a -max.
func TestResizeRunTimeSize(t *testing.T) {
	g, res, err := Parse("resize_float.onnx", resizeFloatSizeModel(1), Options{Max: map[string]int64{"h": 100}})
	require.NoError(t, err)
	y := g.Tensor("y")
	require.Len(t, y.Shape, 1)
	assert.Equal(t, "resize_1 + 3", y.Shape[0].String(), "floor(1 * 3.3) = 3 is its least value")
	s := g.Symbol("resize_1")
	require.NotNil(t, s)
	require.True(t, s.RunTime())
	trueMax := int64(0)
	for h := int64(1); h <= 100; h++ {
		trueMax = max(trueMax, int64(math.Floor(float64(float32(h)*(float32(33)/float32(10))))))
	}
	assert.GreaterOrEqual(t, s.Max+3, trueMax)
	assert.LessOrEqual(t, s.Max+3, trueMax+1)
	assert.NotEmpty(t, res.Notes)

	_, _, err = Parse("resize_float.onnx", resizeFloatSizeModel(11), Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `op "Resize"`)
	assert.Contains(t, err.Error(), "-max h=N")
}
