package wgref

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// copyPlaneRows (the AVX-512 rows where the CPU has them, and the Go ones)
// copies exactly the rows' floats, on widths around the vector's, and
// leaves the gaps between rows alone.
func TestCopyPlaneRowsMatchesPlainLoop(t *testing.T) {
	defer func(v bool) { planeRowsVector = v }(planeRowsVector)
	paths := []bool{false}
	if planeRowsVector {
		paths = append(paths, true)
	}
	r := rand.New(rand.NewSource(20))
	for _, vector := range paths {
		planeRowsVector = vector
		for _, cols := range []int{1, 7, 15, 16, 17, 31, 32, 33, 56, 113} {
			for _, rows := range []int{1, 3, 8} {
				srcStride, dstStride := cols+r.Intn(5), cols+r.Intn(5)
				src := randFloats(r, (rows-1)*srcStride+cols) // ends at the last row's end
				dst := randFloats(r, (rows-1)*dstStride+cols)
				want := append([]float32(nil), dst...)
				for i := range rows {
					for j := range cols {
						want[i*dstStride+j] = src[i*srcStride+j]
					}
				}
				copyPlaneRows(dst, dstStride, src, srcStride, rows, cols)
				require.Equal(t, want, dst, "%s", fmt.Sprintf("vector %v rows %d cols %d", vector, rows, cols))
			}
		}
	}
}

// copyEvens (AVX-512 where the CPU has it, and Go) takes every other float
// of sources that end right at the last even one, on lengths around the
// vector's.
func TestCopyEvensMatchesPlainLoop(t *testing.T) {
	defer func(v bool) { planeRowsVector = v }(planeRowsVector)
	paths := []bool{false}
	if planeRowsVector {
		paths = append(paths, true)
	}
	r := rand.New(rand.NewSource(23))
	for _, vector := range paths {
		planeRowsVector = vector
		for _, n := range []int{1, 2, 15, 16, 17, 31, 32, 33, 56, 112} {
			src := randFloats(r, 2*n-1)
			dst := make([]float32, n+1)
			dst[n] = 7 // past the row: left alone
			want := make([]float32, n+1)
			for i := range n {
				want[i] = src[2*i]
			}
			want[n] = 7
			copyEvens(dst[:n], src)
			require.Equal(t, want, dst, "%s", fmt.Sprintf("vector %v n %d", vector, n))
		}
	}
}

// im2col panels packed by stripPanelAVX512 and stripPanelAVX2 (output
// rows a few columns wide or more, taps a float or two apart) and by
// gathers (narrower rows) equal the Go path's, bit for bit, on each
// vector path: the padding on every side, stems' 7x7 stride 2,
// 28x28 to 7x7 images, dilations, rows apart in memory, panels that start
// mid-row and blocks that start mid-channel.
func TestIm2colStripsMatchGo(t *testing.T) {
	if !stripVectorAVX2 {
		t.Skip("no AVX2 on this CPU: packStrips is not taken")
	}
	defer func(v, v2 bool) { planeRowsVector, stripVectorAVX2 = v, v2 }(planeRowsVector, stripVectorAVX2)
	defer useKernelPath(running)
	vector := planeRowsVector
	for _, p := range kernelPaths()[1:] {
		useKernelPath(p)
		testIm2colStripsMatchGo(t, p.name, vector)
	}
}

