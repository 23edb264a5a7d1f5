package cppref

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func ddBool(r *rand.Rand, n int) wgrt.Tensor {
	t := newTensor(wgrt.Bool, n)
	for i := range t.Data {
		if r.Intn(2) == 0 {
			t.Data[i] = 1
		}
	}
	return t
}

// ddSmallInts is an i64 tensor of values in [0, lim) (repeats for Unique).
func ddSmallInts(r *rand.Rand, lim int, shape ...int) wgrt.Tensor {
	t := newTensor(wgrt.I64, shape...)
	for i := 0; i < t.NumElements(); i++ {
		binary.LittleEndian.PutUint64(t.Data[8*i:], uint64(r.Intn(lim)))
	}
	return t
}

// ddRounded is an f32 tensor of values in a few steps (ties, zeros and NaN).
func ddRounded(r *rand.Rand, shape ...int) wgrt.Tensor {
	t := newTensor(wgrt.F32, shape...)
	for i := 0; i < t.NumElements(); i++ {
		v := float32(r.Intn(5)-2) / 2
		if r.Intn(15) == 0 {
			v = float32(math.NaN())
		}
		binary.LittleEndian.PutUint32(t.Data[4*i:], math.Float32bits(v))
	}
	return t
}

func ddAttrs(kv ...any) []wgrt.Attr {
	var as []wgrt.Attr
	for i := 0; i < len(kv); i += 2 {
		name := kv[i].(string)
		switch v := kv[i+1].(type) {
		case int:
			as = append(as, wgrt.Attr{Name: name, Kind: wgrt.AttrInt, Int: v})
		case bool:
			as = append(as, wgrt.Attr{Name: name, Kind: wgrt.AttrBool, Bool: v})
		case float64:
			as = append(as, wgrt.Attr{Name: name, Kind: wgrt.AttrFloat, Float: v})
		case string:
			as = append(as, wgrt.Attr{Name: name, Kind: wgrt.AttrString, Str: v})
		case []int:
			as = append(as, wgrt.Attr{Name: name, Kind: wgrt.AttrInts, Ints: v})
		}
	}
	return as
}

// TestDataDependentMatchesGo runs NonZero, Compress, Unique and
// NonMaxSuppression (outputs at a capacity, the count last) through both
// kernel sets, on strided inputs too.
func TestDataDependentMatchesGo(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(13))
	for i := 0; i < 40; i++ {
		shape := []int{1 + r.Intn(4), 1 + r.Intn(5)}
		x := ddRounded(r, shape...)
		if r.Intn(2) == 0 {
			x = rcTransposed(x)
		}
		n := shape[0] * shape[1]
		nz := &wgrt.Call{Kernel: "NonZero", Inputs: []wgrt.Tensor{x}, Outputs: []wgrt.Tensor{newTensor(wgrt.I64, 2, n+2), newTensor(wgrt.I64)}}
		t.Run(fmt.Sprint("nonzero", i), func(t *testing.T) { compareWithGo(t, srv, nz, 0, 0) })

		cond := ddBool(r, 1+r.Intn(n))
		cp := &wgrt.Call{Kernel: "Compress", Inputs: []wgrt.Tensor{x, cond}, Outputs: []wgrt.Tensor{newTensor(wgrt.F32, n+1), newTensor(wgrt.I64)},
			Attrs: ddAttrs("axis", 0, "has_axis", false)}
		t.Run(fmt.Sprint("compress", i), func(t *testing.T) { compareWithGo(t, srv, cp, 0, 0) })
		axis := r.Intn(2)
		capShape := append([]int(nil), shape...)
		capShape[axis] += 2
		cond = ddBool(r, 1+r.Intn(shape[axis]))
		cpa := &wgrt.Call{Kernel: "Compress", Inputs: []wgrt.Tensor{x, cond}, Outputs: []wgrt.Tensor{newTensor(wgrt.F32, capShape...), newTensor(wgrt.I64)},
			Attrs: ddAttrs("axis", axis-2*r.Intn(2), "has_axis", true)}
		t.Run(fmt.Sprint("compress_axis", i), func(t *testing.T) { compareWithGo(t, srv, cpa, 0, 0) })

		// Unique: all four outputs, sorted or not, flattened or along an axis.
		for _, hasAxis := range []bool{false, true} {
			xs := []wgrt.Tensor{ddSmallInts(r, 3, shape...), ddRounded(r, shape...)}[r.Intn(2)]
			m, ycap := n, []int{n + 1}
			if hasAxis {
				m = shape[axis]
				ycap = append([]int(nil), shape...)
				ycap[axis] += 1
			}
			outs := []wgrt.Tensor{newTensor(xs.DType, ycap...), newTensor(wgrt.I64, m+1), newTensor(wgrt.I64, m), newTensor(wgrt.I64, m+1), newTensor(wgrt.I64)}
			un := &wgrt.Call{Kernel: "Unique", Inputs: []wgrt.Tensor{xs}, Outputs: outs, Scratch: make([]byte, 32*m),
				Attrs: ddAttrs("sorted", r.Intn(2), "outputs", []int{1, 1, 1, 1}, "has_axis", hasAxis, "axis", axis)}
			t.Run(fmt.Sprint("unique", i, hasAxis), func(t *testing.T) { compareWithGo(t, srv, un, 0, 0) })
		}

		// NonMaxSuppression: random boxes, both box formats, thresholds from attributes or inputs.
		nb, nc, nbox := 1+r.Intn(2), 1+r.Intn(3), 1+r.Intn(30)
		boxes := newTensor(wgrt.F32, nb, nbox, 4)
		for k := 0; k < nb*nbox; k++ {
			a, b := r.Float32()*10, r.Float32()*10
			vals := []float32{a, b, a + r.Float32()*4 - 0.5, b + r.Float32()*4 - 0.5}
			for j, v := range vals {
				binary.LittleEndian.PutUint32(boxes.Data[4*(4*k+j):], math.Float32bits(v))
			}
		}
		scores := ddRounded(r, nb, nc, nbox)
		fromInput := r.Intn(2) == 0
		ins := []wgrt.Tensor{boxes, scores}
		attrs := ddAttrs("center_point_box", r.Intn(2), "max_output_boxes_per_class", r.Intn(8), "max_output_boxes_per_class_from_input", fromInput,
			"has_score_threshold", r.Intn(2) == 0, "iou_threshold", 0.1+0.5*r.Float64(), "score_threshold", 0.0)
		if fromInput {
			most := newTensor(wgrt.I64, 1)
			binary.LittleEndian.PutUint64(most.Data, uint64(r.Intn(10)))
			iou := newTensor(wgrt.F32, 1)
			binary.LittleEndian.PutUint32(iou.Data, math.Float32bits(0.3))
			ins = append(ins, most, iou)
			attrs = append(attrs, ddAttrs("iou_threshold_from_input", true)...)
		}
		nms := &wgrt.Call{Kernel: "NonMaxSuppression", Inputs: ins, Outputs: []wgrt.Tensor{newTensor(wgrt.I64, nb*nc*nbox, 3), newTensor(wgrt.I64)},
			Attrs: attrs, Scratch: make([]byte, 12*nbox)}
		t.Run(fmt.Sprint("nms", i), func(t *testing.T) { compareWithGo(t, srv, nms, 0, 0) })
	}
}

