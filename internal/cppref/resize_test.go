package cppref

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func rsModes(mode, coord, nearest string, cubicA float64, exclude int, roiNum, roiDen []int) []wgrt.Attr {
	return []wgrt.Attr{
		{Name: "mode", Kind: wgrt.AttrString, Str: mode},
		{Name: "coordinate_transformation_mode", Kind: wgrt.AttrString, Str: coord},
		{Name: "nearest_mode", Kind: wgrt.AttrString, Str: nearest},
		{Name: "cubic_coeff_a", Kind: wgrt.AttrFloat, Float: cubicA},
		{Name: "exclude_outside", Kind: wgrt.AttrInt, Int: exclude},
		{Name: "extrapolation_value", Kind: wgrt.AttrFloat, Float: 7.5},
		{Name: "roi_num", Kind: wgrt.AttrInts, Ints: roiNum},
		{Name: "roi_den", Kind: wgrt.AttrInts, Ints: roiDen},
	}
}

// TestResizeMatchesGo runs Resize (every mode, coordinate mode, nearest
// mode, roi, strided input, other dtypes) and ResizeToSizes through both
// kernel sets.
func TestResizeMatchesGo(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(3))
	modes := []string{"nearest", "linear", "cubic"}
	coords := []string{"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"}
	nearests := []string{"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}
	for i := 0; i < 200; i++ {
		rank := 1 + r.Intn(4)
		in := make([]int, rank)
		out := make([]int, rank)
		num, den := make([]int, rank), make([]int, rank)
		for k := range in {
			in[k] = 1 + r.Intn(6)
			num[k], den[k] = 1+r.Intn(8), 1+r.Intn(4)
			if k < rank-2 && r.Intn(2) == 0 {
				num[k], den[k] = 1, 1
			}
			out[k] = int(float64(in[k]) * float64(num[k]) / float64(den[k]))
		}
		if i%7 == 0 { // a wide last axis: taps found per element
			in[rank-1], num[rank-1], den[rank-1] = 300, 2, 1
			out[rank-1] = 600
		}
		coord := coords[r.Intn(len(coords))]
		var roiNum, roiDen []int
		if coord == "tf_crop_and_resize" || r.Intn(8) == 0 {
			for k := 0; k < 2*rank; k++ {
				roiNum = append(roiNum, r.Intn(5)-1)
				roiDen = append(roiDen, 3)
			}
		}
		attrs := rsModes(modes[r.Intn(3)], coord, nearests[r.Intn(4)], -0.5-0.25*float64(r.Intn(2)), r.Intn(2), roiNum, roiDen)
		dtype := []wgrt.DType{wgrt.F32, wgrt.F32, wgrt.F32, wgrt.F64, wgrt.F16}[r.Intn(5)]
		x := rcTensor(r, dtype, 2, in...)
		if rank >= 2 && r.Intn(3) == 0 {
			x = rcTransposed(x)
		}
		var call *wgrt.Call
		if r.Intn(3) > 0 {
			call = &wgrt.Call{Kernel: "Resize", Inputs: []wgrt.Tensor{x}, Outputs: []wgrt.Tensor{newTensor(dtype, out...)},
				Attrs: append(attrs, wgrt.Attr{Name: "scale_num", Kind: wgrt.AttrInts, Ints: num}, wgrt.Attr{Name: "scale_den", Kind: wgrt.AttrInts, Ints: den})}
		} else {
			// ResizeToSizes: sizes for the last axis, reported less 1, the output at a larger capacity.
			capShape := append([]int(nil), out...)
			capShape[rank-1] += 3
			sizes := newTensor(wgrt.I64, 1)
			binary.LittleEndian.PutUint64(sizes.Data, uint64(out[rank-1]))
			count := newTensor(wgrt.I64)
			call = &wgrt.Call{Kernel: fmt.Sprintf("ResizeToSizes%d", 1), Inputs: []wgrt.Tensor{x, sizes},
				Outputs: []wgrt.Tensor{newTensor(dtype, capShape...), count},
				Attrs: append(attrs, wgrt.Attr{Name: "size_axes", Kind: wgrt.AttrInts, Ints: []int{rank - 1}},
					wgrt.Attr{Name: "axes", Kind: wgrt.AttrInts, Ints: []int{rank - 1}}, wgrt.Attr{Name: "least", Kind: wgrt.AttrInts, Ints: []int{1}})}
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			compareWithGo(t, srv, call, 1e-5, 1e-5)
		})
	}
}

// TestGridSampleRoiAlignMatchesGo covers GridSample's modes and paddings
// and RoiAlign's modes.
func TestGridSampleRoiAlignMatchesGo(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(5))
	for i := 0; i < 60; i++ {
		x := rcTensor(r, wgrt.F32, 2, 1+r.Intn(2), 1+r.Intn(3), 1+r.Intn(6), 1+r.Intn(6))
		n, oh, ow := x.Shape[0], 1+r.Intn(5), 1+r.Intn(5)
		grid := rcTensor(r, wgrt.F32, 1.4, n, oh, ow, 2)
		call := &wgrt.Call{Kernel: "GridSample", Inputs: []wgrt.Tensor{x, grid}, Outputs: []wgrt.Tensor{newTensor(wgrt.F32, n, x.Shape[1], oh, ow)},
			Attrs: []wgrt.Attr{{Name: "mode", Kind: wgrt.AttrString, Str: []string{"bilinear", "nearest", "bicubic"}[i%3]},
				{Name: "padding_mode", Kind: wgrt.AttrString, Str: []string{"zeros", "border", "reflection"}[r.Intn(3)]},
				{Name: "align_corners", Kind: wgrt.AttrInt, Int: r.Intn(2)}}}
		t.Run(fmt.Sprint("grid", i), func(t *testing.T) { compareWithGo(t, srv, call, 1e-5, 1e-5) })

		nr := 1 + r.Intn(4)
		rois := newTensor(wgrt.F32, nr, 4)
		batch := newTensor(wgrt.I64, nr)
		for k := 0; k < nr; k++ {
			x1, y1 := r.Float64()*6-1, r.Float64()*6-1
			vals := []float64{x1, y1, x1 + r.Float64()*5, y1 + r.Float64()*5}
			for j, v := range vals {
				binary.LittleEndian.PutUint32(rois.Data[4*(4*k+j):], math.Float32bits(float32(v)))
			}
			binary.LittleEndian.PutUint64(batch.Data[8*k:], uint64(r.Intn(n)))
		}
		call = &wgrt.Call{Kernel: "RoiAlign", Inputs: []wgrt.Tensor{x, rois, batch}, Outputs: []wgrt.Tensor{newTensor(wgrt.F32, nr, x.Shape[1], oh, ow)},
			Attrs: []wgrt.Attr{{Name: "coordinate_transformation_mode", Kind: wgrt.AttrString, Str: []string{"half_pixel", "output_half_pixel"}[r.Intn(2)]},
				{Name: "mode", Kind: wgrt.AttrString, Str: []string{"avg", "max"}[r.Intn(2)]},
				{Name: "output_height", Kind: wgrt.AttrInt, Int: oh}, {Name: "output_width", Kind: wgrt.AttrInt, Int: ow},
				{Name: "sampling_ratio", Kind: wgrt.AttrInt, Int: r.Intn(3)}, {Name: "spatial_scale", Kind: wgrt.AttrFloat, Float: 0.5 + r.Float64()}}}
		t.Run(fmt.Sprint("roi", i), func(t *testing.T) { compareWithGo(t, srv, call, 1e-5, 1e-5) })
	}
}
