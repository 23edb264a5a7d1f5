package wgref

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// Layer normalization's assembly row passes give what their Go forms give,
// bit for bit (the same unfused operations in the same order): the lane
// sums and squares, and the normalized row with and without a bias, on
// every length around the blocks of 8, unaligned, in place, with the edges
// (NaN, ±Inf, huge, tiny) among the inputs.
func TestLayerNormAssemblyMatchesGo(t *testing.T) {
	if !vecAVX2 {
		t.Skip("no AVX2 and FMA")
	}
	same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b) }
	same64 := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) || (a != a && b != b) }
	r := rand.New(rand.NewSource(34))
	for _, n := range vecLengths() {
		for off := 0; off < 4; off++ {
			x := vecInputs(r, n, off, 12)
			body := n &^ 7
			var want, got [16]float64
			sumSquaresGo(x[:body], &want)
			sumSquaresBlocks(x[:body], &got)
			for l := range want {
				require.True(t, same64(want[l], got[l]), "n %d offset %d lane %d: assembly %g, Go %g", n, off, l, got[l], want[l])
			}
			g, b := vecInputs(r, n, 3-off, 2), vecInputs(r, n, off, 2)
			mean, inv := (r.Float32()*2-1)*3, r.Float32()*4
			for _, bias := range [][]float32{b, nil} {
				wantRow := make([]float32, n)
				layerNormApplyGo(wantRow, x, g, bias, mean, inv)
				gotRow := make([]float32, n+off)[off:]
				layerNormApply(gotRow, x, g, bias, mean, inv)
				inPlace := append([]float32(nil), x...)
				layerNormApply(inPlace, inPlace, g, bias, mean, inv)
				for i := range wantRow {
					require.True(t, same(wantRow[i], gotRow[i]) && same(wantRow[i], inPlace[i]),
						"n %d offset %d bias %v element %d: assembly %g (in place %g), Go %g", n, off, bias != nil, i, gotRow[i], inPlace[i], wantRow[i])
				}
			}
		}
	}
}

// Without vectors the layer normalization rows still give what the naive
// loop gives.
func TestLayerNormRowsMatchNaiveLoopGo(t *testing.T) {
	defer func(had bool) { vecAVX2 = had }(vecAVX2)
	vecAVX2 = false
	TestLayerNormRowsMatchNaiveLoop(t)
}
