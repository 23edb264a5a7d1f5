package cppref

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The movement, index and generate kernels (templates/wgref/movement.cc,
// index.cc, generate.cc) against the Go ones: every element size, strided
// views on both sides, the kernels no node test reaches (Choose*,
// *ToSizes*, Assign, AssignSlice).

func mvInt(name string, v int) wgrt.Attr { return wgrt.Attr{Name: name, Kind: wgrt.AttrInt, Int: v} }
func mvFloat(name string, v float64) wgrt.Attr {
	return wgrt.Attr{Name: name, Kind: wgrt.AttrFloat, Float: v}
}
func mvBool(name string, v bool) wgrt.Attr {
	return wgrt.Attr{Name: name, Kind: wgrt.AttrBool, Bool: v}
}
func mvStr(name, v string) wgrt.Attr { return wgrt.Attr{Name: name, Kind: wgrt.AttrString, Str: v} }
func mvInts(name string, v ...int) wgrt.Attr {
	return wgrt.Attr{Name: name, Kind: wgrt.AttrInts, Ints: v}
}

// mvDTypes are one dtype of each element size the kernels copy by.
var mvDTypes = []wgrt.DType{wgrt.F32, wgrt.I64, wgrt.U8, wgrt.F16, wgrt.Bool, wgrt.F64, wgrt.I32}

// mvRandom is a row-major tensor of random values (floats in [-2, 2),
// integers small, bools 0 or 1, other dtypes random bytes).
func mvRandom(r *rand.Rand, d wgrt.DType, shape ...int) wgrt.Tensor {
	t := newTensor(d, shape...)
	n := t.NumElements()
	for i := 0; i < n; i++ {
		switch d {
		case wgrt.F32:
			binary.LittleEndian.PutUint32(t.Data[4*i:], math.Float32bits(4*r.Float32()-2))
		case wgrt.F64:
			binary.LittleEndian.PutUint64(t.Data[8*i:], math.Float64bits(4*r.Float64()-2))
		case wgrt.Bool:
			t.Data[i] = byte(r.Intn(2))
		case wgrt.I64:
			binary.LittleEndian.PutUint64(t.Data[8*i:], uint64(int64(r.Intn(200)-100)))
		case wgrt.I32:
			binary.LittleEndian.PutUint32(t.Data[4*i:], uint32(int32(r.Intn(200)-100)))
		default:
			for b := 0; b < d.Size(); b++ {
				t.Data[i*d.Size()+b] = byte(r.Intn(256))
			}
		}
	}
	return t
}

// mvI64 is an i64 tensor of shape holding vals, row-major.
func mvI64(shape []int, vals ...int) wgrt.Tensor {
	t := newTensor(wgrt.I64, shape...)
	for i, v := range vals {
		binary.LittleEndian.PutUint64(t.Data[8*i:], uint64(int64(v)))
	}
	return t
}

// mvLayout is t's values in new memory laid out with its dimensions
// stored in the order perm (outermost first) and pad unused elements
// after each stored dimension: a strided view of the same tensor.
func mvLayout(t wgrt.Tensor, perm []int, pad int) wgrt.Tensor {
	r := len(t.Shape)
	if perm == nil {
		perm = make([]int, r)
		for i := range perm {
			perm[i] = i
		}
	}
	strides := make([]int, r)
	step := 1
	for k := r - 1; k >= 0; k-- {
		d := perm[k]
		strides[d] = step
		step *= t.Shape[d] + pad
	}
	size := t.DType.Size()
	v := wgrt.Tensor{DType: t.DType, Shape: append([]int(nil), t.Shape...), Strides: strides, Device: "cpu", Data: make([]byte, (step+1)*size)}
	if t.NumElements() == 0 {
		return v
	}
	idx := make([]int, r)
	for {
		so, do := 0, 0
		for i := range idx {
			so += idx[i] * t.Strides[i]
			do += idx[i] * strides[i]
		}
		copy(v.Data[do*size:do*size+size], t.Data[so*size:so*size+size])
		d := r - 1
		for ; d >= 0; d-- {
			if idx[d]++; idx[d] < t.Shape[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			break
		}
	}
	return v
}

// mvReversed is the reverse of a permutation of rank r (a transposed
// layout).
func mvReversed(r int) []int {
	p := make([]int, r)
	for i := range p {
		p[i] = r - 1 - i
	}
	return p
}

// mvVariants are x as given, padded, and laid out transposed.
func mvVariants(x wgrt.Tensor) []wgrt.Tensor {
	return []wgrt.Tensor{x, mvLayout(x, nil, 1), mvLayout(x, mvReversed(len(x.Shape)), 2)}
}

// mvOutputs are a new output of shape, row-major and as a padded view.
func mvOutputs(d wgrt.DType, shape ...int) []wgrt.Tensor {
	o := newTensor(d, shape...)
	return []wgrt.Tensor{o, mvLayout(o, nil, 1), mvLayout(o, mvReversed(len(shape)), 1)}
}

// mvEach runs compareWithGo on the call for every variant of its first
// input and its first output.
func mvEach(t *testing.T, srv *Server, kernel string, out wgrt.Tensor, ins []wgrt.Tensor, attrs ...wgrt.Attr) {
	t.Helper()
	for _, o := range mvOutputs(out.DType, out.Shape...) {
		for _, x := range mvVariants(ins[0]) {
			in := append([]wgrt.Tensor{x}, ins[1:]...)
			mvCompare(t, srv, &wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{o}, Inputs: in, Attrs: attrs}, 0, 0)
		}
	}
}

func TestMovementCopies(t *testing.T) {
	srv := mvServer(t)
	r := rand.New(rand.NewSource(7))
	for _, d := range mvDTypes {
		x := mvRandom(r, d, 3, 4, 5)
		for _, k := range []string{"Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze"} {
			mvEach(t, srv, k, newTensor(d, 12, 5), []wgrt.Tensor{x})
		}
		mvEach(t, srv, "Reshape", newTensor(d, 60), []wgrt.Tensor{x})
		mvEach(t, srv, "Reshape", newTensor(d, 2, 5, 6), []wgrt.Tensor{x})
		mvEach(t, srv, "Dropout", newTensor(d, 3, 4, 5), []wgrt.Tensor{x}, mvFloat("ratio", 0.3))
		mask := newTensor(wgrt.Bool, 3, 4, 5)
		mvCompare(t, srv, &wgrt.Call{Kernel: "Dropout", Outputs: []wgrt.Tensor{newTensor(d, 3, 4, 5), mask}, Inputs: []wgrt.Tensor{x}}, 0, 0)
		mvCompare(t, srv, &wgrt.Call{Kernel: "Dropout", Outputs: []wgrt.Tensor{newTensor(d, 3, 4, 5)}, Inputs: []wgrt.Tensor{x},
			Attrs: []wgrt.Attr{mvBool("training_mode", true)}}, 0, 0)
		// Expand: broadcast inner, outer and both.
		for _, shape := range [][]int{{4, 1}, {1, 5}, {3, 1, 5}, {5}, {1}, {}, {3, 4, 5}, {2, 4}} {
			mvEach(t, srv, "Expand", newTensor(d, 3, 4, 5), []wgrt.Tensor{mvRandom(r, d, shape...)})
		}
	}
	mvCompare(t, srv, &wgrt.Call{Kernel: "Identity", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, 3, 4)}, Inputs: []wgrt.Tensor{randomF32(r, 4, 4)}}, 0, 0)
}

