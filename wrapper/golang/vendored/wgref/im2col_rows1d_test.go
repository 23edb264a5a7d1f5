package wgref

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// naiveConv1D is a 1-D convolution written plainly: y[b, oc, o] = sum over
// the group's channels and the taps inside the input of x·w.
func naiveConv1D(x []float32, xStrides []int, w []float32, n, c, l, m, g, k, stride, padL, padR, dil int) ([]float32, int) {
	ol := (l+padL+padR-dil*(k-1)-1)/stride + 1
	y := make([]float32, n*m*ol)
	cg, mg := c/g, m/g
	for b := 0; b < n; b++ {
		for oc := 0; oc < m; oc++ {
			for o := 0; o < ol; o++ {
				s := float32(0)
				for ci := 0; ci < cg; ci++ {
					for t := 0; t < k; t++ {
						pos := o*stride - padL + t*dil
						if pos < 0 || pos >= l {
							continue
						}
						s += x[b*xStrides[0]+(oc/mg*cg+ci)*xStrides[1]+pos*xStrides[2]] * w[(oc*cg+ci)*k+t]
					}
				}
				y[(b*m+oc)*ol+o] = s
			}
		}
	}
	return y, ol
}

// 1-D convolutions pack B through packRows1D: on every kernel path, with
// and without workers, strides 1 to 5 (2 through copyEvens), dilations,
// uneven pads wider than the kernel reaches, lengths around the panels,
// groups, and an input whose positions are not adjacent (a strided view),
// against the naive loop; and no allocation per call.
func TestConv1DPathsMatchNaive(t *testing.T) {
	forEachKernelPath(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(34))
		for _, s := range [][10]int{ // n, c, l, m, group, kernel, stride, padL, padR, dilation
			{1, 1, 8001, 16, 1, 10, 5, 0, 0, 1},
			{2, 12, 99, 20, 1, 3, 2, 0, 0, 1},
			{1, 8, 64, 8, 2, 2, 2, 1, 0, 1},
			{1, 5, 37, 7, 1, 4, 3, 3, 5, 2},
			{1, 16, 130, 9, 1, 3, 1, 1, 1, 1},
			{1, 4, 5, 6, 1, 3, 1, 4, 4, 1},
			{2, 3, 50, 4, 1, 5, 4, 2, 1, 3},
		} {
			n, c, l, m, g, k, st, pl, pr, dil := s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9]
			wdata := randFloats(r, m*c/g*k)
			ca := convAttrs{kernel: []int{k}, strides: []int{st}, pads: []int{pl, pr}, dilations: []int{dil}, group: g}
			for _, spread := range []int{1, 2} {
				// spread 2: every other float of the buffer is the input.
				buf := randFloats(r, n*c*l*spread)
				strides := []int{c * l * spread, l * spread, spread}
				want, ol := naiveConv1D(buf, strides, wdata, n, c, l, m, g, k, st, pl, pr, dil)
				x := wgrt.FromFloat32s(buf, n, c, l*spread)
				x.Shape, x.Strides = []int{n, c, l}, strides
				w := wgrt.FromFloat32s(wdata, m, c/g, k)
				for _, threads := range []int{1, 2} {
					withThreads(threads, func() {
						got := make([]float32, len(want))
						out := wgrt.FromFloat32s(got, n, m, ol)
						work := make([]float32, convPackFloats(x.Shape, w.Shape, out.Shape, g, false, false))
						convF32(x, w, nil, out, ca, work, nil, nil, defaultThreads)
						requireClose(t, want, got, 1e-4, "%v spread %d threads %d", s, spread, threads)
						require.Zero(t, testing.AllocsPerRun(3, func() { convF32(x, w, nil, out, ca, work, nil, nil, defaultThreads) }),
							"%v spread %d threads %d", s, spread, threads)
					})
				}
			}
		}
	})
}
