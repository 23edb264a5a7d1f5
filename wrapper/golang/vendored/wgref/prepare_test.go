package wgref

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Weights packed once (Prepare) against the same kernels packing per
// call: the same bits, on every micro-kernel path; both against a naive
// loop written here. Then the weights are zeroed and the call repeated:
// where Prepare packed the whole operand (filters, a transposed B), the
// output must not change, which shows the kernel reads the panels.

// preparedCase is one kernel call whose input 1 is the weight.
type preparedCase struct {
	name     string
	kernel   string
	ins      []wgrt.Tensor
	attrs    []wgrt.Attr
	out      []int
	want     []float32 // the naive result
	scratch  int       // floats the kernel asks for packing per call
	prepScr  int       // ... with the weight prepared
	packed   bool      // Prepare must pack something
	whole    bool      // ... the whole weight (it is then not read)
	packSize int       // floats Prepare allocates (packedFloats)
}

// naiveConv is a convolution of x [n, c, d, h, w] (d 1 for 2-D) by w
// [m, c/g, kd, kh, kw], stride, padding (begin = end) and dilation 1
// except the stride, in float64.
func naiveConv(x []float32, n, c, d, h, w int, wt []float32, m, g, kd, kh, kw, sd, sh, sw, pd, ph, pw int, bias []float32, relu bool) ([]float32, int, int, int) {
	od, oh, ow := (d+2*pd-kd)/sd+1, (h+2*ph-kh)/sh+1, (w+2*pw-kw)/sw+1
	cg, mg := c/g, m/g
	out := make([]float32, n*m*od*oh*ow)
	for b := 0; b < n; b++ {
		for oc := 0; oc < m; oc++ {
			gi := oc / mg
			for z := 0; z < od; z++ {
				for y := 0; y < oh; y++ {
					for xx := 0; xx < ow; xx++ {
						s := 0.0
						if bias != nil {
							s = float64(bias[oc])
						}
						for ci := 0; ci < cg; ci++ {
							for i := 0; i < kd; i++ {
								for j := 0; j < kh; j++ {
									for k := 0; k < kw; k++ {
										iz, iy, ix := z*sd-pd+i, y*sh-ph+j, xx*sw-pw+k
										if iz < 0 || iz >= d || iy < 0 || iy >= h || ix < 0 || ix >= w {
											continue
										}
										xv := x[(((b*c+gi*cg+ci)*d+iz)*h+iy)*w+ix]
										wv := wt[(((oc*cg+ci)*kd+i)*kh+j)*kw+k]
										s += float64(xv) * float64(wv)
									}
								}
							}
						}
						if relu && s < 0 {
							s = 0
						}
						out[(((b*m+oc)*od+z)*oh+y)*ow+xx] = float32(s)
					}
				}
			}
		}
	}
	return out, od, oh, ow
}

// naiveProduct is A (m×k) times B (k×n), element (i, p) of A at
// a[i*ars+p*acs], of B at b[p*brs+j*bcs], plus bias[j] when given.
func naiveProduct(m, n, k int, a []float32, ars, acs int, b []float32, brs, bcs int, bias []float32) []float32 {
	out := make([]float32, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			if bias != nil {
				s = float64(bias[j])
			}
			for p := 0; p < k; p++ {
				s += float64(a[i*ars+p*acs]) * float64(b[p*brs+j*bcs])
			}
			out[i*n+j] = float32(s)
		}
	}
	return out
}

