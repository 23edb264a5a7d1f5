package cppref

import (
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The normalization kernels (templates/wgref/norm.cc) against the Go
// ones: the float32 row paths and the float64 ones, strided views, every
// axis, optional inputs and outputs, training mode, rows shared among
// threads, NaN and masked (-Inf, -1e4) rows.

func TestBatchNormKernel(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(11))
	for _, shape := range [][]int{{2, 3, 4, 5}, {4, 3}, {1, 5, 7}, {2, 64, 33, 17}} {
		ch := shape[1]
		for _, d := range []wgrt.DType{wgrt.F32, wgrt.F64} {
			for _, training := range []int{0, 1} {
				for l := range rnLayouts {
					if len(shape) == 4 && shape[1] == 64 && (l > 0 || d != wgrt.F32) {
						continue
					}
					x := rnRandom(r, d, false, shape...)
					scale, bias, mean := rnRandom(r, d, false, ch), rnRandom(r, d, false, ch), rnRandom(r, d, false, ch)
					variance := rnRandom(r, d, false, ch)
					for i := 0; i < ch; i++ {
						rnSet(variance, i, 0.5+float64(i%3))
					}
					outs := []wgrt.Tensor{rnLayout(newTensor(d, shape...), l)}
					if training == 1 {
						outs = append(outs, newTensor(d, ch), newTensor(d, ch))
					}
					call := &wgrt.Call{Kernel: "BatchNormalization", Outputs: outs,
						Inputs:  []wgrt.Tensor{rnLayout(x, l), scale, bias, mean, variance},
						Attrs:   []wgrt.Attr{rnFloat("epsilon", 1e-3), rnFloat("momentum", 0.8), rnInt("training_mode", training)},
						Scratch: make([]byte, 32*ch), Threads: 2}
					t.Run(fmt.Sprintf("%v/%s/train%d/layout%d", shape, d, training, l), func(t *testing.T) {
						compareWithGo(t, srv, call, 1e-5, 1e-6)
					})
				}
			}
		}
	}
}

func TestLayerNormKernel(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(12))
	shape := []int{3, 4, 9}
	for _, d := range []wgrt.DType{wgrt.F32, wgrt.F64} {
		for axis := -3; axis < 3; axis++ {
			ax := (axis + 3) % 3
			inner := shape[ax:]
			for _, bias := range []bool{false, true} {
				for _, stats := range []bool{false, true} {
					for _, lowScale := range []bool{false, true} {
						if lowScale && d == wgrt.F32 && !stats && ax < 2 {
							// Go's float32 row path takes a Scale of lower rank than
							// the normalized dimensions for a full one (and panics).
							continue
						}
						for l := range rnLayouts {
							x := rnRandom(r, d, false, shape...)
							sshape := inner
							if lowScale {
								sshape = inner[len(inner)-1:] // broadcast over the rest
							}
							ins := []wgrt.Tensor{rnLayout(x, l), rnRandom(r, d, false, sshape...)}
							if bias {
								ins = append(ins, rnRandom(r, d, false, sshape...))
							}
							outs := []wgrt.Tensor{rnLayout(newTensor(d, shape...), l)}
							if stats {
								sh := append([]int(nil), shape...)
								for i := ax; i < 3; i++ {
									sh[i] = 1
								}
								outs = append(outs, newTensor(d, sh...), newTensor(d, sh...))
							}
							call := &wgrt.Call{Kernel: "LayerNormalization", Outputs: outs, Inputs: ins,
								Attrs: []wgrt.Attr{rnInt("axis", axis), rnFloat("epsilon", 1e-4)}}
							t.Run(fmt.Sprintf("%s/axis%d/bias%v/stats%v/low%v/layout%d", d, axis, bias, stats, lowScale, l), func(t *testing.T) {
								compareWithGo(t, srv, call, 1e-5, 1e-6)
							})
						}
					}
				}
			}
		}
	}
	// Rows far from zero; many rows among threads.
	x := randomF32(r, 256, 768)
	for i := 0; i < 768; i++ {
		rnSet(x, i, 1000+float64(i%7))
	}
	call := &wgrt.Call{Kernel: "LayerNormalization", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, 256, 768)},
		Inputs: []wgrt.Tensor{x, randomF32(r, 768), randomF32(r, 768)}, Attrs: []wgrt.Attr{rnInt("axis", -1)}, Threads: 2}
	compareWithGo(t, srv, call, 1e-5, 1e-5)
}

