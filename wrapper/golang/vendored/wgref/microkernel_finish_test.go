//go:build amd64

package wgref

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// kernel12x32Finish and kernel6x16Finish give, bit for bit, what
// kernel12x32 and kernel6x16 and then rowEpilogue.finish
// (biasClampAVX512, biasClampAVX2) give: with and without accumulation,
// bias (strided or none) and sum, for each activation they take, on sums
// that round, and with NaNs of several payloads, infinities and zeros of
// both signs among the inputs. tileFinishOf declines the activations they
// do not take.
func TestFinishTileSameBits(t *testing.T) {
	type finishing struct {
		path   kernelPath
		finish finishPath
		acts   int // how many of acts the kernel takes
	}
	var paths []finishing
	if haveAVX512 {
		paths = append(paths, finishing{avx512Path, finishPath{name: "avx512", vector: true, expAct: true}, 7})
	}
	if haveAVX2FMA {
		paths = append(paths, finishing{avx2Path, finishPath{name: "avx2", vector8: true}, 5})
	}
	if len(paths) == 0 {
		t.Skip("no AVX2 on this CPU: finishTile is not taken")
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
	for _, fp := range paths {
		restore := fp.finish.use()
		testFinishTileSameBits(t, r, fp.path, acts[:fp.acts], salt, saltDense)
		for _, act := range acts[fp.acts:] {
			require.False(t, fp.path.tileFinishOf(&rowEpilogue{act: act}).ok, "%s %s", fp.path.name, act.kind)
		}
		restore()
	}
}

func testFinishTileSameBits(t *testing.T, r *rand.Rand, p kernelPath, acts []fusedAct, salt, saltDense func([]float32)) {
	const ldc = 40
	mr, nr := p.mr, p.nr
	for _, kc := range []int{1, 3, 256} {
		for _, ldb := range []int{nr, nr + 13} {
			for _, act := range acts {
				for _, acc := range []bool{false, true} {
					for _, biasStride := range []int{0, 1, 3} {
						for _, withSum := range []bool{false, true} {
							name := fmt.Sprintf("%s kc %d ldb %d %q acc %v bias stride %d sum %v", p.name, kc, ldb, act.kind, acc, biasStride, withSum)
							a, b := randFloats(r, mr*kc), randFloats(r, (kc-1)*ldb+nr)
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
							p.run(kc, a, b, ldb, want[ldc+5:], ldc, acc)
							e.finish(want, ldc, 1, 1+mr, 5, 5+nr)
							got := append([]float32(nil), c0...)
							f := p.tileFinishOf(e)
							require.True(t, f.ok, name)
							p.finishTile(e, f, kc, a, b, ldb, got, ldc, 1, 5, acc)
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
		require.False(t, p.tileFinishOf(e).ok, "%s %s", p.name, kind)
	}
}
