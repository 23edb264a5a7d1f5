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

type poolCase struct {
	kind       string // MaxPool or AveragePool
	n, ch      int
	in, k      []int
	s, d, p    []int
	ceil       bool
	includePad bool
	rowGap     int
	step       int
	nan        bool // one input NaN per plane
}

func (tc poolCase) String() string {
	return fmt.Sprintf("%s n%d c%d in%v k%v s%v d%v p%v ceil %v incl %v gap %d step %d nan %v", tc.kind, tc.n, tc.ch, tc.in, tc.k, tc.s, tc.d, tc.p, tc.ceil, tc.includePad, tc.rowGap, tc.step, tc.nan)
}

// naivePool is pooling written plainly from ONNX's definition, over one
// flat output index at a time, in float64.
func naivePool(tc poolCase, x wgrt.Tensor, oShape []int) []float32 {
	r := len(tc.in)
	out := make([]float32, prod(oShape))
	o := make([]int, len(oShape))
	for flat := range out {
		for d, q := len(oShape)-1, flat; d >= 0; d-- {
			o[d], q = q%oShape[d], q/oShape[d]
		}
		best, sum, count := math.Inf(-1), 0.0, 0
		k := make([]int, r)
		for kf := 0; kf < prod(tc.k); kf++ {
			for d, q := r-1, kf; d >= 0; d-- {
				k[d], q = q%tc.k[d], q/tc.k[d]
			}
			off, inside, inPad := o[0]*x.Strides[0]+o[1]*x.Strides[1], true, true
			for d := range r {
				pos := o[2+d]*tc.s[d] - tc.p[d] + k[d]*tc.d[d]
				inside = inside && pos >= 0 && pos < tc.in[d]
				inPad = inPad && pos >= -tc.p[d] && pos < tc.in[d]+tc.p[r+d]
				off += pos * x.Strides[2+d]
			}
			if !inside {
				if inPad && tc.includePad {
					count++
				}
				continue
			}
			v := float64(x.Float32s()[off])
			if v > best || math.IsNaN(v) || math.IsNaN(best) {
				if !math.IsNaN(best) {
					best = v
				}
			}
			sum += v
			count++
		}
		if tc.kind == "MaxPool" {
			out[flat] = float32(best)
		} else {
			out[flat] = float32(sum / float64(count))
		}
	}
	return out
}

// naiveArgmax is MaxPool's Indices from ONNX's definition: the flat index
// into x (row-major, or column-major over the spatial axes) of each
// window's first largest element, -1 for a window all in the padding.
func naiveArgmax(tc poolCase, oShape []int, columnMajor bool, x wgrt.Tensor) []int64 {
	r := len(tc.in)
	out := make([]int64, prod(oShape))
	o, k := make([]int, len(oShape)), make([]int, r)
	for flat := range out {
		for d, q := len(oShape)-1, flat; d >= 0; d-- {
			o[d], q = q%oShape[d], q/oShape[d]
		}
		best, at := 0.0, int64(-1)
		for kf := 0; kf < prod(tc.k); kf++ {
			for d, q := r-1, kf; d >= 0; d-- {
				k[d], q = q%tc.k[d], q/tc.k[d]
			}
			off, inside, index, step := o[0]*x.Strides[0]+o[1]*x.Strides[1], true, 0, 1
			for d := range r {
				pos := o[2+d]*tc.s[d] - tc.p[d] + k[d]*tc.d[d]
				inside = inside && pos >= 0 && pos < tc.in[d]
				off += pos * x.Strides[2+d]
				if columnMajor {
					index += pos * step
					step *= tc.in[d]
				} else {
					index = index*tc.in[d] + pos
				}
			}
			if !inside {
				continue
			}
			if v := float64(x.Float32s()[off]); at < 0 || v > best {
				best, at = v, int64((o[0]*tc.ch+o[1])*prod(tc.in)+index)
			}
		}
		out[flat] = at
	}
	return out
}