func TestInstanceNormKernel(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(13))
	for _, shape := range [][]int{{2, 3, 5, 7}, {2, 4, 9}, {3, 2}} {
		for _, d := range []wgrt.DType{wgrt.F32, wgrt.F64} {
			for l := range rnLayouts {
				call := &wgrt.Call{Kernel: "InstanceNormalization", Outputs: []wgrt.Tensor{rnLayout(newTensor(d, shape...), l)},
					Inputs: []wgrt.Tensor{rnLayout(rnRandom(r, d, false, shape...), l), rnRandom(r, d, false, shape[1]), rnRandom(r, d, false, shape[1])},
					Attrs:  []wgrt.Attr{rnFloat("epsilon", 1e-3)}}
				t.Run(fmt.Sprintf("%v/%s/layout%d", shape, d, l), func(t *testing.T) { compareWithGo(t, srv, call, 1e-5, 1e-6) })
			}
		}
	}
}

func TestLRNKernel(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(14))
	for _, size := range []int{1, 2, 3, 5} {
		for _, d := range []wgrt.DType{wgrt.F32, wgrt.F64} {
			for l := range rnLayouts {
				shape := []int{2, 7, 3, 4}
				call := &wgrt.Call{Kernel: "LRN", Outputs: []wgrt.Tensor{rnLayout(newTensor(d, shape...), l)},
					Inputs: []wgrt.Tensor{rnLayout(rnRandom(r, d, false, shape...), l)},
					Attrs:  []wgrt.Attr{rnInt("size", size), rnFloat("alpha", 0.002), rnFloat("beta", 0.5), rnFloat("bias", 2)}}
				t.Run(fmt.Sprintf("size%d/%s/layout%d", size, d, l), func(t *testing.T) { compareWithGo(t, srv, call, 1e-5, 1e-6) })
			}
		}
	}
}

func TestSoftmaxKernels(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(15))
	shape := []int{3, 4, 19}
	for _, kernel := range []string{"Softmax", "LogSoftmax", "Hardmax"} {
		for _, d := range []wgrt.DType{wgrt.F32, wgrt.F64} {
			for axis := -3; axis < 3; axis++ {
				for _, coerce := range []bool{false, true} {
					for l := range rnLayouts {
						x := rnRandom(r, d, kernel == "Hardmax", shape...)
						if d == wgrt.F32 {
							for i := 0; i < 19; i++ {
								rnSet(x, 19+i, -1e4*float64(i%2)) // a masked row
							}
							rnSet(x, 40, math.Inf(-1))
							rnSet(x, 60, math.NaN())
							rnSet(x, 80, 300) // a large value
						}
						attrs := []wgrt.Attr{rnInt("axis", axis)}
						if coerce {
							attrs = append(attrs, rnBool("coerce_2d", true))
						}
						call := &wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{rnLayout(newTensor(d, shape...), l)},
							Inputs: []wgrt.Tensor{rnLayout(x, l)}, Attrs: attrs}
						t.Run(fmt.Sprintf("%s/%s/axis%d/coerce%v/layout%d", kernel, d, axis, coerce, l), func(t *testing.T) {
							compareWithGo(t, srv, call, 1e-5, 1e-6)
						})
					}
				}
			}
		}
		// A scalar; many rows among threads.
		call := &wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{newTensor(wgrt.F32)}, Inputs: []wgrt.Tensor{randomF32(r)},
			Attrs: []wgrt.Attr{rnInt("axis", 0)}}
		compareWithGo(t, srv, call, 0, 0)
		call = &wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{newTensor(wgrt.F32, 300, 257)}, Inputs: []wgrt.Tensor{randomF32(r, 300, 257)},
			Attrs: []wgrt.Attr{rnInt("axis", 1)}, Threads: 2}
		compareWithGo(t, srv, call, 1e-5, 1e-7)
	}
}

