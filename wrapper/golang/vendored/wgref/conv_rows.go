package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// Dilated convolutions by kernel rows. A dilated convolution over a map
// not much larger than its dilation reads padding at most of its taps:
// DeepLab's atrous pyramid at 14x14 with dilation 12 reads the input at
// 18 of every 42 (output row, kernel row) pairs, and im2col multiplies
// the zeros of the other 24 as any others. Split by kernel row, the
// convolution is a sum of kh convolutions of one kernel row each, and
// kernel row ky reads the input only for a band of consecutive output
// rows: its product covers those rows alone, a contiguous range of the
// output's columns. The filters are packed once per kernel row (Prepare),
// as many floats as packed whole; import already cuts the taps that read
// only padding everywhere (graph/onnx/deadtaps.go).

// kernelRow is one kernel row's part of a convolution split by rows: its
// filters packed as the GEMM's A (m × c·kw) and the attributes of the
// one-row convolution it is, whose top pad is the whole one's less the
// rows above it (negative below the first).
type kernelRow struct {
	pk *packedGEMM
	ca convAttrs
}

// splitsByKernelRows reports whether Prepare packs a convolution's
// filters by kernel row: 2-D, one group, dilated along the height, of
// more than one kernel row, each row deep enough (c·kw) for its own
// product.
func splitsByKernelRows(ca convAttrs, w []int) bool {
	return len(w) == 4 && ca.group == 1 && w[2] > 1 && ca.dilations[0] > 1 && w[1]*w[3] >= 64
}

// packKernelRows packs a convolution's filters (m × c × kh × kw,
// contiguous) by kernel row, each row's as packWeightA packs a matrix of
// m × c·kw, one after another; pk.rows holds each row's view.
func packKernelRows(w wgrt.Tensor, ca convAttrs) *packedGEMM {
	m, ch, kh, kw := w.Shape[0], w.Shape[1], w.Shape[2], w.Shape[3]
	k := ch * kw
	per := packedFloats(true, m, 0, k, false)
	pk := &packedGEMM{isA: true, mr: mr, nr: nr, m: m, k: ch * kh * kw, groupFloats: kh * per, data: make([]float32, kh*per), rows: make([]kernelRow, kh)}
	ws := elems[float32](w)
	row := make([]float32, m*k)
	for ky := range kh {
		for o := range m {
			for c := range ch {
				src := ws[o*w.Strides[0]+c*w.Strides[1]+ky*w.Strides[2]:]
				copy(row[o*k+c*kw:o*k+c*kw+kw], src[:kw])
			}
		}
		part := packWeightA(matrix{data: row, rs: k, cs: 1}, 1, 0, m, k)
		copy(pk.data[ky*per:(ky+1)*per], part.data)
		part.data = pk.data[ky*per : (ky+1)*per : (ky+1)*per]
		rca := convAttrs{kernel: []int{1, kw}, strides: ca.strides, dilations: ca.dilations, group: 1,
			pads: []int{ca.pads[0] - ky*ca.dilations[0], ca.pads[1], ca.pads[2] - (kh-1-ky)*ca.dilations[0], ca.pads[3]}}
		pk.rows[ky] = kernelRow{pk: part, ca: rca}
	}
	return pk
}

// kernelRowBand is the output rows [lo, hi) at which kernel row ky reads
// inside the input's ih rows.
func kernelRowBand(ca convAttrs, ky, ih, oh int) (lo, hi int) {
	d := ky*ca.dilations[0] - ca.pads[0] // input row of output row 0
	lo = max(0, ceilDiv(-d, ca.strides[0]))
	hi = min(oh, ceilDiv(ih-d, ca.strides[0]))
	return lo, max(lo, hi)
}

// convByKernelRows is convImage's product for image b (one group) from
// filters packed by kernel row: each row's product over its band of
// output rows, added into c (mg rows of ldc floats, p columns). c holds
// what the product adds to when accumulate; else the first row whose band
// is every output row writes c, or c is cleared. Finishing (bias,
// activation) is the caller's, after all rows.
func convByKernelRows(pk *packedGEMM, x, out wgrt.Tensor, xs []float32, xo int, ca convAttrs, c []float32, ldc, mg, p int, accumulate bool, work []float32, threads int) {
	ih, oh, ow := x.Shape[2], out.Shape[2], out.Shape[3]
	full := -1
	if !accumulate {
		for ky := range pk.rows {
			if lo, hi := kernelRowBand(ca, ky, ih, oh); lo == 0 && hi == oh {
				full = ky
				break
			}
		}
		if full < 0 {
			for i := range mg {
				clear(c[i*ldc : i*ldc+p])
			}
		}
	}
	run := func(ky int, acc bool) {
		lo, hi := kernelRowBand(ca, ky, ih, oh)
		if lo == hi {
			return
		}
		r := &pk.rows[ky]
		conv := &im2colB{xs: xs, xo: xo, x: x, out: out, ca: r.ca, j0: lo * ow}
		sgemmRows(mg, (hi-lo)*ow, r.pk.k, matrix{}, matrix{}, conv, c[lo*ow:], ldc, acc, work, nil, prepacked{r.pk, 0}, threads)
	}
	if full >= 0 {
		run(full, false)
	}
	for ky := range pk.rows {
		if ky != full {
			run(ky, true)
		}
	}
}