func testIm2colStripsMatchGo(t *testing.T, path string, vector bool) {
	r := rand.New(rand.NewSource(24))
	for _, tc := range []struct{ c, h, w, k, s, d, p, gap int }{
		{3, 224, 224, 7, 2, 1, 3, 0}, {3, 33, 67, 3, 2, 1, 1, 0}, {4, 20, 32, 3, 1, 1, 1, 0},
		{2, 9, 40, 3, 1, 2, 2, 3}, {5, 11, 71, 5, 2, 1, 0, 1}, {2, 6, 33, 1, 1, 1, 0, 0},
		{3, 7, 90, 3, 2, 3, 4, 2}, {64, 8, 56, 3, 1, 1, 1, 0},
		// Output rows shorter than a panel: a panel spans up to six.
		{8, 28, 28, 3, 1, 1, 1, 0}, {4, 14, 14, 3, 1, 1, 1, 0}, {6, 7, 7, 3, 1, 1, 1, 0}, {3, 16, 16, 3, 2, 1, 1, 0},
		{3, 29, 17, 5, 1, 2, 2, 1}, {5, 14, 14, 1, 2, 1, 0, 0}, {2, 9, 9, 3, 1, 1, 0, 3}, {2, 8, 6, 3, 1, 1, 1, 0},
		// AVX2's 16 columns span six rows of 3 to 5.
		{4, 5, 5, 3, 1, 1, 1, 0}, {3, 9, 9, 3, 2, 1, 1, 0}, {2, 3, 3, 3, 1, 1, 1, 2}, {3, 8, 8, 3, 2, 1, 1, 0},
	} {
		oh := (tc.h+2*tc.p-tc.d*(tc.k-1)-1)/tc.s + 1
		ow := (tc.w+2*tc.p-tc.d*(tc.k-1)-1)/tc.s + 1
		rs := tc.w + tc.gap
		data := randFloats(r, tc.c*tc.h*rs)
		x := wgrt.FromFloat32s(data, 1, tc.c, tc.h, rs)
		x.Shape[3] = tc.w // rows tc.gap floats apart
		out := wgrt.FromFloat32s(make([]float32, tc.c*oh*ow), 1, tc.c, oh, ow)
		ca := convAttrs{kernel: []int{tc.k, tc.k}, strides: []int{tc.s, tc.s}, dilations: []int{tc.d, tc.d}, pads: []int{tc.p, tc.p, tc.p, tc.p}, group: 1}
		m := &im2colB{xs: data, x: x, out: out, ca: ca}
		k, n := tc.c*tc.k*tc.k, oh*ow
		for _, blk := range [][4]int{{0, 0, min(k, blockK), n}, {k - min(k, blockK), 0, min(k, blockK), n}, {min(5, k-1), 7, min(k-min(5, k-1), 40), min(n-7, 3*nr+5)}} {
			p0, j0, kc, nc := blk[0], blk[1], blk[2], blk[3]
			size := (nc + nr - 1) / nr * nr * kc
			got, want := randFloats(r, size), randFloats(r, size)
			planeRowsVector, stripVectorAVX2 = vector, true
			m.packB(got, p0, j0, kc, nc)
			planeRowsVector, stripVectorAVX2 = false, false
			m.packB(want, p0, j0, kc, nc)
			require.Equal(t, want, got, "%s: %+v block %v", path, tc, blk)
		}
	}
}

// 3-D convolutions' im2col panels packed as strips equal the Go path's
// (packRuns), bit for bit, on each vector path: depth padding and
// strides, panels that cross planes, 7x7 to 28x28 planes, 3x3x3 and
// 1x3x3 kernels, stride 2 along rows.
func TestIm2colStrips3DMatchGo(t *testing.T) {
	if !stripVectorAVX2 {
		t.Skip("no AVX2 on this CPU: packStrips is not taken")
	}
	defer func(v, v2 bool) { planeRowsVector, stripVectorAVX2 = v, v2 }(planeRowsVector, stripVectorAVX2)
	defer useKernelPath(running)
	vector := planeRowsVector
	r := rand.New(rand.NewSource(30))
	for _, p := range kernelPaths()[1:] {
		useKernelPath(p)
		for _, tc := range []struct{ c, d, h, w, kd, k, sd, s, p int }{
			{3, 4, 14, 14, 3, 3, 1, 1, 1}, {2, 5, 7, 7, 3, 3, 2, 1, 1}, {4, 3, 28, 28, 1, 3, 1, 2, 1},
			{2, 6, 9, 16, 3, 3, 2, 2, 1}, {3, 2, 8, 8, 3, 3, 1, 1, 0},
		} {
			od := (tc.d+2*tc.p-tc.kd)/tc.sd + 1
			oh := (tc.h+2*tc.p-tc.k)/tc.s + 1
			ow := (tc.w+2*tc.p-tc.k)/tc.s + 1
			data := randFloats(r, tc.c*tc.d*tc.h*tc.w)
			x := wgrt.FromFloat32s(data, 1, tc.c, tc.d, tc.h, tc.w)
			out := wgrt.FromFloat32s(make([]float32, tc.c*od*oh*ow), 1, tc.c, od, oh, ow)
			ca := convAttrs{kernel: []int{tc.kd, tc.k, tc.k}, strides: []int{tc.sd, tc.s, tc.s}, dilations: []int{1, 1, 1},
				pads: []int{tc.p, tc.p, tc.p, tc.p, tc.p, tc.p}, group: 1}
			m := &im2colB{xs: data, x: x, out: out, ca: ca}
			planeRowsVector, stripVectorAVX2 = vector, true
			require.Equal(t, stripRuns(ow) <= maxStripRuns && (p.nr == 16 || vector), m.stripsFit(3), "%s: %+v taken", p.name, tc)
			k, n := tc.c*tc.kd*tc.k*tc.k, od*oh*ow
			for _, blk := range [][4]int{{0, 0, min(k, blockK), n}, {min(5, k-1), 7, min(k-min(5, k-1), 40), min(n-7, 3*p.nr+5)}} {
				p0, j0, kc, nc := blk[0], blk[1], blk[2], blk[3]
				size := (nc + p.nr - 1) / p.nr * p.nr * kc
				got, want := randFloats(r, size), randFloats(r, size)
				planeRowsVector, stripVectorAVX2 = vector, true
				m.packB(got, p0, j0, kc, nc)
				planeRowsVector, stripVectorAVX2 = false, false
				m.packB(want, p0, j0, kc, nc)
				require.Equal(t, want, got, "%s: %+v block %v", p.name, tc, blk)
			}
		}
	}
}
