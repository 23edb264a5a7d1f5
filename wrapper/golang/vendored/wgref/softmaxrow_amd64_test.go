package wgref

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// expShiftSum's assembly gives what its Go form gives: every exponential
// within exp's 2 ulps, the sum (added in the same order) within the
// float32 rounding of its terms, NaN where the Go form has NaN; on every
// length around the blocks of 8, unaligned, in place, with the edges
// (NaN, ±Inf, huge, tiny) among the inputs.
func TestExpShiftSumAssemblyMatchesGo(t *testing.T) {
	if !vecAVX2 {
		t.Skip("no AVX2 and FMA")
	}
	r := rand.New(rand.NewSource(34))
	for _, n := range vecLengths() {
		for off := 0; off < 4; off++ {
			for _, shift := range []float32{0, 3.5, -20, 88} {
				src := vecInputs(r, n, off, 12)
				want := make([]float32, n)
				wantSum := expShiftSumGo(want, src, shift)
				got := make([]float32, n+off)[off:]
				gotSum := expShiftSum(got, src, shift)
				inPlace := append(make([]float32, 0, n+3), src...)
				inPlaceSum := expShiftSum(inPlace, inPlace, shift)
				for i := range want {
					for _, g := range []float32{got[i], inPlace[i]} {
						require.True(t, closeULPs(g, want[i], src[i]-shift, unaryExp),
							"n %d, offset %d, x %g - %g: assembly %g, Go %g", n, off, src[i], shift, g, want[i])
					}
				}
				for _, s := range []float64{gotSum, inPlaceSum} {
					if math.IsNaN(wantSum) || math.IsInf(wantSum, 0) {
						require.Equal(t, math.IsNaN(wantSum), math.IsNaN(s), "n %d: sum %g, Go %g", n, s, wantSum)
						require.Equal(t, math.IsInf(wantSum, 1), math.IsInf(s, 1), "n %d: sum %g, Go %g", n, s, wantSum)
						continue
					}
					require.InDelta(t, wantSum, s, 2.5e-7*math.Abs(wantSum)+1e-300, "n %d, offset %d, shift %g", n, off, shift)
				}
			}
		}
	}
}

// Without vectors the softmax rows still give what the naive loop gives.
func TestSoftmaxRowsMatchNaiveLoopGo(t *testing.T) {
	defer func(had bool) { vecAVX2 = had }(vecAVX2)
	vecAVX2 = false
	TestSoftmaxRowsMatchNaiveLoop(t)
}
