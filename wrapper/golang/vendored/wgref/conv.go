package wgref

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func init() {
	register("Conv", conv)
	register("ConvTranspose", convTranspose)
}

// convAttrs are a convolution's attributes, as the importer gives them
// (auto_pad resolved into pads: begins, then ends).
type convAttrs struct {
	kernel, strides, pads, dilations []int
	group                            int
}

func readConvAttrs(c *wgrt.Call, spatial int) (convAttrs, error) {
	a := attrsOf(c)
	ca := convAttrs{kernel: a.Ints("kernel_shape"), strides: a.Ints("strides"), pads: a.Ints("pads"), dilations: a.Ints("dilations"), group: a.IntOr("group", 1)}
	if a.err != nil {
		return ca, a.err
	}
	if len(ca.kernel) != spatial || len(ca.strides) != spatial || len(ca.dilations) != spatial || len(ca.pads) != 2*spatial || ca.group <= 0 {
		return ca, fmt.Errorf("%s: attributes do not fit %d spatial dimensions", c.Kernel, spatial)
	}
	return ca, nil
}

// conv is ONNX Conv: grouped, strided, dilated and padded, 1-D to 3-D, bias
// optional. float32 runs depthwise convolutions and those of a few
// channels per group as tap rows (conv_depthwise.go, conv_grouped.go),
// the others as im2col (skipped for 1x1 kernels) and the blocked GEMM;
// other dtypes directly.
func conv(c *wgrt.Call) error {
	if err := need(c, 1, 2, 3); err != nil {
		return err
	}
	out, x, w := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	r := len(x.Shape) - 2
	if r < 1 || len(w.Shape) != r+2 || len(out.Shape) != r+2 {
		return fmt.Errorf("%s: input %v, weight %v and output %v do not fit", c.Kernel, x.Shape, w.Shape, out.Shape)
	}
	ca, err := readConvAttrs(c, r)
	if err != nil {
		return err
	}
	n, ch, m := x.Shape[0], x.Shape[1], w.Shape[0]
	g := ca.group
	if ch%g != 0 || m%g != 0 || w.Shape[1] != ch/g || out.Shape[1] != m || out.Shape[0] != n {
		return fmt.Errorf("%s: input %v, weight %v, group %d and output %v do not fit", c.Kernel, x.Shape, w.Shape, g, out.Shape)
	}
	var bias *wgrt.Tensor
	if len(c.Inputs) == 3 {
		bias = &c.Inputs[2]
	}
	if x.DType == wgrt.F32 && w.DType == wgrt.F32 && out.DType == wgrt.F32 && w.Contiguous() && spatialContiguous(out) {
		return convF32Fastest(c, x, w, bias, out, ca, nil)
	}
	if familyOf(out.DType) != famFloat {
		return unsupported(c, out.DType)
	}
	convDirect(x, w, bias, out, ca)
	return nil
}

// convF32Fastest runs a float32 convolution on the fastest path that
// fits: tap rows or channel blocks for depthwise convolutions, channel
// blocks or tap rows for those of few channels per group, else im2col and
// the GEMM. A fused kernel's epilogue (nil: none)
// carries the bias, and bias is then nil. Tap rows write the output whole,
// so they serve an epilogue only without a sum (which the output may be),
// and its activation runs over each plane after them.
func convF32Fastest(c *wgrt.Call, x, w wgrt.Tensor, bias *wgrt.Tensor, out wgrt.Tensor, ca convAttrs, ep *epilogue) error {
	g := ca.group
	if ep == nil || ep.sum == nil {
		tapBias := bias
		var act fusedAct
		if ep != nil {
			tapBias, act = ep.add, ep.act
		}
		if isDepthwise(x.Shape[1], w, g) && convDepthwiseF32(x, w, tapBias, out, ca, act, threadsOf(c)) {
			return nil
		}
		if g > 1 && convMixed8F32(x, w, tapBias, out, ca, act, preparedOf(c), threadsOf(c)) {
			return nil
		}
		if g > 1 && convGroupedF32(x, w, tapBias, out, ca, threadsOf(c)) {
			ep.finishPlanesShared(out, threadsOf(c))
			return nil
		}
	}
	// Filters packed once (Prepare) take no scratch.
	pk := preparedOf(c).forConv(w.Shape[0]/g, w.Shape[1]*prod(w.Shape[2:]))
	work, err := scratchOf[float32](c, convPackFloats(x.Shape, w.Shape, out.Shape, g, isPointwise(x, out, ca), pk != nil))
	if err != nil {
		return err
	}
	convF32(x, w, bias, out, ca, work, ep, pk, threadsOf(c))
	return nil
}

