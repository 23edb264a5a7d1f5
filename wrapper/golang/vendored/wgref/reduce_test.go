package wgref

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The float32 row reductions (trailing axes of a contiguous tensor) give
// what a plain float64 loop gives; reductions over other axes still take
// the general path, also checked here.
func TestReduceRowsMatchNaiveLoop(t *testing.T) {
	r := rand.New(rand.NewSource(18))
	x := randomF32(r, 4, 3, 4, 37)
	x.Float32s()[5] = float32(math.NaN())
	reduceOf := map[string]func(vs []float64) float64{
		"ReduceSum": func(vs []float64) float64 {
			s := 0.0
			for _, v := range vs {
				s += v
			}
			return s
		},
		"ReduceMean": func(vs []float64) float64 {
			s := 0.0
			for _, v := range vs {
				s += v
			}
			return s / float64(len(vs))
		},
		"ReduceSumSquare": func(vs []float64) float64 {
			s := 0.0
			for _, v := range vs {
				s += v * v
			}
			return s
		},
		"ReduceL2": func(vs []float64) float64 {
			s := 0.0
			for _, v := range vs {
				s += v * v
			}
			return math.Sqrt(s)
		},
		"ReduceMax": func(vs []float64) float64 {
			m := math.Inf(-1)
			for _, v := range vs {
				if v > m || v != v {
					m = v
				}
			}
			return m
		},
		"ReduceMin": func(vs []float64) float64 {
			m := math.Inf(1)
			for _, v := range vs {
				if v < m || v != v {
					m = v
				}
			}
			return m
		},
	}
	for kernel, f := range reduceOf {
		for _, axes := range [][]int{{2}, {1, 2}, {0, 1, 2}, {1}} {
			outShape := append([]int{}, x.Shape...)
			for _, a := range axes {
				outShape[a] = 1
			}
			out := wgrt.New(wgrt.F32, outShape...)
			require.NoError(t, Call(&wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x}, Attrs: []wgrt.Attr{intsAttr("axes", axes...), intAttr("keepdims", 1)}}))
			eachIndex(outShape, func(o []int) {
				var vs []float64
				eachIndex(x.Shape, func(i []int) {
					for d := range i {
						if outShape[d] != 1 && i[d] != o[d] {
							return
						}
					}
					vs = append(vs, float64(at(x, i)))
				})
				want, got := f(vs), float64(at(out, o))
				if math.IsNaN(want) {
					assert.True(t, math.IsNaN(got), "%s %v at %v: %v, want NaN", kernel, axes, o, got)
					return
				}
				assert.InDelta(t, want, got, 1e-6*math.Max(1, math.Abs(want)), "%s %v at %v", kernel, axes, o)
			})
		}
	}
}

// Pow by a constant: squares exactly as x·x, other powers as math.Pow.
func TestPowByConstantMatchesMathPow(t *testing.T) {
	r := rand.New(rand.NewSource(19))
	for _, e := range []float32{2, 0.5, 3, -1} {
		x := randomF32(r, 3, 5, 67)
		x.Float32s()[0], x.Float32s()[1] = float32(math.Copysign(0, -1)), float32(math.Inf(-1))
		y := wgrt.New(wgrt.F32)
		y.Float32s()[0] = e
		out := wgrt.New(wgrt.F32, 5, 67)
		require.NoError(t, Call(&wgrt.Call{Kernel: "Pow", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x, y}}))
		for i, v := range x.Float32s() {
			want := float32(math.Pow(float64(v), float64(e)))
			got := out.Float32s()[i]
			assert.True(t, math.Float32bits(want) == math.Float32bits(got) || (want != want && got != got), "%g^%g: %g, want %g", v, e, got, want)
		}
	}
}
