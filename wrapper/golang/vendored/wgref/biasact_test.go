package wgref

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// rowEpilogue.finish (biasClampAVX512 where the CPU has it, and the row
// kernels) equals a plain loop on blocks of odd sizes inside a wider
// matrix, with and without bias and sum, for no activation, Relu (a NaN
// becomes 0) and Clip (a NaN stays), and leaves the rest of the matrix
// alone.
func TestRowEpilogueMatchesPlainLoop(t *testing.T) {
	defer func(v bool) { biasClampVector = v }(biasClampVector)
	paths := []bool{false}
	if biasClampVector {
		paths = append(paths, true)
	}
	r := rand.New(rand.NewSource(25))
	nan := float32(math.NaN())
	acts := []fusedAct{{}, {kind: "Relu"}, {kind: "Clip", alpha: -0.5, beta: 0.75}}
	for _, vector := range paths {
		biasClampVector = vector
		for _, act := range acts {
			for _, cols := range []int{1, 15, 16, 17, 33, 49} {
				for _, withBias := range []bool{false, true} {
					for _, withSum := range []bool{false, true} {
						const rows, r0, c0 = 5, 2, 3
						ldc := c0 + cols + 4
						c := randFloats(r, (r0+rows+1)*ldc)
						c[r0*ldc+c0] = nan
						e := rowEpilogue{act: act}
						if withBias {
							e.bias, e.biasStride = randFloats(r, 2*(r0+rows)), 2
						}
						if withSum {
							e.sum = randFloats(r, len(c))
						}
						want := append([]float32(nil), c...)
						for i := r0; i < r0+rows; i++ {
							for j := c0; j < c0+cols; j++ {
								v := want[i*ldc+j]
								if withBias {
									v += e.bias[i*e.biasStride]
								}
								if withSum {
									v += e.sum[i*ldc+j]
								}
								switch act.kind {
								case "Relu":
									if !(v > 0) {
										v = 0
									}
								case "Clip":
									if v < -0.5 {
										v = -0.5
									} else if v > 0.75 {
										v = 0.75
									}
								}
								want[i*ldc+j] = v
							}
						}
						e.finish(c, ldc, r0, r0+rows, c0, c0+cols)
						requireClose(t, want, c, 0, "%s", fmt.Sprintf("vector %v act %q cols %d bias %v sum %v", vector, act.kind, cols, withBias, withSum))
					}
				}
			}
		}
	}
}