// spatialContiguous reports whether t's dimensions after the first two are
// row-major contiguous (a [N, C, ...] tensor whose each channel is one
// block).
func spatialContiguous(t wgrt.Tensor) bool {
	want := 1
	for d := len(t.Shape) - 1; d >= 2; d-- {
		if t.Shape[d] != 1 && t.Strides[d] != want {
			return false
		}
		want *= t.Shape[d]
	}
	return true
}

func prod(xs []int) int {
	p := 1
	for _, x := range xs {
		p *= x
	}
	return p
}

// convPackFloats is convF32's scratch: sgemm's packing for one image and
// group (M/group output channels, the output's positions, C/group times
// the kernel's taps), whose B is the input's rows for a pointwise
// convolution and im2col for the others.
func convPackFloats(x, w, out []int, group int, pointwise, packedFilters bool) int {
	form := bIm2col
	if pointwise {
		form = bRowMajor
	}
	return gemmPackFloatsOf(w[0]/group, prod(out[2:]), x[1]/group*prod(w[2:]), form, packedSides{a: packedFilters})
}

// isPointwise reports whether convF32 runs the convolution as a plain
// product with the input's rows: a 1x1 kernel of stride 1, no padding,
// over spatially contiguous channels.
func isPointwise(x, out wgrt.Tensor, ca convAttrs) bool {
	r := len(x.Shape) - 2
	pointwise := prod(ca.kernel) == 1 && spatialContiguous(x)
	for d := 0; d < r; d++ {
		pointwise = pointwise && ca.strides[d] == 1 && ca.pads[d] == 0 && ca.pads[r+d] == 0 && out.Shape[2+d] == x.Shape[2+d]
	}
	return pointwise
}

// convF32 is the float32 convolution; ep, when not nil, starts and
// finishes each image and group's block (a fused kernel's epilogue). The
// filters' panels come from pk when it holds them (Prepare), else each
// image and group packs its own. With threads > 1, a batch of enough
// images runs whole images on each thread (convImages); others share each
// image's products.
func convF32(x, w wgrt.Tensor, bias *wgrt.Tensor, out wgrt.Tensor, ca convAttrs, work []float32, ep *epilogue, pk *packedGEMM, threads int) {
	n := x.Shape[0]
	if n > 1 && wholeProducts(threads, n, 2*w.Shape[0]*prod(out.Shape[2:])*prod(w.Shape[1:])) {
		runConvImages(x, w, bias, out, ca, work, ep, pk)
		workers.mu.Unlock()
		return
	}
	for b := 0; b < n; b++ {
		convImage(b, x, w, bias, out, ca, work, ep, pk, threads)
	}
}

