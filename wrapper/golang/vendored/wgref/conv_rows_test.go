package wgref

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Dilated convolutions split by kernel row (conv_rows.go) against a naive
// loop written here: bands at the top and bottom, strides, asymmetric
// pads, no band of every row, a fused bias, sum and Relu, in place and
// not, batches shared by threads, on every micro-kernel path.

type kernelRowCase struct {
	name          string
	n, c, m, h, w int
	kh, kw        int
	strides, dil  [2]int
	pads          [4]int // top, left, bottom, right
	bias, sum     bool
	relu          bool
}

func (tc kernelRowCase) outSize() (int, int) {
	oh := (tc.h+tc.pads[0]+tc.pads[2]-tc.dil[0]*(tc.kh-1)-1)/tc.strides[0] + 1
	ow := (tc.w+tc.pads[1]+tc.pads[3]-tc.dil[1]*(tc.kw-1)-1)/tc.strides[1] + 1
	return oh, ow
}

// naive is tc's convolution in float64.
func (tc kernelRowCase) naive(x, wt, bias, sum []float32) []float32 {
	oh, ow := tc.outSize()
	out := make([]float32, tc.n*tc.m*oh*ow)
	for b := range tc.n {
		for o := range tc.m {
			for y := range oh {
				for xx := range ow {
					s := 0.0
					for ci := range tc.c {
						for i := range tc.kh {
							for j := range tc.kw {
								iy := y*tc.strides[0] - tc.pads[0] + i*tc.dil[0]
								ix := xx*tc.strides[1] - tc.pads[1] + j*tc.dil[1]
								if iy < 0 || iy >= tc.h || ix < 0 || ix >= tc.w {
									continue
								}
								s += float64(x[((b*tc.c+ci)*tc.h+iy)*tc.w+ix]) * float64(wt[((o*tc.c+ci)*tc.kh+i)*tc.kw+j])
							}
						}
					}
					at := ((b*tc.m+o)*oh+y)*ow + xx
					if bias != nil {
						s += float64(bias[o])
					}
					if sum != nil {
						s += float64(sum[at])
					}
					if tc.relu && s < 0 {
						s = 0
					}
					out[at] = float32(s)
				}
			}
		}
	}
	return out
}

