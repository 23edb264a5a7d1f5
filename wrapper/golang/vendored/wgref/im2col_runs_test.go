package wgref

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// 3-D convolutions pack B through packRuns: on the best kernel path
// (every path in the long tests), with and without workers, strides 1
// and 2 (and 3 along the depth), dilations, pads on every side, sizes
// around the panels, groups, filters packed once or not, and an input
// whose positions are not adjacent (a strided view), against the
// definition (convDirect); and no allocation per call. packRuns's panels
// are also those of packAnyRank, element for element.
func TestConv3DPathsMatchDefinition(t *testing.T) {
	forEachKernelPathLong(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(35))
		for _, s := range []struct {
			x, w          []int // [n c d h w], [m c/g kd kh kw]
			group         int
			strides, pads []int
			dilations     []int
		}{
			{[]int{1, 3, 8, 20, 20}, []int{16, 3, 3, 7, 7}, 1, []int{1, 2, 2}, []int{1, 3, 3, 1, 3, 3}, []int{1, 1, 1}},
			{[]int{2, 8, 5, 9, 11}, []int{12, 8, 3, 3, 3}, 1, []int{1, 1, 1}, []int{1, 1, 1, 1, 1, 1}, []int{1, 1, 1}},
			{[]int{1, 6, 7, 6, 40}, []int{8, 3, 2, 3, 3}, 2, []int{3, 1, 2}, []int{0, 2, 1, 1, 0, 2}, []int{2, 2, 1}},
			{[]int{1, 4, 4, 5, 5}, []int{5, 4, 1, 1, 1}, 1, []int{1, 1, 1}, []int{0, 0, 0, 0, 0, 0}, []int{1, 1, 1}},
			{[]int{1, 5, 6, 3, 70}, []int{7, 5, 3, 3, 3}, 1, []int{2, 2, 2}, []int{1, 1, 1, 1, 1, 1}, []int{1, 1, 1}},
		} {
			ca := convAttrs{kernel: s.w[2:], strides: s.strides, pads: s.pads, dilations: s.dilations, group: s.group}
			o := make([]int, 5)
			o[0], o[1] = s.x[0], s.w[0]
			for d := 0; d < 3; d++ {
				o[2+d] = (s.x[2+d]+s.pads[d]+s.pads[3+d]-s.dilations[d]*(s.w[2+d]-1)-1)/s.strides[d] + 1
			}
			w := wgrt.FromFloat32s(randFloats(r, prod(s.w)), s.w...)
			for _, spread := range []int{1, 2} {
				buf := randFloats(r, prod(s.x)*spread)
				x := wgrt.FromFloat32s(buf, len(buf))
				x.Shape, x.Strides = s.x, []int{prod(s.x[1:]) * spread, prod(s.x[2:]) * spread, s.x[3] * s.x[4] * spread, s.x[4] * spread, spread}
				want := wgrt.New(wgrt.F32, o...)
				convDirect(x, w, nil, want, ca)
				for _, packed := range []bool{false, true} {
					var pk *packedGEMM
					if packed {
						c := &wgrt.Call{Kernel: "Conv", Inputs: []wgrt.Tensor{x, w}, Outputs: []wgrt.Tensor{want},
							Attrs: []wgrt.Attr{intsAttr("kernel_shape", s.w[2:]...), intsAttr("strides", s.strides...), intsAttr("pads", s.pads...),
								intsAttr("dilations", s.dilations...), intAttr("group", s.group)}}
						p, _, err := Prepare(c)
						require.NoError(t, err)
						pk, _ = p.(*packedGEMM)
						require.NotNil(t, pk, "%v: filters not packed", s.w)
						pk = pk.forA(s.w[0]/s.group, prod(s.w[1:]))
					}
					for _, threads := range []int{1, 2} {
						withThreads(threads, func() {
							got := wgrt.New(wgrt.F32, o...)
							work := make([]float32, convPackFloats(x.Shape, w.Shape, got.Shape, s.group, false, pk != nil))
							convF32(x, w, nil, got, ca, work, nil, pk, defaultThreads)
							requireClose(t, want.Float32s(), got.Float32s(), 1e-4, "%v %v spread %d packed %v threads %d", s.x, s.w, spread, packed, threads)
							require.Zero(t, testing.AllocsPerRun(3, func() { convF32(x, w, nil, got, ca, work, nil, pk, defaultThreads) }),
								"%v %v spread %d threads %d", s.x, s.w, spread, threads)
						})
					}
				}
				// The panels themselves, against packAnyRank's.
				m := &im2colB{xs: x.Float32s(), x: x, out: want, ca: ca}
				kk, cols := prod(s.w[1:]), prod(o[2:])
				kc, nc := min(kk, blockK), min(cols, 3*nr+5)
				a, b := make([]float32, kc*ceilTo(nc, nr)), make([]float32, kc*ceilTo(nc, nr))
				for _, j0 := range []int{0, cols - nc} {
					m.packRuns(a, kk-kc, j0, kc, nc)
					m.packAnyRank(b, kk-kc, j0, kc, nc)
					require.Equal(t, b, a, "%v %v spread %d columns from %d", s.x, s.w, spread, j0)
				}
			}
		}
	})
}