func poolOutSize(in, k, s, d, pb, pe int, ceil bool) int {
	span := in + pb + pe - ((k-1)*d + 1)
	if !ceil {
		return span/s + 1
	}
	o := (span+s-1)/s + 1
	if (o-1)*s >= in+pb { // the last window would start in the end padding
		o--
	}
	return o
}

// MaxPool and AveragePool's fast path against the plain definition: 1-D
// and 2-D, odd sizes, strides 1 to 3, dilations, asymmetric pads,
// ceil_mode, count_include_pad both ways, NaNs, batches, inputs whose rows
// lie apart; and the inputs and windows it leaves to the generic path.
func TestPoolMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	var cases []poolCase
	for _, kind := range []string{"MaxPool", "AveragePool"} {
		for _, incl := range []bool{false, true} {
			if kind == "MaxPool" && incl {
				continue
			}
			cases = append(cases,
				poolCase{kind: kind, n: 2, ch: 3, in: []int{112, 112}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, includePad: incl},
				poolCase{kind: kind, n: 1, ch: 2, in: []int{13, 45}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, includePad: incl, nan: true},
				poolCase{kind: kind, n: 1, ch: 2, in: []int{14, 50}, k: []int{2, 2}, s: []int{2, 2}, d: []int{1, 1}, p: []int{0, 0, 0, 0}, includePad: incl},
				poolCase{kind: kind, n: 1, ch: 2, in: []int{15, 46}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, p: []int{0, 0, 0, 0}, ceil: true, includePad: incl},
				poolCase{kind: kind, n: 1, ch: 2, in: []int{16, 41}, k: []int{3, 5}, s: []int{3, 2}, d: []int{2, 1}, p: []int{2, 1, 1, 2}, ceil: true, includePad: incl},
				poolCase{kind: kind, n: 2, ch: 2, in: []int{9, 37}, k: []int{3, 3}, s: []int{2, 1}, d: []int{1, 2}, p: []int{1, 2, 1, 2}, includePad: incl, rowGap: 3},
				poolCase{kind: kind, n: 1, ch: 3, in: []int{7, 7}, k: []int{7, 7}, s: []int{1, 1}, d: []int{1, 1}, p: []int{0, 0, 0, 0}, includePad: incl},
				poolCase{kind: kind, n: 2, ch: 2, in: []int{101}, k: []int{4}, s: []int{3}, d: []int{1}, p: []int{2, 1}, ceil: true, includePad: incl, nan: true},
				// Sixteen or eight channels at a time (max pooling on AVX-512
				// or AVX2), some over; rows of 1 to 3 positions past the quads.
				poolCase{kind: kind, n: 1, ch: 18, in: []int{112, 112}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, includePad: incl},
				poolCase{kind: kind, n: 2, ch: 16, in: []int{13, 27}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, includePad: incl, nan: true},
				poolCase{kind: kind, n: 1, ch: 17, in: []int{15, 46}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, p: []int{0, 0, 0, 0}, ceil: true, includePad: incl},
				poolCase{kind: kind, n: 1, ch: 16, in: []int{16, 41}, k: []int{3, 5}, s: []int{3, 2}, d: []int{2, 1}, p: []int{2, 1, 1, 2}, ceil: true, includePad: incl, nan: true},
				poolCase{kind: kind, n: 1, ch: 32, in: []int{9, 37}, k: []int{3, 3}, s: []int{2, 1}, d: []int{1, 2}, p: []int{1, 2, 1, 2}, includePad: incl, rowGap: 3},
				poolCase{kind: kind, n: 1, ch: 8, in: []int{5, 6}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, includePad: incl, nan: true},
				poolCase{kind: kind, n: 1, ch: 8, in: []int{5, 13}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, includePad: incl, nan: true},
				poolCase{kind: kind, n: 1, ch: 9, in: []int{6, 5}, k: []int{2, 2}, s: []int{1, 1}, d: []int{1, 1}, p: []int{0, 0, 0, 0}, includePad: incl},
				// Generic path: a strided last axis, 3-D, 81 taps.
				poolCase{kind: kind, n: 1, ch: 2, in: []int{10, 20}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, includePad: incl, step: 2},
				poolCase{kind: kind, n: 1, ch: 2, in: []int{5, 6, 7}, k: []int{2, 3, 2}, s: []int{1, 2, 1}, d: []int{1, 1, 1}, p: []int{1, 0, 1, 0, 1, 1}, includePad: incl},
				poolCase{kind: kind, n: 1, ch: 1, in: []int{20, 20}, k: []int{9, 9}, s: []int{1, 1}, d: []int{1, 1}, p: []int{4, 4, 4, 4}, includePad: incl},
			)
		}
	}
	// Rows of 1 to 9 positions at strides 1 and 2: every group the blocks
	// take a row's positions in.
	for ow := 1; ow <= 9; ow++ {
		for s := 1; s <= 2; s++ {
			cases = append(cases, poolCase{kind: "MaxPool", n: 1, ch: 16, in: []int{3, (ow-1)*s + 1}, k: []int{3, 3}, s: []int{s, s}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, nan: ow%2 == 0})
		}
	}
	// Max pooling's blocks of sixteen and eight channels where the CPU
	// has them, then the tap rows.
	have16, have8 := maxPool16Vector, maxPool8Vector
	defer func() { maxPool16Vector, maxPool8Vector = have16, have8 }()
	blocks := []struct {
		name    string
		v16, v8 bool
	}{{"blocks of 16", true, false}, {"blocks of 8", false, true}, {"tap rows", false, false}}
	for _, b := range blocks {
		if b.v16 && !have16 || b.v8 && !have8 {
			continue
		}
		maxPool16Vector, maxPool8Vector = b.v16, b.v8
		forEachPlanePath(t, func(path string) {
			for _, tc := range cases {
				testPool(t, r, tc, b.name+", "+path)
			}
		})
	}
}