func TestDilatedConvByKernelRows(t *testing.T) {
	cases := []kernelRowCase{
		{name: "atrous 3x3, dilation 4 over 9x9, bias and Relu", n: 1, c: 24, m: 13, h: 9, w: 9, kh: 3, kw: 3, strides: [2]int{1, 1}, dil: [2]int{4, 4}, pads: [4]int{4, 4, 4, 4}, bias: true, relu: true},
		{name: "stride 2, asymmetric pads, two blocks of k", n: 1, c: 100, m: 20, h: 11, w: 10, kh: 3, kw: 3, strides: [2]int{2, 1}, dil: [2]int{2, 3}, pads: [4]int{1, 0, 2, 3}},
		{name: "no band of every row", n: 1, c: 40, m: 7, h: 5, w: 6, kh: 2, kw: 2, strides: [2]int{1, 1}, dil: [2]int{5, 1}, pads: [4]int{4, 0, 4, 1}, bias: true},
		{name: "batch of three, fused sum", n: 3, c: 32, m: 30, h: 14, w: 14, kh: 3, kw: 3, strides: [2]int{1, 1}, dil: [2]int{12, 12}, pads: [4]int{12, 12, 12, 12}, bias: true, sum: true, relu: true},
		{name: "large enough to share with the pool", n: 1, c: 64, m: 64, h: 20, w: 20, kh: 3, kw: 3, strides: [2]int{1, 1}, dil: [2]int{6, 6}, pads: [4]int{6, 6, 6, 6}, bias: true, relu: true},
	}
	forEachKernelPath(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(12))
		for _, tc := range cases {
			oh, ow := tc.outSize()
			xd, wd := randFloats(r, tc.n*tc.c*tc.h*tc.w), randFloats(r, tc.m*tc.c*tc.kh*tc.kw)
			x, w := wgrt.View(xd, tc.n, tc.c, tc.h, tc.w), wgrt.View(wd, tc.m, tc.c, tc.kh, tc.kw)
			ins := []wgrt.Tensor{x, w}
			var bd, sd []float32
			kernel := "Conv"
			if tc.bias || tc.sum || tc.relu {
				kernel = "FusedConv"
				bd = make([]float32, tc.m) // FusedConv's bias is not optional
				if tc.bias {
					bd = randFloats(r, tc.m)
				}
				ins = append(ins, wgrt.View(bd, tc.m))
			}
			if tc.sum {
				sd = randFloats(r, tc.n*tc.m*oh*ow)
				ins = append(ins, wgrt.View(sd, tc.n, tc.m, oh, ow))
			}
			want := tc.naive(xd, wd, bd, sd)
			attrs := []wgrt.Attr{intsAttr("kernel_shape", tc.kh, tc.kw), intsAttr("strides", tc.strides[:]...),
				intsAttr("pads", tc.pads[0], tc.pads[1], tc.pads[2], tc.pads[3]), intsAttr("dilations", tc.dil[:]...), intAttr("group", 1)}
			if kernel == "FusedConv" {
				act := ""
				if tc.relu {
					act = "Relu"
				}
				attrs = append(attrs, actAttrs(act, 0, 0)...)
			}
			outShape := []int{tc.n, tc.m, oh, ow}
			scratch := convPackFloats(x.Shape, w.Shape, outShape, 1, false, true)
			c := &wgrt.Call{Kernel: kernel, Inputs: ins, Attrs: attrs, Outputs: []wgrt.Tensor{wgrt.New(wgrt.F32, outShape...)}, Scratch: make([]byte, 4*scratch)}
			prepared, bytes, err := Prepare(c)
			require.NoError(t, err, tc.name)
			pk, _ := prepared.(*packedGEMM)
			require.NotNil(t, pk, tc.name)
			require.Len(t, pk.rows, tc.kh, "%s: packed by kernel row", tc.name)
			require.Equal(t, 4*packedFloats(true, tc.m, 0, tc.c*tc.kh*tc.kw, false), bytes, "%s: as many bytes as packed whole", tc.name)
			c.Prepared = prepared
			require.NoError(t, Call(c), tc.name)
			got := elems[float32](c.Outputs[0])
			requireClose(t, want, got, 1e-4, "%s", tc.name)
			first := slices.Clone(got)
			require.Zero(t, testing.AllocsPerRun(3, func() { _ = Call(c) }), "%s: allocations per call", tc.name)

			// The panels, not the weight: zeroed, it changes nothing.
			saved := slices.Clone(wd)
			clear(wd)
			clear(got)
			require.NoError(t, Call(c), tc.name)
			copy(wd, saved)
			require.True(t, slices.Equal(first, got), "%s: the kernel read the weight, not its panels", tc.name)

			SetThreads(3)
			clear(got)
			err = Call(c)
			SetThreads(1)
			require.NoError(t, err, tc.name)
			require.True(t, slices.Equal(first, got), "%s: 3 threads change bits", tc.name)

			if tc.sum {
				// In place over the sum, as the planner may place it.
				own := wgrt.View(slices.Clone(sd), outShape...)
				c.Inputs[3], c.Outputs[0] = own, own
				// Prepare keeps where each input's data started.
				c.Prepared, _, err = Prepare(c)
				require.NoError(t, err, tc.name)
				require.NoError(t, Call(c), tc.name)
				require.True(t, slices.Equal(first, elems[float32](own)), "%s: in place changes bits", tc.name)
			}
		}
	})
}

// Convolutions that are not dilated along the height, or whose kernel
// rows are too shallow, keep their filters whole.
func TestKernelRowsOnlyWhereTheyPay(t *testing.T) {
	for _, tc := range []struct {
		w        []int
		dil      []int
		group    int
		wantRows bool
	}{
		{[]int{8, 32, 3, 3}, []int{2, 2}, 1, true},
		{[]int{8, 32, 3, 3}, []int{1, 2}, 1, false},
		{[]int{8, 32, 1, 3}, []int{2, 2}, 1, false},
		{[]int{8, 16, 3, 3}, []int{2, 2}, 1, false},
		{[]int{8, 32, 3, 3}, []int{2, 2}, 2, false},
	} {
		ca := convAttrs{kernel: tc.w[2:], strides: []int{1, 1}, pads: []int{0, 0, 0, 0}, dilations: tc.dil, group: tc.group}
		require.Equal(t, tc.wantRows, splitsByKernelRows(ca, tc.w), fmt.Sprint(tc))
	}
}