func preparedConvCase(r *rand.Rand, name, kernel string, n, c, m, g int, spatial, kernelShape []int, stride, pad int, bias, relu, packed bool) preparedCase {
	for len(spatial) < 3 {
		spatial, kernelShape = append([]int{1}, spatial...), append([]int{1}, kernelShape...)
	}
	rank := 3
	if spatial[0] == 1 && kernelShape[0] == 1 {
		rank = 2
	}
	d, h, w := spatial[0], spatial[1], spatial[2]
	kd, kh, kw := kernelShape[0], kernelShape[1], kernelShape[2]
	sd, pd := stride, pad
	if rank == 2 {
		sd, pd = 1, 0
	}
	xd, wd := randFloats(r, n*c*d*h*w), randFloats(r, m*c/g*kd*kh*kw)
	var bd []float32
	if bias {
		bd = randFloats(r, m)
	}
	want, od, oh, ow := naiveConv(xd, n, c, d, h, w, wd, m, g, kd, kh, kw, sd, stride, stride, pd, pad, pad, bd, relu)
	sp, ks, outSp := []int{d, h, w}, []int{kd, kh, kw}, []int{od, oh, ow}
	if rank == 2 {
		sp, ks, outSp = sp[1:], ks[1:], outSp[1:]
	}
	x := wgrt.View(xd, append([]int{n, c}, sp...)...)
	wt := wgrt.View(wd, append([]int{m, c / g}, ks...)...)
	ins := []wgrt.Tensor{x, wt}
	if bias {
		ins = append(ins, wgrt.View(bd, m))
	}
	strides, pads, dil := make([]int, len(sp)), make([]int, 2*len(sp)), make([]int, len(sp))
	for i := range strides {
		strides[i], dil[i] = stride, 1
	}
	for i := range pads {
		pads[i] = pad
	}
	attrs := []wgrt.Attr{intsAttr("kernel_shape", ks...), intsAttr("strides", strides...), intsAttr("pads", pads...), intsAttr("dilations", dil...), intAttr("group", g)}
	if kernel == "FusedConv" {
		act := ""
		if relu {
			act = "Relu"
		}
		attrs = append(attrs, actAttrs(act, 0, 0)...)
	}
	out := append([]int{n, m}, outSp...)
	pointwise := prod(ks) == 1 && stride == 1 && pad == 0
	return preparedCase{name: name, kernel: kernel, ins: ins, attrs: attrs, out: out, want: want,
		scratch: convPackFloats(x.Shape, wt.Shape, out, g, pointwise, false), prepScr: convPackFloats(x.Shape, wt.Shape, out, g, pointwise, packed),
		packed: packed, whole: packed,
		packSize: g * packedFloats(true, m/g, 0, c/g*prod(ks), false)}
}

// columnCase is a conv case whose product is one column, which reads
// the filters in place (columnFits), not their panels.
func columnCase(tc preparedCase) preparedCase {
	tc.whole = false
	return tc
}

func preparedGemmCase(r *rand.Rand, m, n, k int, transB bool) preparedCase {
	ad, bd, cd := randFloats(r, m*k), randFloats(r, k*n), randFloats(r, n)
	b, brs, bcs := wgrt.View(bd, k, n), n, 1
	if transB {
		b, brs, bcs = wgrt.View(bd, n, k), 1, k
	}
	tb := 0
	form := bRowMajor
	if transB {
		tb, form = 1, bStrided
	}
	return preparedCase{name: fmt.Sprintf("Gemm %dx%dx%d transB %v", m, n, k, transB), kernel: "Gemm",
		ins:   []wgrt.Tensor{wgrt.View(ad, m, k), b, wgrt.View(cd, n)},
		attrs: []wgrt.Attr{floatAttr("alpha", 1), floatAttr("beta", 1), intAttr("transA", 0), intAttr("transB", tb)},
		out:   []int{m, n}, want: naiveProduct(m, n, k, ad, k, 1, bd, brs, bcs, cd),
		scratch: gemmPackFloats(m, n, k, form), prepScr: gemmPackFloatsOf(m, n, k, form, packedSides{b: transB || n%maxNR != 0}),
		packed: transB || n%maxNR != 0, whole: transB,
		packSize: packedFloats(false, 0, n, k, !transB)}
}

func preparedMatMulCase(r *rand.Rand, batch, m, n, k int) preparedCase {
	ad, bd := randFloats(r, batch*m*k), randFloats(r, k*n)
	return preparedCase{name: fmt.Sprintf("MatMul %dx%dx%dx%d", batch, m, n, k), kernel: "MatMul",
		ins: []wgrt.Tensor{wgrt.View(ad, batch, m, k), wgrt.View(bd, k, n)},
		out: []int{batch, m, n}, want: naiveProduct(batch*m, n, k, ad, k, 1, bd, n, 1, nil),
		scratch: gemmPackFloats(batch*m, n, k, bRowMajor), prepScr: gemmPackFloatsOf(batch*m, n, k, bRowMajor, packedSides{b: n%maxNR != 0}),
		packed: n%maxNR != 0, packSize: packedFloats(false, 0, n, k, true)}
}