func TestMeanVarianceNormKernel(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(16))
	shape := []int{2, 3, 4, 5}
	for _, axes := range [][]int{{0, 2, 3}, {1}, {3}, {0, 1, 2, 3}, {}} {
		for _, d := range []wgrt.DType{wgrt.F32, wgrt.F64} {
			for l := range rnLayouts {
				call := &wgrt.Call{Kernel: "MeanVarianceNormalization", Outputs: []wgrt.Tensor{rnLayout(newTensor(d, shape...), l)},
					Inputs: []wgrt.Tensor{rnLayout(rnRandom(r, d, false, shape...), l)}, Attrs: []wgrt.Attr{rnInts("axes", axes...)}}
				t.Run(fmt.Sprintf("%v/%s/layout%d", axes, d, l), func(t *testing.T) { compareWithGo(t, srv, call, 1e-5, 1e-6) })
			}
		}
	}
}

// The contiguous softmax rows on each instruction set against Go's: row
// lengths around the blocks of 8 and the 1024-element chunks, masked
// entries, entries just either side of the flush bound (max - 87), -Inf
// and a NaN row. The vector paths take Go's steps (the same exponential,
// the same lanes of float64 sums), so they must give Go's bits.
func TestSoftmaxRowsMatchGo(t *testing.T) {
	for _, isa := range isaPaths {
		t.Run(isa, func(t *testing.T) {
			t.Setenv("WGREF_ISA", isa)
			srv := startServer(t)
			r := rand.New(rand.NewSource(17))
			rtol := 0.0
			if isa == "portable" || runtime.GOARCH != "amd64" {
				rtol = 1e-6 // Go's assembly against C++'s scalar exponential
			}
			for _, n := range []int{1, 3, 7, 8, 9, 16, 31, 128, 197, 1023, 1024, 1025, 2061} {
				const rows = 4
				x := randomF32(r, rows, n)
				for i := 0; i < n; i++ {
					rnSet(x, n+i, 4*r.Float64()-1e4*float64(i%3/2)) // row 1: masked
				}
				rnSet(x, 2*n, 2) // row 2: the peak, entries by the flush bound
				for i := 1; i < n; i++ {
					rnSet(x, 2*n+i, []float64{2 - 87, 2 - 86.99, 2 - 87.01, math.Inf(-1), 1}[i%5])
				}
				rnSet(x, 3*n+n/2, math.NaN()) // row 3: NaN throughout
				for _, kernel := range []string{"Softmax", "LogSoftmax"} {
					call := &wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{newTensor(wgrt.F32, rows, n)}, Inputs: []wgrt.Tensor{x},
						Attrs: []wgrt.Attr{rnInt("axis", -1)}}
					t.Run(fmt.Sprintf("%s/%d", kernel, n), func(t *testing.T) { compareWithGo(t, srv, call, rtol, 0) })
				}
			}
		})
	}
}

// The contiguous LayerNormalization rows on each instruction set against
// Go's, with and without a bias, lengths around the blocks of 8 and rows
// far from zero: the same lanes of float64 statistics and the same
// rounded float32 steps, so the same bits.
func TestLayerNormRowsMatchGo(t *testing.T) {
	for _, isa := range isaPaths {
		t.Run(isa, func(t *testing.T) {
			t.Setenv("WGREF_ISA", isa)
			srv := startServer(t)
			r := rand.New(rand.NewSource(18))
			for _, n := range []int{1, 3, 7, 8, 9, 16, 31, 197, 768, 1029} {
				const rows = 3
				x := randomF32(r, rows, n)
				for i := 0; i < n; i++ {
					rnSet(x, 2*n+i, 1000+float64(i%7)) // row 2: far from zero
				}
				for _, bias := range []bool{false, true} {
					ins := []wgrt.Tensor{x, randomF32(r, n)}
					if bias {
						ins = append(ins, randomF32(r, n))
					}
					call := &wgrt.Call{Kernel: "LayerNormalization", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, rows, n)}, Inputs: ins,
						Attrs: []wgrt.Attr{rnInt("axis", -1), rnFloat("epsilon", 1e-5)}}
					t.Run(fmt.Sprintf("%d/bias%v", n, bias), func(t *testing.T) { compareWithGo(t, srv, call, 0, 0) })
				}
			}
		})
	}
}
