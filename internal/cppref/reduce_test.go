package cppref

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The reduction kernels (templates/wgref/reduce.cc) against the Go ones:
// every Reduce* over every axis set, keepdims, dtypes of each path
// (float32 rows, float64, half, integers), strided views on both sides,
// NaN, ArgMax/ArgMin, TopK with ties and NaN, CumSum.

func rnInt(name string, v int) wgrt.Attr { return wgrt.Attr{Name: name, Kind: wgrt.AttrInt, Int: v} }
func rnFloat(name string, v float64) wgrt.Attr {
	return wgrt.Attr{Name: name, Kind: wgrt.AttrFloat, Float: v}
}
func rnBool(name string, v bool) wgrt.Attr {
	return wgrt.Attr{Name: name, Kind: wgrt.AttrBool, Bool: v}
}
func rnInts(name string, v ...int) wgrt.Attr {
	return wgrt.Attr{Name: name, Kind: wgrt.AttrInts, Ints: v}
}

// rnSet writes v into element i of the row-major t.
func rnSet(t wgrt.Tensor, i int, v float64) {
	b := t.Data
	switch t.DType {
	case wgrt.F32:
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(v)))
	case wgrt.F64:
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	case wgrt.F16:
		binary.LittleEndian.PutUint16(b[2*i:], rnHalf(float32(v)))
	case wgrt.I64:
		binary.LittleEndian.PutUint64(b[8*i:], uint64(int64(v)))
	case wgrt.I32:
		binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(v)))
	case wgrt.U8:
		b[i] = byte(int(v))
	default:
		panic("rnSet: dtype")
	}
}

// rnHalf is v as a float16, truncated (test data only: small values).
func rnHalf(v float32) uint16 {
	bits := math.Float32bits(v)
	sign := uint16(bits>>16) & 0x8000
	exp := int((bits>>23)&0xff) - 127 + 15
	if v == 0 || exp <= 0 {
		return sign
	}
	return sign | uint16(exp)<<10 | uint16((bits>>13)&0x3ff)
}

// rnRandom is a row-major tensor: floats in [-2, 2), integers in
// [-20, 20) (unsigned [0, 40)), or with ties, small integers as values.
func rnRandom(r *rand.Rand, d wgrt.DType, ties bool, shape ...int) wgrt.Tensor {
	t := newTensor(d, shape...)
	for i := 0; i < t.NumElements(); i++ {
		v := 4*r.Float64() - 2
		if ties || (d != wgrt.F32 && d != wgrt.F64 && d != wgrt.F16) {
			v = float64(r.Intn(40) - 20)
			if ties {
				v = float64(r.Intn(4))
			}
			if d == wgrt.U8 {
				v += 20
			}
		}
		rnSet(t, i, v)
	}
	return t
}

// rnView is t's values in new memory, its dimensions stored in reverse
// order (transposed) when flip, with pad unused elements after each: a
// strided view of the same tensor.
func rnView(t wgrt.Tensor, flip bool, pad int) wgrt.Tensor {
	r := len(t.Shape)
	strides := make([]int, r)
	cur := 1
	for k := r - 1; k >= 0; k-- {
		d := k
		if flip {
			d = r - 1 - k
		}
		strides[d] = cur
		cur = cur*t.Shape[d] + pad
	}
	extent := 1
	for d := range t.Shape {
		if t.Shape[d] == 0 {
			extent = 0
			break
		}
		extent += (t.Shape[d] - 1) * strides[d]
	}
	size := t.DType.Size()
	v := wgrt.Tensor{DType: t.DType, Shape: append([]int(nil), t.Shape...), Strides: strides, Device: "cpu", Data: make([]byte, max(extent, 1)*size)}
	n := t.NumElements()
	idx := make([]int, r)
	for e := 0; e < n; e++ {
		rem, off := e, 0
		for d := r - 1; d >= 0; d-- {
			idx[d] = rem % t.Shape[d]
			rem /= t.Shape[d]
			off += idx[d] * strides[d]
		}
		copy(v.Data[off*size:(off+1)*size], t.Data[e*size:(e+1)*size])
	}
	return v
}

