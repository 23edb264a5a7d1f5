package wgref

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// finishPath is one way rowEpilogue.finish runs: biasClampAVX512,
// biasClampAVX2 (with the AVX2 row kernels for SiLU and Sigmoid, as on a
// CPU without AVX-512), or row by row.
type finishPath struct {
	name                    string
	vector, vector8, expAct bool
}

// finishPaths are the finish paths this CPU runs, row by row first.
func finishPaths() []finishPath {
	paths := []finishPath{{name: "rows", expAct: expActVector}}
	if biasClampVector8 {
		paths = append(paths, finishPath{name: "avx2", vector8: true})
	}
	if biasClampVector {
		paths = append(paths, finishPath{name: "avx512", vector: true, expAct: expActVector})
	}
	return paths
}

// use sets the switches for p and returns what puts them back.
func (p finishPath) use() (restore func()) {
	v, v8, e := biasClampVector, biasClampVector8, expActVector
	biasClampVector, biasClampVector8, expActVector = p.vector, p.vector8, p.expAct
	return func() { biasClampVector, biasClampVector8, expActVector = v, v8, e }
}

// rowEpilogue.finish (biasClampAVX512 or biasClampAVX2 where the CPU has
// them, and the row kernels) equals a plain loop on blocks of odd sizes
// inside a wider matrix, with and without bias and sum, for no
// activation, Relu and Clip (a NaN stays), HardSigmoid,
// HardSwish, SiLU and Sigmoid, and leaves the rest of the matrix alone.
func TestRowEpilogueMatchesPlainLoop(t *testing.T) {
	r := rand.New(rand.NewSource(25))
	nan := float32(math.NaN())
	acts := []fusedAct{{}, {kind: "Relu"}, {kind: "Clip", alpha: -0.5, beta: 0.75}, {kind: "HardSigmoid", alpha: 0.2, beta: 0.5}, {kind: "HardSwish"}, {kind: "SiLU"}, {kind: "Sigmoid"}}
	for _, path := range finishPaths() {
		restore := path.use()
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
									if v <= 0 {
										v = 0
									}
								case "Clip":
									if v < -0.5 {
										v = -0.5
									} else if v > 0.75 {
										v = 0.75
									}
								case "HardSigmoid":
									v = float32(math.Max(0, math.Min(1, 0.2*float64(v)+0.5)))
								case "HardSwish":
									v = float32(float64(v) * math.Max(0, math.Min(1, float64(v)/6+0.5)))
								case "SiLU":
									v = float32(float64(v) / (1 + math.Exp(-float64(v))))
								case "Sigmoid":
									v = float32(1 / (1 + math.Exp(-float64(v))))
								}
								want[i*ldc+j] = v
							}
						}
						e.finish(c, ldc, r0, r0+rows, c0, c0+cols)
						tol := 0.0
						if act.kind != "" && act.kind != "Relu" && act.kind != "Clip" {
							tol = 1e-6 // multiply-adds round once; exp is a polynomial
						}
						requireClose(t, want, c, tol, "%s", fmt.Sprintf("%s act %q cols %d bias %v sum %v", path.name, act.kind, cols, withBias, withSum))
					}
				}
			}
		}
		restore()
	}
}

// The one-pass HardSigmoid, HardSwish, SiLU and Sigmoid give the bits of
// the row kernels they replace (which the unfused ops run), NaNs
// included, on each vector path: AVX-512's against expActRow and the
// AVX2 row kernels, AVX2's against the AVX2 row kernels alone.
func TestBiasClampHardActsMatchRowKernels(t *testing.T) {
	paths := finishPaths()[1:]
	if len(paths) == 0 {
		t.Skip("no AVX2 on this CPU: biasClamp is not taken")
	}
	r := rand.New(rand.NewSource(26))
	for _, path := range paths {
		for _, act := range []fusedAct{{kind: "HardSigmoid", alpha: 0.2, beta: 0.5}, {kind: "HardSigmoid", alpha: 1.0 / 6, beta: 0.5}, {kind: "HardSwish"}, {kind: "SiLU"}, {kind: "Sigmoid"}} {
			for _, cols := range []int{1, 7, 8, 16, 23, 49, 112} {
				const rows = 4
				c := randFloats(r, rows*cols)
				for i := range c {
					c[i] *= 8 // across both bends
				}
				c[0] = float32(math.NaN())
				e := rowEpilogue{act: act, bias: randFloats(r, rows), biasStride: 1, sum: randFloats(r, rows*cols)}
				vec, rowwise := append([]float32(nil), c...), append([]float32(nil), c...)
				restore := path.use()
				width, _, _, _ := e.vectorWidth()
				require.NotZero(t, width, "%s %s: not on the vector path", path.name, act.kind)
				e.finish(vec, cols, 0, rows, 0, cols)
				biasClampVector, biasClampVector8 = false, false
				e.finish(rowwise, cols, 0, rows, 0, cols)
				restore()
				for i := range vec {
					require.Equal(t, math.Float32bits(rowwise[i]), math.Float32bits(vec[i]), "%s %s cols %d element %d: one pass %v, row kernels %v", path.name, act.kind, cols, i, vec[i], rowwise[i])
				}
			}
		}
	}
}