func preparedCases() []preparedCase {
	r := rand.New(rand.NewSource(33))
	return []preparedCase{
		preparedConvCase(r, "3x3, batch 2, odd sizes", "Conv", 2, 5, 13, 1, []int{9, 11}, []int{3, 3}, 1, 1, false, false, true),
		preparedConvCase(r, "3x3 stride 2, two blocks of k", "Conv", 1, 30, 17, 1, []int{10, 7}, []int{3, 3}, 2, 1, true, false, true),
		preparedConvCase(r, "grouped, many outputs per group", "Conv", 3, 8, 80, 2, []int{6, 5}, []int{3, 3}, 1, 0, true, false, true),
		preparedConvCase(r, "1x1 stride 2, few outputs", "Conv", 2, 7, 3, 1, []int{9, 9}, []int{1, 1}, 2, 0, false, false, true),
		preparedConvCase(r, "pointwise", "Conv", 2, 19, 24, 1, []int{5, 7}, []int{1, 1}, 1, 0, true, false, true),
		preparedConvCase(r, "pointwise, more rows than a block", "Conv", 1, 2, 600, 1, []int{7, 7}, []int{1, 1}, 1, 0, false, false, true),
		preparedConvCase(r, "large enough to share with the pool", "Conv", 1, 32, 64, 1, []int{28, 28}, []int{3, 3}, 1, 1, true, false, true),
		preparedConvCase(r, "3-D", "Conv", 2, 3, 7, 1, []int{4, 5, 6}, []int{3, 3, 3}, 1, 1, true, false, true),
		preparedConvCase(r, "fused bias and Relu", "FusedConv", 2, 6, 21, 1, []int{8, 8}, []int{3, 3}, 1, 1, true, true, true),
		columnCase(preparedConvCase(r, "pointwise over a 1x1 map (a column: rows dotted in place)", "FusedConv", 1, 37, 29, 1, []int{1, 1}, []int{1, 1}, 1, 0, true, true, true)),
		preparedConvCase(r, "depthwise (tap rows: nothing packed)", "Conv", 1, 8, 8, 8, []int{6, 6}, []int{3, 3}, 1, 1, false, false, false),
		preparedConvCase(r, "pointwise, rows one by one (nothing packed)", "Conv", 1, 8, 4, 1, []int{6, 6}, []int{1, 1}, 1, 0, false, false, false),
		preparedGemmCase(r, 7, 37, 5, true),
		preparedGemmCase(r, 13, 1050, 300, true),
		preparedGemmCase(r, 9, 37, 300, false),
		preparedGemmCase(r, 9, 64, 20, false),
		preparedMatMulCase(r, 2, 5, 45, 300),
		preparedMatMulCase(r, 3, 4, 1040, 17),
	}
}

func callOf(tc preparedCase, out []float32, scratch []byte) *wgrt.Call {
	return &wgrt.Call{Kernel: tc.kernel, Inputs: tc.ins, Attrs: tc.attrs, Outputs: []wgrt.Tensor{wgrt.View(out, tc.out...)}, Scratch: scratch}
}