// testPool runs one pooling case against naivePool.
func testPool(t *testing.T, r *rand.Rand, tc poolCase, path string) {
	if tc.step == 0 {
		tc.step = 1
	}
	r0 := len(tc.in)
	xShape := append([]int{tc.n, tc.ch}, tc.in...)
	oShape := []int{tc.n, tc.ch}
	for d := range r0 {
		oShape = append(oShape, poolOutSize(tc.in[d], tc.k[d], tc.s[d], tc.d[d], tc.p[d], tc.p[r0+d], tc.ceil))
	}
	x := randView(r, xShape, tc.rowGap, tc.step)
	if tc.nan {
		for p := 0; p < tc.n*tc.ch; p++ {
			x.Float32s()[p*x.Strides[1]+r.Intn(tc.in[r0-1])*tc.step] = float32(math.NaN())
		}
	}
	got := wgrt.New(wgrt.F32, oShape...)
	attrs := []wgrt.Attr{intsAttr("kernel_shape", tc.k...), intsAttr("strides", tc.s...), intsAttr("pads", tc.p...), intsAttr("dilations", tc.d...)}
	if tc.includePad {
		attrs = append(attrs, intAttr("count_include_pad", 1))
	}
	c := &wgrt.Call{Kernel: tc.kind, Inputs: []wgrt.Tensor{x}, Outputs: []wgrt.Tensor{got}, Attrs: attrs}
	require.NoError(t, Call(c), "%v", tc)
	requireClose(t, naivePool(tc, x, oShape), got.Float32s(), 1e-5, "%s", path+" "+tc.String())
	assert.Zero(t, testing.AllocsPerRun(3, func() { _ = Call(c) }), "%s %v allocates", path, tc)
	if tc.kind != "MaxPool" || tc.nan {
		return
	}
	// With Indices, in both storage orders.
	for _, order := range []int{0, 1} {
		vals, idx := wgrt.New(wgrt.F32, oShape...), wgrt.New(wgrt.I64, oShape...)
		c := &wgrt.Call{Kernel: tc.kind, Inputs: []wgrt.Tensor{x}, Outputs: []wgrt.Tensor{vals, idx}, Attrs: append(attrs[:len(attrs):len(attrs)], intAttr("storage_order", order))}
		require.NoError(t, Call(c), "%v", tc)
		msg := fmt.Sprintf("%s %v order %d", path, tc, order)
		requireClose(t, naivePool(tc, x, oShape), vals.Float32s(), 0, "%s", msg)
		assert.Equal(t, naiveArgmax(tc, oShape, order == 1, x), idx.Int64s(), msg)
		assert.Zero(t, testing.AllocsPerRun(3, func() { _ = Call(c) }), "%s allocates", msg)
	}
}

