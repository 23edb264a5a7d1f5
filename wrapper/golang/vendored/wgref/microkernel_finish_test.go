//go:build amd64

package wgref

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// kernel12x32Finish gives, bit for bit, what kernel12x32 and then
// rowEpilogue.finish (biasClampAVX512) give: with and without
// accumulation, bias (strided or none) and sum, for each activation it
// takes, on sums that round, and with NaNs of several payloads,
// infinities and zeros of both signs among the inputs. tileFinishOf
// declines the activations it does not take.
func TestFinishTileSameBits(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512 on this CPU: finishTile is not taken")
	}
	r := rand.New(rand.NewSource(41))
	// NaNs of different payloads and signs, so that an operand order
	// other than the unfused one's shows in which NaN comes out.
	special := []float32{math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc12345), math.Float32frombits(0x7fa00000),
		float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 1e-30, -7}
	salt := func(xs []float32) {
		for i := 0; i < len(xs)/17; i++ {
			xs[r.Intn(len(xs))] = special[r.Intn(len(special))]
		}
	}
	// The bias, a few values, gets more of them.
	saltDense := func(xs []float32) {
		for i := range xs {
			if r.Intn(3) == 0 {
				xs[i] = special[r.Intn(len(special))]
			}
		}
	}
	acts := []fusedAct{{}, {kind: "Relu"}, {kind: "Clip", alpha: -0.25, beta: 0.5}, {kind: "HardSigmoid", alpha: 0.2, beta: 0.5}, {kind: "HardSwish"}, {kind: "SiLU"}, {kind: "Sigmoid"}}
	const ldc = 40
	for _, kc := range []int{1, 3, 256} {
		for _, ldb := range []int{32, 45} {
			for _, act := range acts {
				for _, acc := range []bool{false, true} {
					for _, biasStride := range []int{0, 1, 3} {
						for _, withSum := range []bool{false, true} {
							name := fmt.Sprintf("kc %d ldb %d %q acc %v bias stride %d sum %v", kc, ldb, act.kind, acc, biasStride, withSum)
							a, b := randFloats(r, 12*kc), randFloats(r, (kc-1)*ldb+32)
							salt(a)
							salt(b)
							c0 := randFloats(r, 14*ldc)
							salt(c0)
							e := &rowEpilogue{act: act, biasStride: biasStride}
							if biasStride > 0 {
								e.bias = randFloats(r, 14*biasStride)
								saltDense(e.bias)
							}
							if withSum {
								e.sum = randFloats(r, 14*ldc)
								salt(e.sum)
							}
							want := append([]float32(nil), c0...)
							avx512Path.run(kc, a, b, ldb, want[ldc+5:], ldc, acc)
							e.finish(want, ldc, 1, 13, 5, 37)
							got := append([]float32(nil), c0...)
							f := avx512Path.tileFinishOf(e)
							require.True(t, f.ok, name)
							avx512Path.finishTile(e, f, kc, a, b, ldb, got, ldc, 1, 5, acc)
							for i := range want {
								require.Equal(t, math.Float32bits(want[i]), math.Float32bits(got[i]), "%s: element %d (row %d col %d): %g, unfused %g", name, i, i/ldc, i%ldc, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
	for _, kind := range []string{"Tanh", "LeakyRelu", "Gelu"} {
		e := &rowEpilogue{act: fusedAct{kind: kind}}
		require.False(t, avx512Path.tileFinishOf(e).ok, kind)
	}
}