// rnLayouts are the views a test runs on: row-major, padded, transposed.
var rnLayouts = []struct {
	flip bool
	pad  int
}{{false, 0}, {false, 3}, {true, 1}}

func rnLayout(t wgrt.Tensor, l int) wgrt.Tensor {
	if l == 0 {
		return t
	}
	return rnView(t, rnLayouts[l].flip, rnLayouts[l].pad)
}

func TestReduceKernels(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(7))
	kernels := []string{"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
		"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}
	shape := []int{3, 5, 7}
	axesSets := [][]int{{}, {0}, {1}, {2}, {-1}, {0, 2}, {1, 2}, {0, 1}, {0, 1, 2}}
	for _, kernel := range kernels {
		for _, d := range []wgrt.DType{wgrt.F32, wgrt.F64, wgrt.F16, wgrt.I64, wgrt.I32, wgrt.U8} {
			for _, axes := range axesSets {
				for _, keep := range []int{0, 1} {
					for l := range rnLayouts {
						red := map[int]bool{}
						for _, a := range axes {
							red[(a+3)%3] = true
						}
						var oshape []int
						for i, s := range shape {
							if !red[i] {
								oshape = append(oshape, s)
							} else if keep == 1 {
								oshape = append(oshape, 1)
							}
						}
						x := rnRandom(r, d, false, shape...)
						if d == wgrt.F32 && l == 0 && len(axes) > 0 {
							// A NaN in one row.
							rnSet(x, 8, math.NaN())
						}
						out := rnLayout(newTensor(d, oshape...), l)
						total := out.NumElements()
						call := &wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{rnLayout(x, l)},
							Attrs: []wgrt.Attr{rnInts("axes", axes...), rnInt("keepdims", keep)}, Scratch: make([]byte, 16*total)}
						t.Run(fmt.Sprintf("%s/%s/%v/keep%d/layout%d", kernel, d, axes, keep, l), func(t *testing.T) {
							compareWithGo(t, srv, call, 1e-5, 1e-6)
						})
					}
				}
			}
		}
	}
	// Large rows shared among threads; an empty reduction.
	for _, kernel := range kernels {
		x := randomF32(r, 64, 1031)
		out := newTensor(wgrt.F32, 64, 1)
		call := &wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x},
			Attrs: []wgrt.Attr{rnInts("axes", 1), rnInt("keepdims", 1)}, Threads: 2, Scratch: make([]byte, 16*64)}
		compareWithGo(t, srv, call, 1e-5, 1e-6)
		e := newTensor(wgrt.F32, 3, 0)
		call = &wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{newTensor(wgrt.F32, 3)}, Inputs: []wgrt.Tensor{e},
			Attrs: []wgrt.Attr{rnInts("axes", 1), rnInt("keepdims", 0)}, Scratch: make([]byte, 16*3)}
		compareWithGo(t, srv, call, 0, 0)
	}
}

func TestArgReduceKernels(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(8))
	shape := []int{4, 6, 5}
	for _, kernel := range []string{"ArgMax", "ArgMin"} {
		for _, d := range []wgrt.DType{wgrt.F32, wgrt.F64, wgrt.I32, wgrt.F16} {
			for _, axis := range []int{0, 1, 2, -1} {
				for _, keep := range []int{0, 1} {
					for _, last := range []int{0, 1} {
						for l := range rnLayouts {
							ax := (axis + 3) % 3
							var oshape []int
							for i, s := range shape {
								if i != ax {
									oshape = append(oshape, s)
								} else if keep == 1 {
									oshape = append(oshape, 1)
								}
							}
							x := rnRandom(r, d, true, shape...)
							if d == wgrt.F32 {
								rnSet(x, 3, math.NaN())
							}
							call := &wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{rnLayout(newTensor(wgrt.I64, oshape...), l)},
								Inputs: []wgrt.Tensor{rnLayout(x, l)},
								Attrs:  []wgrt.Attr{rnInt("axis", axis), rnInt("keepdims", keep), rnInt("select_last_index", last)}}
							t.Run(fmt.Sprintf("%s/%s/axis%d/keep%d/last%d/layout%d", kernel, d, axis, keep, last, l), func(t *testing.T) {
								compareWithGo(t, srv, call, 0, 0)
							})
						}
					}
				}
			}
		}
	}
}