func TestMovementTransposeSlice(t *testing.T) {
	srv := mvServer(t)
	r := rand.New(rand.NewSource(8))
	perms3 := [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for _, d := range mvDTypes {
		x := mvRandom(r, d, 3, 5, 7)
		for _, p := range perms3 {
			mvEach(t, srv, "Transpose", newTensor(d, x.Shape[p[0]], x.Shape[p[1]], x.Shape[p[2]]), []wgrt.Tensor{x}, mvInts("perm", p...))
		}
		// Blocked transposes: odd sizes around the block edges.
		for _, shape := range [][]int{{2, 17, 19}, {33, 9}, {1, 40, 3}, {4, 16, 16}} {
			xt := mvRandom(r, d, shape...)
			p := make([]int, len(shape))
			for i := range p {
				p[i] = i
			}
			p[len(p)-1], p[len(p)-2] = p[len(p)-2], p[len(p)-1]
			os := make([]int, len(shape))
			for i := range os {
				os[i] = shape[p[i]]
			}
			mvEach(t, srv, "Transpose", newTensor(d, os...), []wgrt.Tensor{xt}, mvInts("perm", p...))
		}
		x4 := mvRandom(r, d, 2, 3, 4, 5)
		mvEach(t, srv, "Transpose", newTensor(d, 2, 4, 3, 5), []wgrt.Tensor{x4}, mvInts("perm", 0, 2, 1, 3))
		mvEach(t, srv, "Transpose", newTensor(d, 5, 2, 3, 4), []wgrt.Tensor{x4}, mvInts("perm", 3, 0, 1, 2))
		mvEach(t, srv, "Transpose", newTensor(d, 3, 5), []wgrt.Tensor{x4}, mvInts("perm", 3, 0, 1, 2)) // refused
		// Slices: starts, steps (negative too), empty.
		xs := mvRandom(r, d, 6, 7, 8)
		mvEach(t, srv, "Slice", newTensor(d, 3, 7, 2), []wgrt.Tensor{xs}, mvInts("starts", 1, 0, 3), mvInts("steps", 2, 1, 4))
		mvEach(t, srv, "Slice", newTensor(d, 6, 3, 8), []wgrt.Tensor{xs}, mvInts("starts", 5, 6, 0), mvInts("steps", -1, -3, 1))
		mvEach(t, srv, "Slice", newTensor(d, 6, 0, 8), []wgrt.Tensor{xs}, mvInts("starts", 0, 9, 0), mvInts("steps", 1, 1, 1))
		mvEach(t, srv, "Slice", newTensor(d, 2, 7, 8), []wgrt.Tensor{xs}, mvInts("starts", 5, 0, 0), mvInts("steps", 1, 1, 1)) // out of range
		mvEach(t, srv, "Slice", newTensor(d, 2, 7, 8), []wgrt.Tensor{xs}, mvInts("starts", 2, 0, 0), mvInts("steps", 1, 1, 1))
	}
}

func TestMovementConcatSplitTile(t *testing.T) {
	srv := mvServer(t)
	r := rand.New(rand.NewSource(9))
	for _, d := range mvDTypes {
		for axis := -3; axis < 3; axis++ {
			ax := (axis + 3) % 3
			shapes := [][]int{{2, 3, 4}, {2, 3, 4}, {2, 3, 4}}
			shapes[1][ax], shapes[2][ax] = 1, 5
			var ins []wgrt.Tensor
			out := []int{2, 3, 4}
			out[ax] = shapes[0][ax] + 1 + 5
			for i, s := range shapes {
				x := mvRandom(r, d, s...)
				if i == 1 {
					x = mvLayout(x, mvReversed(3), 1)
				}
				ins = append(ins, x)
			}
			for _, o := range mvOutputs(d, out...) {
				mvCompare(t, srv, &wgrt.Call{Kernel: "Concat", Outputs: []wgrt.Tensor{o}, Inputs: ins, Attrs: []wgrt.Attr{mvInt("axis", axis)}}, 0, 0)
			}
			x := mvRandom(r, d, out...)
			for _, xv := range mvVariants(x) {
				outs := []wgrt.Tensor{newTensor(d, shapes[0]...), mvLayout(newTensor(d, shapes[1]...), nil, 1), newTensor(d, shapes[2]...)}
				mvCompare(t, srv, &wgrt.Call{Kernel: "Split", Outputs: outs, Inputs: []wgrt.Tensor{xv}, Attrs: []wgrt.Attr{mvInt("axis", axis)}}, 0, 0)
			}
		}
		mvCompare(t, srv, &wgrt.Call{Kernel: "Concat", Outputs: []wgrt.Tensor{newTensor(d, 2, 3)}, Inputs: []wgrt.Tensor{mvRandom(r, d, 2, 2), mvRandom(r, d, 2, 2)},
			Attrs: []wgrt.Attr{mvInt("axis", 1)}}, 0, 0) // too long
		mvCompare(t, srv, &wgrt.Call{Kernel: "Concat", Outputs: []wgrt.Tensor{newTensor(d, 2, 3)}, Inputs: []wgrt.Tensor{mvRandom(r, d, 2, 2)},
			Attrs: []wgrt.Attr{mvInt("axis", 2)}}, 0, 0) // bad axis
		x := mvRandom(r, d, 2, 3, 5)
		mvEach(t, srv, "Tile", newTensor(d, 4, 3, 15), []wgrt.Tensor{x})
		mvEach(t, srv, "Tile", newTensor(d, 2, 9, 5), []wgrt.Tensor{x})
		mvEach(t, srv, "Tile", newTensor(d, 2, 3, 5), []wgrt.Tensor{x})
		mvEach(t, srv, "Tile", newTensor(d, 6, 3, 10), []wgrt.Tensor{mvRandom(r, d, 2, 1, 5)})
		mvEach(t, srv, "Tile", newTensor(d, 7), []wgrt.Tensor{mvRandom(r, d, 1)})
	}
}

func TestMovementPad(t *testing.T) {
	srv := mvServer(t)
	r := rand.New(rand.NewSource(10))
	for _, d := range mvDTypes {
		x := mvRandom(r, d, 3, 4, 5)
		for _, mode := range []string{"constant", "edge", "reflect", "wrap"} {
			for _, pads := range [][]int{{0, 1, 2, 1, 0, 3}, {1, 0, 0, 0, 2, 0}, {0, -1, 2, 0, 1, -2}, {0, 0, 0, 0, 0, 0}, {2, 3, 4, 2, 3, 4}} {
				shape := make([]int, 3)
				for i := range shape {
					shape[i] = x.Shape[i] + pads[i] + pads[i+3]
				}
				mvEach(t, srv, "Pad", newTensor(d, shape...), []wgrt.Tensor{x}, mvStr("mode", mode), mvInts("pads", pads...), mvFloat("value", 1.5))
			}
		}
		v := mvRandom(r, d)
		mvEach(t, srv, "Pad", newTensor(d, 4, 6, 5), []wgrt.Tensor{x, v}, mvInts("pads", 1, 1, 0, 0, 1, 0), mvBool("value_from_input", true))
		mvEach(t, srv, "Pad", newTensor(d, 3, 4, 5), []wgrt.Tensor{x}, mvInts("pads", 0, 0, 0, 0, 0, 0), mvStr("mode", "nope"))
		mvEach(t, srv, "Pad", newTensor(d, 3, 4, 5), []wgrt.Tensor{x}, mvInts("pads", 0, 0, 0, 0))
		// Pads cropping everything, and a big one (reflect wraps twice).
		mvEach(t, srv, "Pad", newTensor(d, 3, 0, 5), []wgrt.Tensor{x}, mvInts("pads", 0, -2, 0, 0, -2, 0))
		mvEach(t, srv, "Pad", newTensor(d, 3, 4, 25), []wgrt.Tensor{x}, mvStr("mode", "reflect"), mvInts("pads", 0, 0, 11, 0, 0, 9))
		mvEach(t, srv, "Pad", newTensor(d, 3, 4, 25), []wgrt.Tensor{x}, mvStr("mode", "wrap"), mvInts("pads", 0, 0, 11, 0, 0, 9))
		mvEach(t, srv, "Pad", newTensor(d, 3, 6, 5), []wgrt.Tensor{mvRandom(r, d, 3, 1, 5)}, mvStr("mode", "reflect"), mvInts("pads", 0, 2, 0, 0, 3, 0))
	}
}

func TestMovementDepthSpace(t *testing.T) {
	srv := mvServer(t)
	r := rand.New(rand.NewSource(11))
	for _, d := range mvDTypes {
		x := mvRandom(r, d, 2, 12, 3, 5)
		for _, b := range []int{1, 2} {
			for _, mode := range []string{"DCR", "CRD"} {
				mvEach(t, srv, "DepthToSpace", newTensor(d, 2, 12/(b*b), 3*b, 5*b), []wgrt.Tensor{x}, mvInt("blocksize", b), mvStr("mode", mode))
			}
		}
		xs := mvRandom(r, d, 2, 3, 6, 4)
		mvEach(t, srv, "SpaceToDepth", newTensor(d, 2, 12, 3, 2), []wgrt.Tensor{xs}, mvInt("blocksize", 2))
		mvEach(t, srv, "SpaceToDepth", newTensor(d, 2, 3, 6, 4), []wgrt.Tensor{xs}, mvInt("blocksize", 1))
	}
}

// mvCounts are n i64 scalars (sizes reported).
func mvCounts(n int) []wgrt.Tensor {
	var ts []wgrt.Tensor
	for i := 0; i < n; i++ {
		ts = append(ts, newTensor(wgrt.I64))
	}
	return ts
}

func TestMovementToSizes(t *testing.T) {
	srv := mvServer(t)
	r := rand.New(rand.NewSource(12))
	for _, d := range mvDTypes {
		// The output's bound [4, 6, 5]; the shape read [4, 3, 5] with axis 1 reported.
		for _, shape := range [][]int{{4, 3, 5}, {4, 6, 5}, {4, 7, 5}, {3, 3, 5}, {4, 1, 5}, {4, 0, 5}} {
			outs := append([]wgrt.Tensor{newTensor(d, 4, 6, 5)}, mvCounts(1)...)
			mvCompare(t, srv, &wgrt.Call{Kernel: "ConstantOfShapeToSizes1", Outputs: outs, Inputs: []wgrt.Tensor{mvI64([]int{3}, shape...)},
				Attrs: []wgrt.Attr{mvFloat("value", 2.5), mvInts("axes", 1), mvInts("least", 1)}}, 0, 0)
			outs = append([]wgrt.Tensor{newTensor(d, 4, 6, 5)}, mvCounts(2)...)
			mvCompare(t, srv, &wgrt.Call{Kernel: "ConstantOfShapeToSizes2", Outputs: outs, Inputs: []wgrt.Tensor{mvI64([]int{3}, shape...)},
				Attrs: []wgrt.Attr{mvFloat("value", -1), mvInts("axes", 1, 0), mvInts("least", 0, 2)}}, 0, 0)
			x := mvRandom(r, d, 4, 1, 5)
			for _, xv := range mvVariants(x) {
				outs = append([]wgrt.Tensor{newTensor(d, 4, 6, 5)}, mvCounts(1)...)
				mvCompare(t, srv, &wgrt.Call{Kernel: "ExpandToSizes1", Outputs: outs, Inputs: []wgrt.Tensor{xv, mvI64([]int{3}, shape...)},
					Attrs: []wgrt.Attr{mvInts("axes", 1), mvInts("least", 0)}}, 0, 0)
			}
		}
		mvCompare(t, srv, &wgrt.Call{Kernel: "ConstantOfShapeToSizes0", Outputs: []wgrt.Tensor{newTensor(d, 2, 3)}, Inputs: []wgrt.Tensor{mvI64([]int{2}, 2, 3)},
			Attrs: []wgrt.Attr{mvInts("axes"), mvInts("least")}}, 0, 0)
		// ExpandToSizes: the target shorter or longer than x, broadcast both ways.
		x := mvRandom(r, d, 3, 1)
		outs := append([]wgrt.Tensor{newTensor(d, 2, 3, 8)}, mvCounts(1)...)
		mvCompare(t, srv, &wgrt.Call{Kernel: "ExpandToSizes1", Outputs: outs, Inputs: []wgrt.Tensor{x, mvI64([]int{3}, 2, 1, 6)},
			Attrs: []wgrt.Attr{mvInts("axes", 2), mvInts("least", 1)}}, 0, 0)
		mvCompare(t, srv, &wgrt.Call{Kernel: "ExpandToSizes1", Outputs: outs, Inputs: []wgrt.Tensor{x, mvI64([]int{3}, 2, 2, 6)},
			Attrs: []wgrt.Attr{mvInts("axes", 2), mvInts("least", 1)}}, 0, 0)
		outs = append([]wgrt.Tensor{newTensor(d, 3, 4)}, mvCounts(1)...)
		mvCompare(t, srv, &wgrt.Call{Kernel: "ExpandToSizes1", Outputs: outs, Inputs: []wgrt.Tensor{x, mvI64([]int{1}, 4)},
			Attrs: []wgrt.Attr{mvInts("axes", 1), mvInts("least", 1)}}, 0, 0)
	}
	// Bad shapes: a negative size, a wrong dtype.
	mvCompare(t, srv, &wgrt.Call{Kernel: "ConstantOfShapeToSizes1", Outputs: append([]wgrt.Tensor{newTensor(wgrt.F32, 4)}, mvCounts(1)...),
		Inputs: []wgrt.Tensor{mvI64([]int{1}, -1)}, Attrs: []wgrt.Attr{mvInts("axes", 0), mvInts("least", 0)}}, 0, 0)
	mvCompare(t, srv, &wgrt.Call{Kernel: "ConstantOfShapeToSizes1", Outputs: append([]wgrt.Tensor{newTensor(wgrt.F32, 4)}, mvCounts(1)...),
		Inputs: []wgrt.Tensor{newTensor(wgrt.I32, 1)}, Attrs: []wgrt.Attr{mvInts("axes", 0), mvInts("least", 0)}}, 0, 0)
	for n := 0; n <= 8; n++ {
		require.True(t, wgref.Has(fmt.Sprintf("ExpandToSizes%d", n)))
	}
}

func mvCond(v bool) wgrt.Tensor {
	t := newTensor(wgrt.Bool)
	if v {
		t.Data[0] = 1
	}
	return t
}

func TestMovementChoose(t *testing.T) {
	srv := mvServer(t)
	r := rand.New(rand.NewSource(13))
	for _, d := range mvDTypes {
		a, b := mvRandom(r, d, 3, 4, 5), mvRandom(r, d, 3, 2, 5)
		for _, cond := range []bool{true, false} {
			for _, av := range mvVariants(a) {
				for _, o := range mvOutputs(d, 3, 4, 5) {
					mvCompare(t, srv, &wgrt.Call{Kernel: "Choose", Outputs: []wgrt.Tensor{o}, Inputs: []wgrt.Tensor{mvCond(cond), av, mvRandom(r, d, 3, 4, 5)}}, 0, 0)
				}
				outs := append([]wgrt.Tensor{newTensor(d, 3, 4, 5)}, mvCounts(1)...)
				mvCompare(t, srv, &wgrt.Call{Kernel: "Choose1", Outputs: outs, Inputs: []wgrt.Tensor{mvCond(cond), av, mvLayout(b, nil, 1)},
					Attrs: []wgrt.Attr{mvInts("axes", 1)}}, 0, 0)
				outs = append([]wgrt.Tensor{newTensor(d, 3, 4, 5)}, mvCounts(2)...)
				mvCompare(t, srv, &wgrt.Call{Kernel: "Choose2", Outputs: outs, Inputs: []wgrt.Tensor{mvCond(cond), mvLayout(b, nil, 1), av},
					Attrs: []wgrt.Attr{mvInts("axes", 1, 2)}}, 0, 0)
			}
			// Refused: a shape off the output's on an axis not reported, beyond the capacity.
			outs := append([]wgrt.Tensor{newTensor(d, 3, 4, 5)}, mvCounts(1)...)
			mvCompare(t, srv, &wgrt.Call{Kernel: "Choose1", Outputs: outs, Inputs: []wgrt.Tensor{mvCond(cond), a, b},
				Attrs: []wgrt.Attr{mvInts("axes", 2)}}, 0, 0)
			outs = append([]wgrt.Tensor{newTensor(d, 3, 2, 5)}, mvCounts(1)...)
			mvCompare(t, srv, &wgrt.Call{Kernel: "Choose1", Outputs: outs, Inputs: []wgrt.Tensor{mvCond(cond), a, b},
				Attrs: []wgrt.Attr{mvInts("axes", 1)}}, 0, 0)
			mvCompare(t, srv, &wgrt.Call{Kernel: "Choose", Outputs: []wgrt.Tensor{newTensor(d, 3, 4, 5)}, Inputs: []wgrt.Tensor{mvCond(cond), a, b}}, 0, 0)
		}
	}
}

// mvCompareMutated runs a kernel that writes into input m (Assign,
// AssignSlice) through Go and C++ and requires the same bytes in it.
func mvCompareMutated(t *testing.T, srv *Server, call *wgrt.Call, m int) {
	t.Helper()
	names := make([]string, len(call.Inputs))
	for i := range names {
		names[i] = fmt.Sprintf("in%d", i)
	}
	op := &wgrt.Op{Kernel: call.Kernel, Inputs: names, Mutates: []string{names[m]}}
	goCall, cCall := *call, *call
	goCall.Inputs = cloneOutputs(call.Inputs)
	cCall.Inputs = cloneOutputs(call.Inputs)
	cCall.Op = op
	goErr := wgref.Call(&goCall)
	cErr := srv.Call(&cCall)
	if goErr != nil {
		require.Error(t, cErr, "%s: Go refuses (%v), C++ does not", call.Kernel, goErr)
		return
	}
	require.NoError(t, cErr, call.Kernel)
	g, c := goCall.Inputs[m], cCall.Inputs[m]
	require.Equal(t, extent(g), extent(c), call.Kernel)
}

func TestMovementAssign(t *testing.T) {
	srv := mvServer(t)
	r := rand.New(rand.NewSource(14))
	for _, d := range mvDTypes {
		src := mvRandom(r, d, 3, 4, 5)
		for _, sv := range mvVariants(src) {
			for _, dst := range mvOutputs(d, 3, 4, 5) {
				mvCompareMutated(t, srv, &wgrt.Call{Kernel: "Assign", Inputs: []wgrt.Tensor{sv, dst}}, 1)
			}
			mvCompareMutated(t, srv, &wgrt.Call{Kernel: "Assign", Inputs: []wgrt.Tensor{sv, newTensor(d, 3, 5, 4)}}, 1)
			for axis := 0; axis < 4; axis++ {
				shape := []int{3, 4, 5}
				shape = append(shape[:axis], append([]int{6}, shape[axis:]...)...)
				for _, at := range []int{0, 5, 6, -1} {
					for _, dst := range mvOutputs(d, shape...) {
						mvCompareMutated(t, srv, &wgrt.Call{Kernel: "AssignSlice", Inputs: []wgrt.Tensor{sv, mvI64(nil, at), dst},
							Attrs: []wgrt.Attr{mvInt("axis", axis)}}, 2)
					}
				}
			}
			idx32 := newTensor(wgrt.I32)
			idx32.Data[0] = 2
			mvCompareMutated(t, srv, &wgrt.Call{Kernel: "AssignSlice", Inputs: []wgrt.Tensor{sv, idx32, newTensor(d, 3, 4, 5, 3)},
				Attrs: []wgrt.Attr{mvInt("axis", 3)}}, 2)
			mvCompareMutated(t, srv, &wgrt.Call{Kernel: "AssignSlice", Inputs: []wgrt.Tensor{sv, idx32, newTensor(d, 3, 4, 4, 3)},
				Attrs: []wgrt.Attr{mvInt("axis", 3)}}, 2)
		}
	}
}

// mvAccepted counts, per kernel, the calls Go accepts and refuses, so
// that a test can require that it compares results, not only errors.
var mvAccepted = map[string][2]int{}

// mvCompare is compareWithGo, counted in mvAccepted.
func mvCompare(t *testing.T, srv *Server, call *wgrt.Call, rtol, atol float64) {
	t.Helper()
	probe := *call
	probe.Outputs = cloneOutputs(call.Outputs)
	n := mvAccepted[call.Kernel]
	if wgref.Call(&probe) == nil {
		n[0]++
	} else {
		n[1]++
	}
	mvAccepted[call.Kernel] = n
	compareWithGo(t, srv, call, rtol, atol)
}

// mvIdx is an index tensor of dtype d (i32 or i64) of shape, values in
// [lo, hi).
func mvIdx(r *rand.Rand, d wgrt.DType, lo, hi int, shape ...int) wgrt.Tensor {
	t := newTensor(d, shape...)
	for i := 0; i < t.NumElements(); i++ {
		v := lo + r.Intn(hi-lo)
		if d == wgrt.I64 {
			binary.LittleEndian.PutUint64(t.Data[8*i:], uint64(int64(v)))
		} else {
			binary.LittleEndian.PutUint32(t.Data[4*i:], uint32(int32(v)))
		}
	}
	return t
}

func TestIndexGather(t *testing.T) {
	srv := mvServer(t)
	r := rand.New(rand.NewSource(15))
	for _, d := range mvDTypes {
		x := mvRandom(r, d, 4, 5, 6)
		for _, id := range []wgrt.DType{wgrt.I64, wgrt.I32} {
			for axis := -3; axis < 3; axis++ {
				ax := (axis + 3) % 3
				n := x.Shape[ax]
				for _, ishape := range [][]int{{}, {3}, {2, 3}} {
					idx := mvIdx(r, id, -n, n, ishape...)
					shape := append(append(append([]int{}, x.Shape[:ax]...), ishape...), x.Shape[ax+1:]...)
					mvEach(t, srv, "Gather", newTensor(d, shape...), []wgrt.Tensor{x, idx}, mvInt("axis", axis))
					mvEach(t, srv, "Gather", newTensor(d, shape...), []wgrt.Tensor{x, mvLayout(idx, mvReversed(len(ishape)), 1)}, mvInt("axis", axis))
				}
				bad := mvIdx(r, id, n, n+1, 2)
				shape := append(append(append([]int{}, x.Shape[:ax]...), 2), x.Shape[ax+1:]...)
				mvEach(t, srv, "Gather", newTensor(d, shape...), []wgrt.Tensor{x, bad}, mvInt("axis", axis))
				// GatherElements: indices of the output's shape, smaller than x on every axis.
				es := []int{3, 4, 5}
				es[ax] = 7
				ei := mvIdx(r, id, -n, n, es...)
				mvEach(t, srv, "GatherElements", newTensor(d, es...), []wgrt.Tensor{x, ei}, mvInt("axis", axis))
				mvEach(t, srv, "GatherElements", newTensor(d, es...), []wgrt.Tensor{x, mvLayout(ei, mvReversed(3), 2)}, mvInt("axis", axis))
			}
		}
		// GatherND with and without batch dimensions.
		mvEach(t, srv, "GatherND", newTensor(d, 3, 6), []wgrt.Tensor{x, mvIdx(r, wgrt.I64, -4, 5, 3, 2)}, mvInt("batch_dims", 0))
		mvEach(t, srv, "GatherND", newTensor(d, 2, 3, 5, 6), []wgrt.Tensor{x, mvIdx(r, wgrt.I64, 0, 4, 2, 3, 1)}, mvInt("batch_dims", 0))
		mvEach(t, srv, "GatherND", newTensor(d, 4, 2), []wgrt.Tensor{x, mvIdx(r, wgrt.I32, 0, 5, 4, 2, 2)}, mvInt("batch_dims", 1))
		mvEach(t, srv, "GatherND", newTensor(d, 4, 3), []wgrt.Tensor{x, mvIdx(r, wgrt.I64, 0, 5, 4, 3, 1)}, mvInt("batch_dims", 1))
		mvEach(t, srv, "GatherND", newTensor(d, 4, 3), []wgrt.Tensor{x, mvIdx(r, wgrt.I64, 5, 6, 4, 3, 1)}, mvInt("batch_dims", 1))
		// ReverseSequence along either axis pair.
		lens := mvI64([]int{4}, 5, 0, 3, 1)
		mvEach(t, srv, "ReverseSequence", newTensor(d, 4, 5, 6), []wgrt.Tensor{x, lens}, mvInt("batch_axis", 0), mvInt("time_axis", 1))
		mvEach(t, srv, "ReverseSequence", newTensor(d, 4, 5, 6), []wgrt.Tensor{x, mvI64([]int{5}, 4, 4, 2, 0, 1)}, mvInt("batch_axis", 1), mvInt("time_axis", 0))
		mvEach(t, srv, "ReverseSequence", newTensor(d, 4, 5, 6), []wgrt.Tensor{x, mvI64([]int{4}, 6, 0, 3, 1)}, mvInt("batch_axis", 0), mvInt("time_axis", 1))
	}
}

func TestIndexScatterOneHot(t *testing.T) {
	srv := mvServer(t)
	r := rand.New(rand.NewSource(16))
	for _, d := range mvDTypes {
		x := mvRandom(r, d, 4, 5, 6)
		reds := []string{"none", "add", "mul", "max", "min"}
		if d == wgrt.F16 || d == wgrt.Bool || d == wgrt.U8 {
			reds = []string{"none"} // random bits: NaNs, and bool/u8 arithmetic both wrap the same
		}
		for _, red := range reds {
			for axis := -3; axis < 3; axis++ {
				ax := (axis + 3) % 3
				n := x.Shape[ax]
				es := []int{3, 4, 5}
				es[ax] = 7
				ei := mvIdx(r, wgrt.I64, -n, n, es...)
				upd := mvRandom(r, d, es...)
				mvEach(t, srv, "ScatterElements", newTensor(d, 4, 5, 6), []wgrt.Tensor{x, ei, upd}, mvInt("axis", axis), mvStr("reduction", red))
				mvEach(t, srv, "ScatterElements", newTensor(d, 4, 5, 6), []wgrt.Tensor{x, mvLayout(ei, mvReversed(3), 1), mvLayout(upd, nil, 1)}, mvInt("axis", axis), mvStr("reduction", red))
			}
			// ScatterND: tuples of 1, 2 and 3.
			mvEach(t, srv, "ScatterND", newTensor(d, 4, 5, 6), []wgrt.Tensor{x, mvIdx(r, wgrt.I64, -4, 4, 3, 1), mvRandom(r, d, 3, 5, 6)}, mvStr("reduction", red))
			mvEach(t, srv, "ScatterND", newTensor(d, 4, 5, 6), []wgrt.Tensor{x, mvIdx(r, wgrt.I32, 0, 4, 2, 2, 2), mvRandom(r, d, 2, 2, 6)}, mvStr("reduction", red))
			mvEach(t, srv, "ScatterND", newTensor(d, 4, 5, 6), []wgrt.Tensor{x, mvIdx(r, wgrt.I64, 0, 4, 5, 3), mvRandom(r, d, 5)}, mvStr("reduction", red))
			mvEach(t, srv, "ScatterND", newTensor(d, 4, 5, 6), []wgrt.Tensor{x, mvIdx(r, wgrt.I64, 0, 4, 3), mvRandom(r, d)}, mvStr("reduction", red))
		}
		mvEach(t, srv, "ScatterElements", newTensor(d, 4, 5, 6), []wgrt.Tensor{x, mvIdx(r, wgrt.I64, 0, 4, 2, 2, 2), mvRandom(r, d, 2, 2, 2)}, mvInt("axis", 0), mvStr("reduction", "bad"))
		mvEach(t, srv, "ScatterND", newTensor(d, 4, 5, 6), []wgrt.Tensor{x, mvIdx(r, wgrt.I64, 4, 5, 2, 1), mvRandom(r, d, 2, 5, 6)})
		// OneHot: every axis, indices of each family, negative ones.
		vals := mvRandom(r, d, 2)
		for _, id := range []wgrt.DType{wgrt.I64, wgrt.I32, wgrt.F32} {
			var ind wgrt.Tensor
			if id == wgrt.F32 {
				ind = newTensor(wgrt.F32, 3, 4)
				for i := 0; i < 12; i++ {
					binary.LittleEndian.PutUint32(ind.Data[4*i:], math.Float32bits(float32(r.Intn(14)-7)+0.5))
				}
				binary.LittleEndian.PutUint32(ind.Data[0:], math.Float32bits(float32(math.NaN())))
			} else {
				ind = mvIdx(r, id, -7, 7, 3, 4)
			}
			for axis := 0; axis < 3; axis++ {
				shape := []int{3, 4}
				shape = append(shape[:axis], append([]int{5}, shape[axis:]...)...)
				for _, iv := range mvVariants(ind) {
					for _, o := range mvOutputs(d, shape...) {
						mvCompare(t, srv, &wgrt.Call{Kernel: "OneHot", Outputs: []wgrt.Tensor{o}, Inputs: []wgrt.Tensor{iv, mvLayout(vals, nil, 3)},
							Attrs: []wgrt.Attr{mvInt("axis", axis)}}, 0, 0)
					}
				}
			}
		}
	}
}

func TestGenerate(t *testing.T) {
	srv := mvServer(t)
	r := rand.New(rand.NewSource(17))
	for _, d := range mvDTypes {
		for _, o := range mvOutputs(d, 2, 3) {
			mvCompare(t, srv, &wgrt.Call{Kernel: "Constant", Outputs: []wgrt.Tensor{o}, Attrs: []wgrt.Attr{mvInts("value", 1, -2, 3, 0, 300, -70000)}}, 0, 0)
			mvCompare(t, srv, &wgrt.Call{Kernel: "Constant", Outputs: []wgrt.Tensor{o}, Attrs: []wgrt.Attr{mvInts("value", 1, 2)}}, 0, 0)
			for _, v := range []float64{0, 1.5, -3.25, 1e9, math.NaN(), -7e4} {
				mvCompare(t, srv, &wgrt.Call{Kernel: "ConstantOfShape", Outputs: []wgrt.Tensor{o}, Inputs: []wgrt.Tensor{mvI64([]int{2}, 2, 3)}, Attrs: []wgrt.Attr{mvFloat("value", v)}}, 0, 0)
			}
			mvCompare(t, srv, &wgrt.Call{Kernel: "ConstantOfShape", Outputs: []wgrt.Tensor{o}}, 0, 0)
		}
		for _, shape := range [][]int{{3, 5}, {5, 3}, {4, 4}} {
			for _, o := range mvOutputs(d, shape...) {
				for _, k := range []int{0, 1, -2, 7} {
					mvCompare(t, srv, &wgrt.Call{Kernel: "EyeLike", Outputs: []wgrt.Tensor{o}, Inputs: []wgrt.Tensor{newTensor(d, shape...)}, Attrs: []wgrt.Attr{mvInt("k", k)}}, 0, 0)
				}
			}
			x := mvRandom(r, d, append([]int{2}, shape...)...)
			for _, k := range []int{0, 1, -1, 3, -5} {
				for _, up := range []int{0, 1} {
					mvEach(t, srv, "Trilu", newTensor(d, x.Shape...), []wgrt.Tensor{x}, mvInt("k", k), mvInt("upper", up))
				}
			}
		}
		mvEach(t, srv, "Trilu", newTensor(d, 3, 4), []wgrt.Tensor{mvRandom(r, d, 3, 4)})
		if d == wgrt.Bool {
			continue
		}
		for _, o := range mvOutputs(d, 7) {
			mvCompare(t, srv, &wgrt.Call{Kernel: "Range", Outputs: []wgrt.Tensor{o}, Attrs: []wgrt.Attr{mvInt("start", 3), mvInt("delta", -2)}}, 0, 0)
			mvCompare(t, srv, &wgrt.Call{Kernel: "Range", Outputs: []wgrt.Tensor{o}, Inputs: []wgrt.Tensor{mvI64(nil, 10), mvI64(nil, 5)}, Attrs: []wgrt.Attr{mvInt("start", 3), mvInt("delta", 5)}}, 0, 0)
		}
	}
	// Range with a limit from data: the length reported, or checked.
	for _, o := range mvOutputs(wgrt.I64, 8) {
		for _, lim := range []int{-3, 0, 5, 6, 7, 20, 40} {
			for _, attrs := range [][]wgrt.Attr{
				{mvInt("start", 2), mvInt("delta", 3), mvBool("exact", false)},
				{mvInt("start", 2), mvInt("delta", 3), mvBool("exact", true)},
				{mvInt("start", 2), mvInt("delta", 3), mvBool("exact", false), mvInt("length", 2)},
				{mvInt("start", 2), mvInt("delta", 0), mvBool("exact", false)},
				{mvInt("start", 2), mvInt("delta", 3)},
			} {
				for _, limT := range []wgrt.Tensor{mvI64(nil, lim), mvIdx(r, wgrt.I32, lim, lim+1), newTensor(wgrt.F32)} {
					mvCompare(t, srv, &wgrt.Call{Kernel: "Range", Outputs: []wgrt.Tensor{o, newTensor(wgrt.I64)}, Inputs: []wgrt.Tensor{limT}, Attrs: attrs}, 0, 0)
				}
			}
		}
	}
}

func TestMovementAccepted(t *testing.T) {
	for k, n := range mvAccepted {
		t.Logf("%s: %d accepted, %d refused", k, n[0], n[1])
		require.Positive(t, n[0], k)
	}
}

// mvServer is startServer with every option of OptionsFromEnv (a
// compiler, sanitizer flags), so that these tests can run under the
// sanitizers: WRAPGEN_CPP_FLAGS='-fsanitize=address,undefined'.
func mvServer(t *testing.T) *Server {
	t.Helper()
	testenv.SkipUnlessLong(t, "it builds the C++ kernels")
	opts := OptionsFromEnv()
	bin, err := Build(opts)
	require.NoError(t, err)
	srv, err := Start(bin, opts.Exec...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}