// convImage is convF32 for image b alone, every group.
func convImage(b int, x, w wgrt.Tensor, bias *wgrt.Tensor, out wgrt.Tensor, ca convAttrs, work []float32, ep *epilogue, pk *packedGEMM, threads int) {
	ch, m := x.Shape[1], w.Shape[0]
	g := ca.group
	cg, mg := ch/g, m/g
	ksz := prod(ca.kernel)
	kk := cg * ksz
	p := prod(out.Shape[2:])
	xs, ws, ys := elems[float32](x), elems[float32](w), elems[float32](out)
	pointwise := isPointwise(x, out, ca)
	// The bias, sum and activation go on each block of rows as the GEMM
	// completes it (rowEpilogue), but for a scaled product or a bias not
	// one float32 per channel (then ep starts and finishes the whole block).
	addend := bias
	if ep != nil {
		addend = ep.add
	}
	byRows := (ep == nil || ep.addScale == 1 && ep.addCol == 0) && (addend == nil || addend.DType == wgrt.F32)
	inPlace := ep != nil && ep.sum != nil && sameStart(*ep.sum, out) // the product adds to the sum
	for gi := 0; gi < g; gi++ {
		xo := b*x.Strides[0] + gi*cg*x.Strides[1]
		yo := b*out.Strides[0] + gi*mg*out.Strides[1]
		cm := ys[yo:]
		bm := matrix{data: xs[xo:], rs: x.Strides[1], cs: 1}
		var conv *im2colB
		if !pointwise {
			bm, conv = matrix{}, &im2colB{xs: xs, xo: xo, x: x, out: out, ca: ca}
		}
		if byRows {
			var rows rowEpilogue
			accumulate := inPlace
			if ep != nil {
				rows.act = ep.act
				if ep.sum != nil && !inPlace {
					// The product adds to a copy of the sum, as it
					// adds to the sum itself in place: the same
					// order of additions, so that running in place
					// (the planner's choice) changes no bit.
					sum, ld := elems[float32](*ep.sum)[yo:], out.Strides[1]
					for oc := 0; oc < mg; oc++ {
						copy(cm[oc*ld:oc*ld+p], sum[oc*ld:oc*ld+p])
					}
					accumulate = true
				}
			}
			if addend != nil {
				rows.bias, rows.biasStride = elems[float32](*addend)[gi*mg*addend.Strides[0]:], addend.Strides[0]
			}
			if !pointwise && !accumulate && g == 1 && stemFits(x, w, out, ca) {
				var pa []float32
				if pk != nil {
					pa = pk.blockA(0, 0, kk, 0)
				}
				if convStem(b, x, w, out, ca, cm, out.Strides[1], pa, work, &rows, threads) {
					continue
				}
			}
			if pk != nil && pk.rows != nil {
				convByKernelRows(pk, x, out, xs, xo, ca, cm, out.Strides[1], mg, p, accumulate, work, threads)
				rows.finish(cm, out.Strides[1], 0, mg, 0, p)
				continue
			}
			sgemmRows(mg, p, kk, matrix{data: ws[gi*mg*w.Strides[0]:], rs: w.Strides[0], cs: 1}, bm, conv, cm, out.Strides[1], accumulate, work, &rows, prepacked{pk, gi}, threads)
			continue
		}
		acc := ep.startShared(cm, out.Strides[1], mg, p, yo, gi*mg, threads)
		if bias != nil {
			for oc := 0; oc < mg; oc++ {
				v := float32(loadF(*bias, (gi*mg+oc)*bias.Strides[0]))
				row := cm[oc*out.Strides[1] : oc*out.Strides[1]+p]
				for i := range row {
					row[i] = v
				}
			}
			acc = true
		}
		if pk != nil && pk.rows != nil {
			convByKernelRows(pk, x, out, xs, xo, ca, cm, out.Strides[1], mg, p, acc, work, threads)
		} else {
			am := matrix{data: ws[gi*mg*w.Strides[0]:], rs: w.Strides[0], cs: 1}
			sgemmRows(mg, p, kk, am, bm, conv, cm, out.Strides[1], acc, work, nil, prepacked{pk, gi}, threads)
		}
		ep.finishShared(cm, out.Strides[1], mg, p, threads)
	}
}

// im2colB is the matrix im2col would make of one image and group of a
// convolution's input, packed straight into B's panels: row (channel,
// kernel position), column (output position), the input element that
// kernel tap reads there or 0 in the padding.
type im2colB struct {
	xs     []float32
	xo     int
	x, out wgrt.Tensor
	ca     convAttrs
	j0     int // the output position of B's column 0 (a band of rows, conv_rows.go)
}

func (m *im2colB) packB(dst []float32, p0, j0, kc, nc int) {
	j0 += m.j0
	r := len(m.x.Shape) - 2
	switch {
	case r == 1:
		m.packRows1D(dst, p0, j0, kc, nc)
	case (r == 2 || r == 3) && m.stripsFit(r):
		m.packStrips(dst, p0, j0, kc, nc)
	case r == 2 && m.gatherFits():
		m.packGather(dst, p0, j0, kc, nc)
	case r == 2 || r == 3:
		m.packRuns(dst, p0, j0, kc, nc)
	default:
		m.packAnyRank(dst, p0, j0, kc, nc)
	}
}