func TestPreparedWeightsSameBits(t *testing.T) {
	forEachKernelPath(t, func(t *testing.T) {
		for _, tc := range preparedCases() {
			scratch := make([]byte, 4*tc.scratch)
			perCall := make([]float32, len(tc.want))
			require.NoError(t, Call(callOf(tc, perCall, scratch)), tc.name)
			requireClose(t, tc.want, perCall, 1e-4, "%s per call", tc.name)

			// With the weight prepared, the kernel asks for exactly the
			// smaller scratch, and refuses one float less.
			c := callOf(tc, make([]float32, len(tc.want)), make([]byte, 4*tc.prepScr))
			prepared, bytes, err := Prepare(c)
			require.NoError(t, err, tc.name)
			if !tc.packed {
				require.Nil(t, prepared, "%s", tc.name)
				require.Zero(t, bytes, "%s", tc.name)
				continue
			}
			require.NotNil(t, prepared, "%s", tc.name)
			require.Equal(t, 4*tc.packSize, bytes, "%s: bytes allocated", tc.name)
			c.Prepared = prepared
			if tc.prepScr > 0 {
				c.Scratch = c.Scratch[:4*tc.prepScr-4]
				require.ErrorContains(t, Call(c), "scratch of", "%s: given one float less than it needs", tc.name)
				c.Scratch = c.Scratch[:4*tc.prepScr]
			}
			require.NoError(t, Call(c), tc.name)
			got := elems[float32](c.Outputs[0])
			require.True(t, slices.Equal(perCall, got), "%s: prepared weights change bits", tc.name)
			require.Zero(t, testing.AllocsPerRun(3, func() { _ = Call(c) }), "%s: allocations per call", tc.name)
			// Shared with the worker pool: the same bits again.
			SetThreads(3)
			clear(got)
			err = Call(c)
			SetThreads(1)
			require.NoError(t, err, tc.name)
			require.True(t, slices.Equal(perCall, got), "%s: prepared weights with 3 threads change bits", tc.name)
			if tc.whole {
				w := elems[float32](tc.ins[1])
				saved := slices.Clone(w)
				clear(w)
				clear(got)
				require.NoError(t, Call(c), tc.name)
				copy(w, saved)
				require.True(t, slices.Equal(perCall, got), "%s: the kernel read the weight, not its panels", tc.name)
			}
		}
	})
}

// Panels packed for one micro-kernel path are not read on another: the
// kernel packs per call then, with the same result.
func TestPreparedForAnotherPathIgnored(t *testing.T) {
	paths := kernelPaths()
	if len(paths) < 2 {
		t.Skip("one micro-kernel path on this CPU")
	}
	defer useKernelPath(bestKernelPath())
	tc := preparedCases()[0]
	scratch := make([]byte, 4*tc.scratch)
	useKernelPath(paths[len(paths)-1])
	c := callOf(tc, make([]float32, len(tc.want)), scratch)
	prepared, _, err := Prepare(c)
	require.NoError(t, err)
	useKernelPath(paths[0])
	c.Prepared = prepared
	require.NoError(t, Call(c))
	requireClose(t, tc.want, elems[float32](c.Outputs[0]), 1e-4, "%s", tc.name)
}

// What was prepared from one op's weights is not read for a call whose
// weights lie elsewhere (another op's of the same sizes handed the wrong
// Prepared, or weights bound anew): the kernel packs per call, and the
// result is that of its own weights.
func TestPreparedForOtherWeightsIgnored(t *testing.T) {
	for _, tc := range preparedCases() {
		if !tc.whole {
			continue
		}
		c := callOf(tc, make([]float32, len(tc.want)), make([]byte, 4*tc.scratch))
		prepared, _, err := Prepare(c)
		require.NoError(t, err, tc.name)
		// The same sizes, other weights: scaled by 2, so the result is.
		other := wgrt.New(tc.ins[1].DType, tc.ins[1].Shape...)
		for i, v := range elems[float32](tc.ins[1]) {
			elems[float32](other)[i] = 2 * v
		}
		c.Inputs = slices.Clone(c.Inputs)
		c.Inputs[1] = other
		c.Prepared = prepared
		require.NoError(t, Call(c), tc.name)
		got := elems[float32](c.Outputs[0])
		// Only the product doubles: compare against the per-call result
		// with the doubled weights.
		want := make([]float32, len(tc.want))
		d := callOf(tc, want, make([]byte, 4*tc.scratch))
		d.Inputs = c.Inputs
		require.NoError(t, Call(d), tc.name)
		require.True(t, slices.Equal(want, got), "%s: read panels prepared from other weights", tc.name)
	}
}

// A weight that is not a param (no data when the runner prepares) is
// left alone.
func TestPrepareNeedsTheWeight(t *testing.T) {
	for _, tc := range preparedCases() {
		c := callOf(tc, make([]float32, len(tc.want)), nil)
		c.Inputs = slices.Clone(c.Inputs)
		c.Inputs[1].Data = nil
		prepared, bytes, err := Prepare(c)
		require.NoError(t, err, tc.name)
		require.Nil(t, prepared, tc.name)
		require.Zero(t, bytes, tc.name)
	}
}