// TestEinsumLossMatchesGo covers Einsum's equations (ellipsis, repeated
// labels, broadcasting, integers) and both losses' reductions.
func TestEinsumLossMatchesGo(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(17))
	cases := []struct {
		eq     string
		shapes [][]int
		out    []int
	}{
		{"ij,jk->ik", [][]int{{3, 4}, {4, 5}}, []int{3, 5}},
		{"bij,bjk->bik", [][]int{{2, 3, 4}, {2, 4, 2}}, []int{2, 3, 2}},
		{"ii->i", [][]int{{4, 4}}, []int{4}},
		{"ii->", [][]int{{4, 4}}, []int{}},
		{"...ij,...jk->...ik", [][]int{{2, 1, 3, 4}, {3, 4, 2}}, []int{2, 3, 3, 2}},
		{"i,j->ij", [][]int{{3}, {5}}, []int{3, 5}},
		{"ijk->kji", [][]int{{2, 3, 4}}, []int{4, 3, 2}},
		{"abc,cd,de->abe", [][]int{{2, 2, 3}, {3, 4}, {4, 2}}, []int{2, 2, 2}},
	}
	for i, cs := range cases {
		for _, d := range []wgrt.DType{wgrt.F32, wgrt.F64, wgrt.I64} {
			var ins []wgrt.Tensor
			for _, s := range cs.shapes {
				if d == wgrt.I64 {
					ins = append(ins, ddSmallInts(r, 5, s...))
				} else {
					ins = append(ins, rcTensor(r, d, 1, s...))
				}
			}
			call := &wgrt.Call{Kernel: "Einsum", Inputs: ins, Outputs: []wgrt.Tensor{newTensor(d, cs.out...)}, Attrs: ddAttrs("equation", cs.eq)}
			t.Run(fmt.Sprint("einsum", i, d), func(t *testing.T) { compareWithGo(t, srv, call, 1e-6, 1e-6) })
		}
	}
	for i := 0; i < 30; i++ {
		n, c, d1 := 1+r.Intn(3), 2+r.Intn(4), 1+r.Intn(3)
		x := rcTensor(r, wgrt.F32, 2, n, c, d1)
		target := ddSmallInts(r, c, n, d1)
		reduction := []string{"none", "sum", "mean"}[r.Intn(3)]
		outShape := []int{}
		if reduction == "none" {
			outShape = []int{n, d1}
		}
		ins := []wgrt.Tensor{x, target}
		if r.Intn(2) == 0 {
			ins = append(ins, rcTensor(r, wgrt.F32, 1, c))
		}
		attrs := ddAttrs("reduction", reduction, "ignore_index", r.Intn(c), "has_ignore_index", r.Intn(2) == 0)
		kernel := []string{"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}[i%2]
		outs := []wgrt.Tensor{newTensor(wgrt.F32, outShape...)}
		if kernel == "SoftmaxCrossEntropyLoss" && r.Intn(2) == 0 {
			outs = append(outs, newTensor(wgrt.F32, n, c, d1))
		}
		call := &wgrt.Call{Kernel: kernel, Inputs: ins, Outputs: outs, Attrs: attrs}
		t.Run(fmt.Sprint("loss", i), func(t *testing.T) { compareWithGo(t, srv, call, 1e-5, 1e-6) })
	}
}