// The assembly row reductions against plain loops, on lengths around
// their block sizes, with a NaN at the start, the middle or the end.
func TestRowSumMaxMatchNaive(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	for _, n := range []int{0, 1, 15, 16, 17, 31, 32, 33, 64, 100, 12544} {
		for nanAt := -1; nanAt < 3; nanAt++ {
			x := randFloats(r, n)
			if nanAt >= 0 && n > 0 {
				x[[]int{0, n / 2, n - 1}[nanAt]] = float32(math.NaN())
			}
			sum, best := 0.0, math.Inf(-1)
			for _, v := range x {
				sum += float64(v)
				if math.IsNaN(float64(v)) || math.IsNaN(best) {
					best = math.NaN()
				} else {
					best = math.Max(best, float64(v))
				}
			}
			msg := fmt.Sprintf("n %d nan at %d", n, nanAt)
			if math.IsNaN(sum) {
				assert.True(t, math.IsNaN(rowSum(x)), msg)
			} else {
				assert.InDelta(t, sum, rowSum(x), 1e-9*float64(n+1), msg)
			}
			if math.IsNaN(best) {
				assert.True(t, math.IsNaN(float64(rowMax(x))), msg)
			} else {
				assert.Equal(t, float32(best), rowMax(x), msg)
			}
		}
	}
}

// GlobalAveragePool and GlobalMaxPool against plain loops, over 1-D to
// 3-D planes, contiguous and not.
func TestGlobalPoolMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for _, tc := range []struct {
		shape  []int
		rowGap int
		nan    bool
	}{
		{shape: []int{2, 3, 7, 7}}, {shape: []int{1, 4, 56, 56}, nan: true}, {shape: []int{2, 3, 33}},
		{shape: []int{1, 2, 3, 5, 4}}, {shape: []int{2, 3, 9, 10}, rowGap: 2},
	} {
		x := randView(r, tc.shape, tc.rowGap, 1)
		if tc.nan {
			x.Float32s()[77] = float32(math.NaN())
		}
		oShape := append([]int{tc.shape[0], tc.shape[1]}, make([]int, len(tc.shape)-2)...)
		for d := 2; d < len(oShape); d++ {
			oShape[d] = 1
		}
		for _, kind := range []string{"GlobalAveragePool", "GlobalMaxPool"} {
			got := wgrt.New(wgrt.F32, oShape...)
			c := &wgrt.Call{Kernel: kind, Inputs: []wgrt.Tensor{x}, Outputs: []wgrt.Tensor{got}}
			require.NoError(t, Call(c))
			want := make([]float32, tc.shape[0]*tc.shape[1])
			spatial := tc.shape[2:]
			for p := range want {
				b, ch := p/tc.shape[1], p%tc.shape[1]
				sum, best := 0.0, math.Inf(-1)
				for s := range indices(spatial) {
					v := float64(x.Float32s()[b*x.Strides[0]+ch*x.Strides[1]+offsetOf(s, x.Strides[2:])])
					sum += v
					if math.IsNaN(v) || math.IsNaN(best) {
						best = math.NaN()
					} else {
						best = math.Max(best, v)
					}
				}
				want[p] = float32(best)
				if kind == "GlobalAveragePool" {
					want[p] = float32(sum / float64(prod(spatial)))
				}
			}
			requireClose(t, want, got.Float32s(), 1e-6, "%s", fmt.Sprintf("%s %v gap %d", kind, tc.shape, tc.rowGap))
			assert.Zero(t, testing.AllocsPerRun(3, func() { _ = Call(c) }), "%s allocates", kind)
		}
	}
}