// gatherFits reports whether packGather takes this 2-D convolution's
// panels: output rows of at most half a panel, or shorter than a panel
// where the AVX-512 gathers run, and at most gatherMaxTaps kernel
// positions.
func (m *im2colB) gatherFits() bool {
	ow := m.out.Shape[3]
	return (2*ow <= nr || ow < nr && gatherPanels()) && m.ca.kernel[0]*m.ca.kernel[1] <= gatherMaxTaps
}

// gatherMaxTaps bounds the kernel positions whose offsets packGather
// keeps per panel (7x7 kernels and smaller).
const gatherMaxTaps = 49

// packGather is packB for 2-D convolutions whose output rows are at most
// half a panel (14x14 and 7x7 images), or shorter than a panel on the
// AVX-512 path (28x28 too): a panel row spans several output rows, so
// packB's copies of each row's part inside the input would be many short
// ones. Where each column of a panel reads, relative to its channel,
// depends only on the kernel position, so the offsets are found once per
// panel and every channel's rows gathered through them: with AVX-512
// gathers, 1.8 to 3 times as fast as the copies on ResNet's and
// DenseNet's 28x28 to 7x7 layers (slower at 56x56, whose rows the copies
// take whole); in Go, about a tenth faster at 14x14 and 7x7.
func (m *im2colB) packGather(dst []float32, p0, j0, kc, nc int) {
	x, ca := m.x, m.ca
	ih, iw, ow := x.Shape[2], x.Shape[3], m.out.Shape[3]
	kh, kw := ca.kernel[0], ca.kernel[1]
	ksz := kh * kw
	sh, sw, dh, dw, ph, pw := ca.strides[0], ca.strides[1], ca.dilations[0], ca.dilations[1], ca.pads[0], ca.pads[1]
	xsc, xsh, xsw := x.Strides[1], x.Strides[2], x.Strides[3]
	// offs[kp*nr+c] is where column c reads for kernel position kp, keep
	// its bits: all ones inside the input, none in the padding (where it
	// reads the channel's first float, and no branch decides).
	var offs [gatherMaxTaps * maxNR]int32
	var keep [gatherMaxTaps * maxNR]uint32
	var masks [gatherMaxTaps]uint32 // bit c: column c reads inside (AVX-512)
	var oys, oxs [maxNR]int
	vector := gatherPanels()
	if vector {
		// Every channel the block reads lies in xs (the gathers are not
		// bounds-checked).
		_ = m.xs[m.xo+(p0+kc-1)/ksz*xsc+(ih-1)*xsh+(iw-1)*xsw]
	}
	for jr := 0; jr < nc; jr += nr {
		cols := min(nr, nc-jr)
		for c := range cols {
			q := j0 + jr + c
			oys[c], oxs[c] = q/ow*sh-ph, q%ow*sw-pw
		}
		for kp := range ksz {
			dy, dx := kp/kw*dh, kp%kw*dw
			row, bits := offs[kp*nr:kp*nr+cols], keep[kp*nr:kp*nr+cols]
			masks[kp] = 0
			for c := range row {
				sy, sx := oys[c]+dy, oxs[c]+dx
				row[c], bits[c] = 0, 0
				if sy >= 0 && sy < ih && sx >= 0 && sx < iw {
					row[c], bits[c] = int32(sy*xsh+sx*xsw), ^uint32(0)
					masks[kp] |= 1 << c
				}
			}
		}
		panel := dst[jr*kc : jr*kc+nr*kc]
		if vector {
			gatherPanelAVX512(&panel[0], kc, &m.xs[m.xo+p0/ksz*xsc], 4*xsc, p0%ksz, ksz, &offs[0], &masks[0])
			continue
		}
		for p := range kc {
			ci, kp := (p0+p)/ksz, (p0+p)%ksz
			src := m.xs[m.xo+ci*xsc:]
			out := panel[p*nr : p*nr+nr]
			bits := keep[kp*nr : kp*nr+cols]
			for c, o := range offs[kp*nr : kp*nr+cols] {
				out[c] = math.Float32frombits(math.Float32bits(src[o]) & bits[c])
			}
			clear(out[cols:])
		}
	}
}

