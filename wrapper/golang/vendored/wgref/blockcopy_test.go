package wgref

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Gather over contiguous tensors (block copies) picks what indexing by
// hand picks, along every axis, with negative and repeated indices and
// indices of rank 2; an index out of range is an error.
func TestGatherBlocksMatchNaiveIndexing(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	x := randomF32(r, 5, 4, 3, 6)
	idx := wgrt.New(wgrt.I64, 2, 2)
	copy(idx.Int64s(), []int64{1, -1, 0, 1})
	for axis := 0; axis < 3; axis++ {
		outShape := append(append(append([]int{}, x.Shape[:axis]...), 2, 2), x.Shape[axis+1:]...)
		out := wgrt.New(wgrt.F32, outShape...)
		require.NoError(t, Call(&wgrt.Call{Kernel: "Gather", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x, idx}, Attrs: []wgrt.Attr{intAttr("axis", axis)}}))
		eachIndex(out.Shape, func(o []int) {
			src := append(append([]int{}, o[:axis]...), o[axis+2:]...)
			i := int(idx.Int64s()[o[axis]*2+o[axis+1]])
			if i < 0 {
				i += x.Shape[axis]
			}
			src = append(src[:axis], append([]int{i}, src[axis:]...)...)
			assert.Equal(t, at(x, src), at(out, o), "axis %d at %v", axis, o)
		})
	}
	bad := wgrt.New(wgrt.I64, 1)
	bad.Int64s()[0] = 4
	err := Call(&wgrt.Call{Kernel: "Gather", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 1, 3, 6)}, Inputs: []wgrt.Tensor{x, bad}, Attrs: []wgrt.Attr{intAttr("axis", 0)}})
	assert.ErrorContains(t, err, "index 4 is outside [-4, 4)")
}

// Where over merged rows picks per element as a plain loop does, with the
// condition and values broadcast.
func TestWhereMatchesNaiveLoop(t *testing.T) {
	r := rand.New(rand.NewSource(14))
	cond := wgrt.New(wgrt.Bool, 2, 1, 24)
	for i := range cond.Data {
		cond.Data[i] = byte(r.Intn(2))
	}
	x, y := randomF32(r, 2, 2, 4, 24), randomF32(r, 2, 1)
	out := wgrt.New(wgrt.F32, 2, 4, 24)
	require.NoError(t, Call(&wgrt.Call{Kernel: "Where", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{cond, x, y}}))
	eachIndex(out.Shape, func(o []int) {
		want := y.Float32s()[0]
		if cond.Data[o[0]*24+o[2]] != 0 {
			want = at(x, o)
		}
		assert.Equal(t, want, at(out, o), "at %v", o)
	})
}

// The Cast fast paths convert as the general path does.
func TestCastFastPathsMatchGeneralPath(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	values := []float64{0, 1, -1, 3.5, -7.25, 1e10, -1e10, 1 << 40, 255, 256, 1e-3}
	for _, pair := range [][2]wgrt.DType{{wgrt.I64, wgrt.F32}, {wgrt.I32, wgrt.F32}, {wgrt.F32, wgrt.F64}, {wgrt.F64, wgrt.F32},
		{wgrt.I64, wgrt.I32}, {wgrt.I32, wgrt.I64}, {wgrt.Bool, wgrt.F32}, {wgrt.Bool, wgrt.I64}, {wgrt.I64, wgrt.Bool}, {wgrt.F32, wgrt.Bool}} {
		x := wgrt.New(pair[0], 3, 37)
		for i := 0; i < 3*37; i++ {
			v := values[r.Intn(len(values))]
			if pair[0] == wgrt.Bool {
				v = float64(r.Intn(2))
			}
			storeF(x, i, v)
		}
		fast, general := wgrt.New(pair[1], 3, 37), wgrt.New(pair[1], 3, 37)
		require.True(t, castFast(fast, x), "%v", pair)
		// The general path, element by element through float64/int64.
		for i := 0; i < 3*37; i++ {
			switch {
			case pair[1] == wgrt.Bool:
				storeF(general, i, loadF(x, i))
			case familyOf(pair[1]) == famFloat:
				storeF(general, i, loadF(x, i))
			default:
				storeI(general, i, loadI(x, i))
			}
		}
		assert.Equal(t, general.Data, fast.Data, "%s to %s", pair[0], pair[1])
	}
}

// Transpose and Concat (strided copies over merged rows) place each
// element where indexing by hand does.
func TestTransposeAndConcatMatchNaiveIndexing(t *testing.T) {
	r := rand.New(rand.NewSource(16))
	x := randomF32(r, 5, 2, 5, 3, 7)
	for _, perm := range [][]int{{0, 2, 1, 3}, {0, 2, 3, 1}, {3, 2, 1, 0}, {0, 1, 2, 3}} {
		shape := make([]int, 4)
		for d, p := range perm {
			shape[d] = x.Shape[p]
		}
		out := wgrt.New(wgrt.F32, shape...)
		require.NoError(t, Call(&wgrt.Call{Kernel: "Transpose", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x}, Attrs: []wgrt.Attr{intsAttr("perm", perm...)}}))
		eachIndex(out.Shape, func(o []int) {
			src := make([]int, 4)
			for d, p := range perm {
				src[p] = o[d]
			}
			assert.Equal(t, at(x, src), at(out, o), "perm %v at %v", perm, o)
		})
	}
	a, b := randomF32(r, 1, 2, 3, 5), randomF32(r, 1, 2, 4, 5)
	out := wgrt.New(wgrt.F32, 2, 7, 5)
	require.NoError(t, Call(&wgrt.Call{Kernel: "Concat", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{a, b}, Attrs: []wgrt.Attr{intAttr("axis", 1)}}))
	eachIndex(out.Shape, func(o []int) {
		want := float32(math.NaN())
		if o[1] < 3 {
			want = at(a, o)
		} else {
			want = at(b, []int{o[0], o[1] - 3, o[2]})
		}
		assert.Equal(t, want, at(out, o), "concat at %v", o)
	})
}

