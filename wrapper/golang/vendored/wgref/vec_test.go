package wgref

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// eachIndex calls fn with every multi-index of shape in row-major order:
// the tests' own walk, independent of the kernels' row iterator.
func eachIndex(shape []int, fn func(idx []int)) {
	for _, d := range shape {
		if d == 0 {
			return
		}
	}
	idx := make([]int, len(shape))
	for {
		fn(idx)
		d := len(shape) - 1
		for ; d >= 0; d-- {
			if idx[d]++; idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

// at is t's float32 element at idx of the shape t broadcasts to (its
// dimensions right-aligned, size 1 repeated).
func at(t wgrt.Tensor, idx []int) float32 {
	off := 0
	lead := len(idx) - len(t.Shape)
	for d := range t.Shape {
		if t.Shape[d] != 1 {
			off += idx[lead+d] * t.Strides[d]
		}
	}
	return math.Float32frombits(uint32(t.Data[4*off]) | uint32(t.Data[4*off+1])<<8 | uint32(t.Data[4*off+2])<<16 | uint32(t.Data[4*off+3])<<24)
}

func randomF32(r *rand.Rand, scale float32, shape ...int) wgrt.Tensor {
	t := wgrt.New(wgrt.F32, shape...)
	for i := range t.Float32s() {
		t.Float32s()[i] = (r.Float32()*2 - 1) * scale
	}
	return t
}

// reversedView is a tensor of shape whose memory holds it with the
// dimensions in reverse order: every stride is non-unit but the first.
func reversedView(r *rand.Rand, shape ...int) wgrt.Tensor {
	rev := make([]int, len(shape))
	for i, d := range shape {
		rev[len(shape)-1-i] = d
	}
	t := randomF32(r, 3, rev...)
	strides := make([]int, len(shape))
	for i := range shape {
		strides[i] = t.Strides[len(shape)-1-i]
	}
	t.Shape, t.Strides = append([]int(nil), shape...), strides
	return t
}

func broadcastShape(a, b []int) []int {
	n := max(len(a), len(b))
	out := make([]int, n)
	for i := 1; i <= n; i++ {
		x, y := 1, 1
		if i <= len(a) {
			x = a[len(a)-i]
		}
		if i <= len(b) {
			y = b[len(b)-i]
		}
		out[n-i] = x
		if x == 1 {
			out[n-i] = y
		}
	}
	return out
}

// The float32 fast paths of the binary kernels (contiguous rows, a
// broadcast scalar on either side, a broadcast row or column, strided
// operands and outputs through chunks) give what a plain loop over every
// index gives, exactly: each element is one float32 operation.
func TestBinaryFloat32RowsMatchNaiveLoop(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	ops := map[string]func(x, y float32) float32{
		"Add": func(x, y float32) float32 { return x + y },
		"Sub": func(x, y float32) float32 { return x - y },
		"Mul": func(x, y float32) float32 { return x * y },
		"Div": func(x, y float32) float32 { return x / y },
		"Max": func(x, y float32) float32 {
			if x > y {
				return x
			}
			return y
		},
		"Min": func(x, y float32) float32 {
			if x < y {
				return x
			}
			return y
		},
		"PRelu": func(x, y float32) float32 {
			if x < 0 {
				return x * y
			}
			return x
		},
	}
	type pair struct {
		name string
		a, b func() wgrt.Tensor
		out  func(shape []int) wgrt.Tensor
	}
	contig := func(shape ...int) func() wgrt.Tensor { return func() wgrt.Tensor { return randomF32(r, 3, shape...) } }
	strided := func(shape ...int) func() wgrt.Tensor { return func() wgrt.Tensor { return reversedView(r, shape...) } }
	plainOut := func(shape []int) wgrt.Tensor { return wgrt.New(wgrt.F32, shape...) }
	stridedOut := func(shape []int) wgrt.Tensor { return reversedView(r, shape...) }
	cases := []pair{
		{"same shape", contig(2, 3, 37), contig(2, 3, 37), plainOut},
		{"one long row", contig(4133), contig(4133), plainOut},
		{"scalar second", contig(2, 3, 37), contig(), plainOut},
		{"scalar first", contig(), contig(2, 3, 37), plainOut},
		{"scalar of shape [1, 1]", contig(5, 67), contig(1, 1), plainOut},
		{"row second (bias)", contig(2, 3, 37), contig(37), plainOut},
		{"row first", contig(37), contig(2, 3, 37), plainOut},
		{"column", contig(2, 3, 37), contig(2, 3, 1), plainOut},
		{"column first", contig(2, 3, 1), contig(2, 3, 37), plainOut},
		{"both broadcast", contig(2, 1, 37), contig(3, 1), plainOut},
		{"short rows", contig(61, 3), contig(3), plainOut},
		{"strided first", strided(2, 3, 37), contig(37), plainOut},
		{"strided both", strided(3, 67), strided(3, 67), plainOut},
		{"strided output", contig(3, 5, 7), contig(7), stridedOut},
		{"empty", contig(0, 5), contig(5), plainOut},
	}
	for name, op := range ops {
		for _, c := range cases {
			a, b := c.a(), c.b()
			if name == "PRelu" && c.name == "both broadcast" {
				continue // the slope broadcasts to x, not the other way
			}
			out := c.out(broadcastShape(a.Shape, b.Shape))
			require.NoError(t, Call(&wgrt.Call{Kernel: name, Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{a, b}}), "%s %s", name, c.name)
			bad := 0
			eachIndex(out.Shape, func(idx []int) {
				want, got := op(at(a, idx), at(b, idx)), at(out, idx)
				if math.Float32bits(want) != math.Float32bits(got) && bad < 3 {
					bad++
					t.Errorf("%s %s at %v: got %v, want %v", name, c.name, idx, got, want)
				}
			})
		}
	}
}

// The float32 row functions of the unary kernels stay within a few
// float32 ulps of float64's functions written plainly here, over
// contiguous and strided tensors of odd sizes.
func TestUnaryFloat32RowsMatchNaiveLoop(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	type unary struct {
		kernel string
		attrs  []wgrt.Attr
		f      func(float64) float64
	}
	fl := func(name string, v float64) wgrt.Attr { return wgrt.Attr{Name: name, Kind: wgrt.AttrFloat, Float: v} }
	cases := []unary{
		{"Relu", nil, func(x float64) float64 { return math.Max(x, 0) }},
		{"LeakyRelu", []wgrt.Attr{fl("alpha", 0.1)}, func(x float64) float64 {
			if x < 0 {
				return 0.1 * x
			}
			return x
		}},
		{"Clip", []wgrt.Attr{fl("min", -0.5), fl("max", 0.7)}, func(x float64) float64 { return math.Min(math.Max(x, -0.5), 0.7) }},
		{"HardSigmoid", []wgrt.Attr{fl("alpha", 0.2), fl("beta", 0.5)}, func(x float64) float64 { return math.Min(math.Max(0.2*x+0.5, 0), 1) }},
		{"HardSwish", nil, func(x float64) float64 { return x * math.Min(math.Max(x/6+0.5, 0), 1) }},
		{"Neg", nil, func(x float64) float64 { return -x }},
		{"Abs", nil, math.Abs},
		{"Sqrt", nil, math.Sqrt},
		{"Exp", nil, math.Exp},
		{"Sigmoid", nil, func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }},
		{"Tanh", nil, math.Tanh},
		{"Erf", nil, math.Erf},
		{"Gelu", nil, func(x float64) float64 { return x / 2 * (1 + math.Erf(x/math.Sqrt2)) }},
		{"Gelu", []wgrt.Attr{{Name: "approximate", Kind: wgrt.AttrString, Str: "tanh"}}, func(x float64) float64 {
			return x / 2 * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
		}},
	}
	inputs := []func() wgrt.Tensor{
		func() wgrt.Tensor { return randomF32(r, 6, 3, 5, 7) },
		func() wgrt.Tensor { return randomF32(r, 6, 4099) },
		func() wgrt.Tensor { return randomF32(r, 6, 1) },
		func() wgrt.Tensor { return reversedView(r, 5, 67) },
	}
	for _, c := range cases {
		for k, in := range inputs {
			x := in()
			out := wgrt.New(wgrt.F32, x.Shape...)
			require.NoError(t, Call(&wgrt.Call{Kernel: c.kernel, Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x}, Attrs: c.attrs}))
			bad := 0
			eachIndex(out.Shape, func(idx []int) {
				v := float64(at(x, idx))
				want, got := c.f(v), float64(at(out, idx))
				if !(math.Abs(got-want) <= 2e-6*math.Max(1, math.Abs(want))) && !(math.IsNaN(want) && math.IsNaN(got)) && bad < 3 {
					bad++
					t.Errorf("%s %v (input %d) of %v: got %v, want %v", c.kernel, c.attrs, k, v, got, want)
				}
			})
		}
	}
}

// coalesce merges what every operand walks as one and nothing else.
func TestCoalesceMergesContiguousAndBroadcastDimensions(t *testing.T) {
	for _, c := range []struct {
		shape     []int
		strides   [][]int
		wantShape []int
	}{
		{[]int{2, 24, 256}, [][]int{{6144, 256, 1}, {0, 0, 1}}, []int{48, 256}},
		{[]int{2, 24, 256}, [][]int{{6144, 256, 1}, {6144, 256, 1}}, []int{12288}},
		{[]int{2, 1, 3}, [][]int{{3, 3, 1}, {0, 0, 0}}, []int{6}},
		{[]int{4, 5}, [][]int{{5, 1}, {1, 4}}, []int{4, 5}},
		{[]int{1, 1}, [][]int{{1, 1}}, []int{}},
		{[]int{3, 0}, [][]int{{0, 1}}, []int{3, 0}},
	} {
		var it rowIter
		it.init(c.shape)
		for _, s := range c.strides {
			it.add(s, 0)
		}
		it.coalesce()
		assert.Equal(t, c.wantShape, append([]int{}, it.shape[:it.rank]...), "%v %v", c.shape, c.strides)
		// The walk still visits each operand's offsets in the same order.
		var got, want []string
		for it.next() {
			for k := 0; k < it.n; k++ {
				got = append(got, fmt.Sprint(it.off[0]+k*it.step[0], it.off[1%it.nops]+k*it.step[1%it.nops]))
			}
		}
		eachRow(c.shape, c.strides, func(off [maxOperands]int, n int, step [maxOperands]int) {
			for k := 0; k < n; k++ {
				want = append(want, fmt.Sprint(off[0]+k*step[0], off[1%len(c.strides)]+k*step[1%len(c.strides)]))
			}
		})
		assert.Equal(t, want, got, "%v %v", c.shape, c.strides)
	}
}

// Broadcast Add and strided unary kernels write over an input in place
// (may_alias) as they write elsewhere.
func TestFloat32RowsInPlace(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	x, bias := randomF32(r, 2, 6, 67), randomF32(r, 2, 67)
	want := wgrt.New(wgrt.F32, 6, 67)
	require.NoError(t, Call(&wgrt.Call{Kernel: "Add", Outputs: []wgrt.Tensor{want}, Inputs: []wgrt.Tensor{x, bias}}))
	require.NoError(t, Call(&wgrt.Call{Kernel: "Add", Outputs: []wgrt.Tensor{x}, Inputs: []wgrt.Tensor{x, bias}}))
	assert.Equal(t, want.Data, x.Data)

	for _, kernel := range []string{"Gelu", "Relu", "Sigmoid", "Exp"} {
		v := reversedView(r, 7, 131)
		want := wgrt.New(wgrt.F32, 7, 131)
		require.NoError(t, Call(&wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{want}, Inputs: []wgrt.Tensor{v}}))
		require.NoError(t, Call(&wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{v}, Inputs: []wgrt.Tensor{v}}))
		eachIndex(v.Shape, func(idx []int) {
			if at(v, idx) != at(want, idx) {
				t.Fatalf("%s in place at %v: %v, out of place %v", kernel, idx, at(v, idx), at(want, idx))
			}
		})
	}
}

// The row kernels allocate nothing per call.
func TestFloat32RowsAllocateNothing(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	x, bias, out := randomF32(r, 2, 2, 24, 64), randomF32(r, 2, 64), wgrt.New(wgrt.F32, 2, 24, 64)
	v := reversedView(r, 2, 24, 64)
	calls := []*wgrt.Call{
		{Kernel: "Add", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x, bias}},
		{Kernel: "Div", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{bias, v}},
		{Kernel: "Erf", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{v}},
		{Kernel: "Relu", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x}},
		{Kernel: "Gelu", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x}},
	}
	for _, c := range calls {
		allocs := testing.AllocsPerRun(20, func() { require.NoError(t, Call(c)) })
		assert.Zero(t, allocs, c.Kernel)
	}
}