// packStrips is packB on the AVX-512 and AVX2 paths for 2-D and 3-D
// convolutions whose taps step 1 or 2 floats along a row and whose output rows are wide
// enough that a panel's columns lie on at most maxStripRuns of them (rows
// of 8 columns or more for AVX-512's 32, of 3 or more for AVX2's 16): for
// each kernel position every row of the panel then reads as many runs of
// the input, found once per panel. stripPanelAVX512 and stripPanelAVX2
// load them under masks that zero the padding, a whole panel row at a
// time, where the Go path copies and clears each run apart and
// packGather gathers element by element.
func (m *im2colB) packStrips(dst []float32, p0, j0, kc, nc int) {
	x, ca := m.x, m.ca
	r := len(x.Shape) - 2 // 2 or 3; a 2-D convolution is a 3-D one of depth 1
	id, kd, sd, dd, pd, xsd := 1, 1, 1, 1, 0, 0
	if r == 3 {
		id, kd, sd, dd, pd, xsd = x.Shape[2], ca.kernel[0], ca.strides[0], ca.dilations[0], ca.pads[0], x.Strides[2]
	}
	ih, iw, oh, ow := x.Shape[r], x.Shape[r+1], m.out.Shape[r], m.out.Shape[r+1]
	kh, kw := ca.kernel[r-2], ca.kernel[r-1]
	ksz := kd * kh * kw
	sh, sw, dh, dw, ph, pw := ca.strides[r-2], ca.strides[r-1], ca.dilations[r-2], ca.dilations[r-1], ca.pads[r-2], ca.pads[r-1]
	xsc, xsh := x.Strides[1], x.Strides[r]
	// offs[runs*kp+s] is where run s of kernel position kp starts,
	// relative to its channel (lane c reads offs + sw*c); masks[runs*kp+s]
	// its lanes that read inside the input (bit c, or bit 2c for stride 2).
	var offs [maxStripRuns * gatherMaxTaps]int
	var masks [maxStripRuns * gatherMaxTaps]uint64
	// Per kernel position, once: its offsets, and the output columns
	// [colLo, colHi) whose input column lies inside.
	var dzs, dys, dxs, colLo, colHi [gatherMaxTaps]int
	for kp := range ksz {
		dzs[kp], dys[kp], dxs[kp] = kp/(kh*kw)*dd-pd, kp/kw%kh*dh-ph, kp%kw*dw-pw
		colLo[kp], colHi[kp] = ceilDiv(-dxs[kp], sw), ceilDiv(iw-dxs[kp], sw)
	}
	// Every channel the block reads lies in xs (the loads are not
	// bounds-checked).
	_ = m.xs[m.xo+(p0+kc-1)/ksz*xsc+(id-1)*xsd+(ih-1)*xsh+iw-1]
	for jr := 0; jr < nc; jr += nr {
		cols := min(nr, nc-jr)
		q := j0 + jr
		row0, ox0 := q/ow, q%ow // output rows count across depth planes
		// The output rows this panel touches (at most stripRuns(ow)):
		// most panels of rows as wide as a panel or wider lie on one.
		runs := (ox0+cols-1)/ow + 1
		for kp := range ksz {
			dx := dxs[kp]
			// Run s: the panel's columns [c0, c1) on output row row0+s
			// (plane oz, row oy), from output column oxs.
			c0, oxs := 0, ox0
			for s := range runs {
				i := runs*kp + s
				c1 := min(cols, c0+ow-oxs)
				offs[i], masks[i] = 0, 0
				oz, oy := (row0+s)/oh, (row0+s)%oh
				sz, sy := oz*sd+dzs[kp], oy*sh+dys[kp]
				// Output columns [lo, hi) of the run read inside the input.
				lo, hi := max(oxs, colLo[kp]), min(oxs+c1-c0, colHi[kp])
				if c0 < c1 && sz >= 0 && sz < id && sy >= 0 && sy < ih && lo < hi {
					offs[i] = sz*xsd + sy*xsh + (oxs-c0)*sw + dx
					first := c0 + lo - oxs
					if sw == 2 {
						// Bits 2c of lanes [first, first+hi-lo).
						masks[i] = (uint64(1)<<(2*(hi-lo)) - 1) & 0x5555555555555555 << (2 * first)
					} else {
						masks[i] = (uint64(1)<<(hi-lo) - 1) << first
					}
				}
				c0, oxs = c1, 0
			}
		}
		panel := dst[jr*kc : jr*kc+nr*kc]
		if nr == 16 {
			stripPanelAVX2(&panel[0], kc, &m.xs[m.xo+p0/ksz*xsc], 4*xsc, p0%ksz, ksz, &offs[0], &masks[0], sw, runs)
			continue
		}
		stripPanelAVX512(&panel[0], kc, &m.xs[m.xo+p0/ksz*xsc], 4*xsc, p0%ksz, ksz, &offs[0], &masks[0], sw, runs)
	}
}