func TestGatherWhereCastAllocateNothing(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	emb, ids := randomF32(r, 1, 100, 64), wgrt.New(wgrt.I64, 2, 24)
	for i := range ids.Int64s() {
		ids.Int64s()[i] = int64(r.Intn(100))
	}
	cond := wgrt.New(wgrt.Bool, 2, 24)
	for _, c := range []*wgrt.Call{
		{Kernel: "Gather", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 2, 24, 64)}, Inputs: []wgrt.Tensor{emb, ids}, Attrs: []wgrt.Attr{intAttr("axis", 0)}},
		{Kernel: "Where", Outputs: []wgrt.Tensor{wgrt.New(wgrt.I64, 2, 24)}, Inputs: []wgrt.Tensor{cond, ids, ids}},
		{Kernel: "Cast", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 2, 24)}, Inputs: []wgrt.Tensor{ids}, Attrs: []wgrt.Attr{intAttr("to", 1)}},
	} {
		assert.Zero(t, testing.AllocsPerRun(20, func() { require.NoError(t, Call(c)) }), c.Kernel)
	}
}

// Constant Pad of float32 (a fill, then the kept block copied) gives what
// indexing by hand gives, with negative pads cropping.
func TestPadConstantMatchesNaiveIndexing(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	x := randomF32(r, 2, 2, 3, 5)
	for _, pads := range [][]int{{0, 1, 2, 0, 1, 3}, {1, -1, 0, 0, 0, -2}, {0, -3, 0, 0, 0, 0}} {
		shape := make([]int, 3)
		for d := range shape {
			shape[d] = max(x.Shape[d]+pads[d]+pads[d+3], 0)
		}
		out := wgrt.New(wgrt.F32, shape...)
		attrs := []wgrt.Attr{intsAttr("pads", pads...), {Name: "value", Kind: wgrt.AttrFloat, Float: 7.5}}
		require.NoError(t, Call(&wgrt.Call{Kernel: "Pad", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x}, Attrs: attrs}))
		eachIndex(out.Shape, func(o []int) {
			want := float32(7.5)
			src := make([]int, 3)
			inside := true
			for d := range o {
				src[d] = o[d] - pads[d]
				inside = inside && src[d] >= 0 && src[d] < x.Shape[d]
			}
			if inside {
				want = at(x, src)
			}
			assert.Equal(t, want, at(out, o), "pads %v at %v", pads, o)
		})
	}
}

// A reshape copy between a strided view and a contiguous output keeps
// row-major order.
func TestCopyAsStridedMatchesRowMajorOrder(t *testing.T) {
	r := rand.New(rand.NewSource(22))
	x := reversedView(r, 3, 4, 5)
	out := wgrt.New(wgrt.F32, 6, 10)
	require.NoError(t, Call(&wgrt.Call{Kernel: "Reshape", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x}}))
	i := 0
	eachIndex(x.Shape, func(idx []int) {
		assert.Equal(t, at(x, idx), out.Float32s()[i], "element %d", i)
		i++
	})
}

func TestMovementKernelsAllocateNothing(t *testing.T) {
	r := rand.New(rand.NewSource(23))
	x := randomF32(r, 1, 2, 3, 4)
	v := reversedView(r, 2, 3, 4)
	for _, c := range []*wgrt.Call{
		{Kernel: "Transpose", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 4, 3, 2)}, Inputs: []wgrt.Tensor{x}, Attrs: []wgrt.Attr{intsAttr("perm", 2, 1, 0)}},
		{Kernel: "Tile", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 4, 3, 8)}, Inputs: []wgrt.Tensor{x}},
		{Kernel: "Pad", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 2, 5, 4)}, Inputs: []wgrt.Tensor{x}, Attrs: []wgrt.Attr{intsAttr("pads", 0, 1, 0, 0, 1, 0)}},
		{Kernel: "Pad", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 2, 5, 4)}, Inputs: []wgrt.Tensor{x}, Attrs: []wgrt.Attr{intsAttr("pads", 0, 1, 0, 0, 1, 0), {Name: "mode", Kind: wgrt.AttrString, Str: "edge"}}},
		{Kernel: "Reshape", Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, 6, 4)}, Inputs: []wgrt.Tensor{v}},
	} {
		assert.Zero(t, testing.AllocsPerRun(20, func() { require.NoError(t, Call(c)) }), c.Kernel)
	}
}
