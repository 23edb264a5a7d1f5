package wgref

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// expActRow (AVX-512 where the CPU has it, and Go) is SiLU and Sigmoid to
// within float32 rounding of the float64 definitions, on lengths around
// the vector's, values out to where exp overflows and underflows, and
// infinities and NaN.
func TestExpActMatchesDefinition(t *testing.T) {
	defer func(v bool) { expActVector = v }(expActVector)
	paths := []bool{false}
	if expActVector {
		paths = append(paths, true)
	}
	r := rand.New(rand.NewSource(24))
	specials := []float32{0, -0.0, 1e-30, -1e-30, 20, -20, 87, -87, 88.9, -88.9, 104, -104, 200, -200, float32(math.Inf(1)), float32(math.NaN())}
	for _, vector := range paths {
		expActVector = vector
		for _, sigmoid := range []bool{false, true} {
			for _, n := range []int{1, 15, 16, 17, 33, 100} {
				row := make([]float32, n)
				for i := range row {
					row[i] = float32(r.NormFloat64() * 6)
				}
				copy(row, specials[:min(n, len(specials))])
				want := make([]float64, n)
				for i, x := range row {
					v := float64(x)
					s := 1 / (1 + math.Exp(-v))
					if v < 0 {
						s = math.Exp(v) / (1 + math.Exp(v))
					}
					if !sigmoid {
						s *= v
					}
					want[i] = s
				}
				expActRow(row, sigmoid)
				what := fmt.Sprintf("vector %v sigmoid %v n %d", vector, sigmoid, n)
				for i, got := range row {
					w := want[i]
					switch {
					case math.IsNaN(w):
						require.True(t, math.IsNaN(float64(got)), "%s at %d: want NaN, got %v", what, i, got)
					case math.IsInf(w, 0):
						require.Equal(t, w, float64(got), "%s at %d", what, i)
					default:
						require.InDelta(t, w, float64(got), 4e-7*math.Abs(w)+1e-37, "%s at %d (x %v)", what, i, i)
					}
				}
			}
		}
	}
}