// stripsFit reports whether packStrips takes this r-D (2 or 3)
// convolution's panels: a kernel for the running path's panels, output
// rows wide enough, taps 1 or 2 floats apart along contiguous input rows,
// and at most gatherMaxTaps kernel positions.
func (m *im2colB) stripsFit(r int) bool {
	sw := m.ca.strides[r-1]
	return stripPanels() && stripRuns(m.out.Shape[r+1]) <= maxStripRuns && m.x.Strides[r+1] == 1 &&
		(sw == 1 || sw == 2) && prod(m.ca.kernel) <= gatherMaxTaps
}

// maxStripRuns bounds the output rows a panel spans that packStrips
// takes: rows of 8 columns or more.
const maxStripRuns = 6

// stripRuns is how many output rows of ow columns a panel of nr
// consecutive columns can touch.
func stripRuns(ow int) int { return (nr-2)/ow + 2 }

// stripPanels reports whether packStrips has a kernel for the running
// path's panels: stripPanelAVX512 for AVX-512's 32 columns,
// stripPanelAVX2 for AVX2's 16.
func stripPanels() bool {
	return nr == 32 && planeRowsVector || nr == 16 && stripVectorAVX2
}

// gatherPanels reports whether packGather takes gatherPanelAVX512: on
// the AVX-512 path, whose panels are its 32 columns.
func gatherPanels() bool { return planeRowsVector && nr == 32 }

func ceilDiv(a, b int) int {
	if a <= 0 {
		return -((-a) / b)
	}
	return (a + b - 1) / b
}

// packAnyRank is packB for convolutions of rank 4 and more (and any rank:
// the tests hold packRows1D and packRuns to it).
func (m *im2colB) packAnyRank(dst []float32, p0, j0, kc, nc int) {
	x, ca := m.x, m.ca
	r := len(x.Shape) - 2
	ksz := prod(ca.kernel)
	k := make([]int, r)
	o := make([]int, r)
	osp := m.out.Shape[2:]
	for p := 0; p < kc; p++ {
		row := p0 + p
		ci, kp := row/ksz, row%ksz
		for d := r - 1; d >= 0; d-- {
			k[d], kp = kp%ca.kernel[d], kp/ca.kernel[d]
		}
		for jr := 0; jr < nc; jr += nr {
			out := dst[jr*kc+p*nr : jr*kc+p*nr+nr]
			cols := min(nr, nc-jr)
			for c := 0; c < cols; c++ {
				q := j0 + jr + c
				for d := r - 1; d >= 0; d-- {
					o[d], q = q%osp[d], q/osp[d]
				}
				off, inside := m.xo+ci*x.Strides[1], true
				for d := 0; d < r; d++ {
					pos := o[d]*ca.strides[d] - ca.pads[d] + k[d]*ca.dilations[d]
					inside = inside && pos >= 0 && pos < x.Shape[2+d]
					off += pos * x.Strides[2+d]
				}
				if inside {
					out[c] = m.xs[off]
				} else {
					out[c] = 0
				}
			}
			clear(out[cols:])
		}
	}
}