func TestTopKKernel(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(9))
	shape := []int{3, 9, 4}
	for _, d := range []wgrt.DType{wgrt.F32, wgrt.I64, wgrt.F64} {
		for _, axis := range []int{0, 1, 2, -2} {
			ax := (axis + 3) % 3
			for _, k := range []int{0, 1, 2, shape[ax]} {
				for _, largest := range []int{0, 1} {
					for _, ties := range []bool{false, true} {
						for l := range rnLayouts {
							x := rnRandom(r, d, ties, shape...)
							if d == wgrt.F32 && ties {
								rnSet(x, 5, math.NaN())
								rnSet(x, 17, math.NaN())
								rnSet(x, 9, math.Inf(1))
							}
							oshape := append([]int(nil), shape...)
							oshape[ax] = k
							call := &wgrt.Call{Kernel: "TopK",
								Outputs: []wgrt.Tensor{rnLayout(newTensor(d, oshape...), l), rnLayout(newTensor(wgrt.I64, oshape...), l)},
								Inputs:  []wgrt.Tensor{rnLayout(x, l)},
								Attrs:   []wgrt.Attr{rnInt("axis", axis), rnInt("k", k), rnInt("largest", largest), rnInt("sorted", 1)},
								Scratch: make([]byte, 16*shape[ax])}
							t.Run(fmt.Sprintf("%s/axis%d/k%d/largest%d/ties%v/layout%d", d, axis, k, largest, ties, l), func(t *testing.T) {
								compareWithGo(t, srv, call, 0, 0)
							})
						}
					}
				}
			}
		}
	}
	// A long line, few of it: the partial sort.
	x := rnRandom(r, wgrt.F32, true, 2, 200)
	call := &wgrt.Call{Kernel: "TopK", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, 2, 5), newTensor(wgrt.I64, 2, 5)},
		Inputs: []wgrt.Tensor{x}, Attrs: []wgrt.Attr{rnInt("axis", 1), rnInt("k", 5)}, Scratch: make([]byte, 16*200)}
	compareWithGo(t, srv, call, 0, 0)
}

func TestCumSumKernel(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(10))
	shape := []int{3, 6, 5}
	for _, d := range []wgrt.DType{wgrt.F32, wgrt.F64, wgrt.I32, wgrt.I64, wgrt.F16} {
		for _, axis := range []int{0, 1, 2, -1} {
			for _, exclusive := range []int{0, 1} {
				for _, reverse := range []int{0, 1} {
					for l := range rnLayouts {
						x := rnRandom(r, d, false, shape...)
						call := &wgrt.Call{Kernel: "CumSum", Outputs: []wgrt.Tensor{rnLayout(newTensor(d, shape...), l)},
							Inputs: []wgrt.Tensor{rnLayout(x, l)},
							Attrs:  []wgrt.Attr{rnInt("axis", axis), rnInt("exclusive", exclusive), rnInt("reverse", reverse)}}
						t.Run(fmt.Sprintf("%s/axis%d/excl%d/rev%d/layout%d", d, axis, exclusive, reverse, l), func(t *testing.T) {
							compareWithGo(t, srv, call, 1e-6, 1e-6)
						})
					}
				}
			}
		}
	}
}