// convDirect is the definition, for any float dtype and layout.
func convDirect(x, w wgrt.Tensor, bias *wgrt.Tensor, out wgrt.Tensor, ca convAttrs) {
	r := len(x.Shape) - 2
	cg, mg := x.Shape[1]/ca.group, w.Shape[0]/ca.group
	var posBuf [maxRank]int
	pos := posBuf[:r]
	for o := range indices(out.Shape) {
		b, oc := o[0], o[1]
		gi := oc / mg
		s := 0.0
		if bias != nil {
			s = loadF(*bias, oc*bias.Strides[0])
		}
		for ci := 0; ci < cg; ci++ {
		taps:
			for k := range indices(ca.kernel) {
				for d := 0; d < r; d++ {
					pos[d] = o[2+d]*ca.strides[d] - ca.pads[d] + k[d]*ca.dilations[d]
					if pos[d] < 0 || pos[d] >= x.Shape[2+d] {
						continue taps
					}
				}
				xv := loadF(x, b*x.Strides[0]+(gi*cg+ci)*x.Strides[1]+offsetOf(pos, x.Strides[2:]))
				wv := loadF(w, oc*w.Strides[0]+ci*w.Strides[1]+offsetOf(k, w.Strides[2:]))
				s += xv * wv
			}
		}
		storeF(out, offsetOf(o, out.Strides), s)
	}
}

// convTranspose scatters every input element times the kernel into the
// output (the gradient of Conv): out[o*s - p + k*d] += x[i] * w[c, m, k].
func convTranspose(c *wgrt.Call) error {
	if err := need(c, 1, 2, 3); err != nil {
		return err
	}
	out, x, w := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	r := len(x.Shape) - 2
	if r < 1 || len(w.Shape) != r+2 || len(out.Shape) != r+2 {
		return fmt.Errorf("%s: input %v, weight %v and output %v do not fit", c.Kernel, x.Shape, w.Shape, out.Shape)
	}
	ca, err := readConvAttrs(c, r)
	if err != nil {
		return err
	}
	if familyOf(out.DType) != famFloat {
		return unsupported(c, out.DType)
	}
	g := ca.group
	ch, mg := x.Shape[1], w.Shape[1]
	if ch%g != 0 || w.Shape[0] != ch || out.Shape[1] != mg*g {
		return fmt.Errorf("%s: input %v, weight %v, group %d and output %v do not fit", c.Kernel, x.Shape, w.Shape, g, out.Shape)
	}
	cg := ch / g
	acc, err := scratchOf[float64](c, out.NumElements())
	if err != nil {
		return err
	}
	clear(acc)
	var ostrBuf, posBuf [maxRank]int
	ostr, pos := wgrt.RowMajor(ostrBuf[:len(out.Shape)], out.Shape), posBuf[:r]
	if x.DType == wgrt.F32 && w.DType == wgrt.F32 && innerContiguous(x, 0) && innerContiguous(w, 0) {
		convTransposeF32(x, w, acc, out.Shape, ca, cg, mg)
	} else {
		for i := range indices(x.Shape) {
			b, ci := i[0], i[1]
			gi := ci / cg
			xv := loadF(x, offsetOf(i, x.Strides))
			for om := 0; om < mg; om++ {
			taps:
				for k := range indices(ca.kernel) {
					for d := 0; d < r; d++ {
						pos[d] = i[2+d]*ca.strides[d] - ca.pads[d] + k[d]*ca.dilations[d]
						if pos[d] < 0 || pos[d] >= out.Shape[2+d] {
							continue taps
						}
					}
					wv := loadF(w, ci*w.Strides[0]+om*w.Strides[1]+offsetOf(k, w.Strides[2:]))
					acc[b*ostr[0]+(gi*mg+om)*ostr[1]+offsetOf(pos, ostr[2:])] += xv * wv
				}
			}
		}
	}
	for o := range indices(out.Shape) {
		v := acc[offsetOf(o, ostr)]
		if len(c.Inputs) == 3 {
			v += loadF(c.Inputs[2], o[1]*c.Inputs[2].Strides[0])
		}
		storeF(out, offsetOf(o, out.Strides), v)
	}
	return nil
}
