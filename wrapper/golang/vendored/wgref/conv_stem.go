package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// Strided stems with taps read in place. A network's first convolution
// (an image's few channels, stride 2: 3x3 in MobileNet and EfficientNet,
// 7x7 in SqueezeNet and ResNet) has a short k (27 to 147) and many output
// positions, so im2col's packing of B costs as much as the product:
// every input float is copied k·n/(c·h·w), about 12 times for a 7x7
// kernel, each copy a stride-2 gather. Here each input row is split once
// into its even and odd columns (a ring of the kernel's rows per
// channel), after which what kernel tap (ch, ky, kx) reads across sixteen
// consecutive output columns is sixteen consecutive floats of one of
// them: kernel6x16Taps reads B there through a table of offsets, one per
// tap. Its steps are kernel6x16's in the same order (one block of k), so
// the output has the bits im2col's product gives.

// stemFits reports whether convStem takes the convolution of x by w
// into out: the AVX2 or AVX-512 path, an image's few channels (more, as
// a 1x1 downsampling convolution's, would split rows beyond L1 for
// products that im2col packs well), one group, 2-D, stride 2 and no
// dilation either way, k in one block, the output channels in one block
// of rows, contiguous input rows, and the kernel's rows a ring of at most
// stemMaxRows.
func stemFits(x, w, out wgrt.Tensor, ca convAttrs) bool {
	return stemTapsVector && (mr == 6 && nr == 16 || mr == 12 && nr == 32) && len(x.Shape) == 4 && x.Shape[1] <= stemMaxChannels && ca.group == 1 &&
		ca.strides[0] == 2 && ca.strides[1] == 2 && ca.dilations[0] == 1 && ca.dilations[1] == 1 &&
		w.Shape[1]*w.Shape[2]*w.Shape[3] <= blockK && w.Shape[0] <= blockM && w.Shape[2] <= stemMaxRows &&
		x.Strides[3] == 1 && out.Shape[3] >= nr/2
}

// stemMaxRows bounds the kernel rows convStem keeps split, and
// stemMaxChannels the input channels.
const stemMaxRows, stemMaxChannels = 16, 4

// stemLayout is where convStem keeps the split rows: for each channel,
// kernel row slot (one per kernel row) and column parity, a row of width
// floats, the zero row after them, and each output column's read at
// margin+ox+shift.
type stemLayout struct {
	width, margin int
	planes        int // channels·kernel rows·2
}

func stemLayoutOf(ch, kh, kw, pw, ow int) stemLayout {
	sMin, sMax := halfDown(-pw), halfDown(kw-1-pw)
	margin := max(0, -sMin)
	return stemLayout{width: margin + ceilTo(ow, nr) + max(0, sMax), margin: margin, planes: ch * kh * 2}
}

// floats is the buffer the split rows take.
func (l stemLayout) floats() int { return (l.planes + 1) * l.width }

// halfDown is a/2 rounded down (a may be negative).
func halfDown(a int) int { return a >> 1 }

// convStem computes image b's convolution (one group) into cm (mg rows of
// ldc floats: the output's channels) and finishes each output row with
// rows. pa is A packed whole (prepared), or nil to pack it into work. It
// reports false, doing nothing, when work is too small for its split
// rows. With threads > 1, parts of the output rows go to the pool, each
// splitting its rows in its own copy of work (partScratch): the same
// sums, so the same bits, at any thread count.
func convStem(b int, x, w, out wgrt.Tensor, ca convAttrs, cm []float32, ldc int, pa []float32, work []float32, rows *rowEpilogue, threads int) bool {
	ch, kh, kw := w.Shape[1], w.Shape[2], w.Shape[3]
	mg, k := w.Shape[0], ch*kh*kw
	lay := stemLayoutOf(ch, kh, kw, ca.pads[1], out.Shape[3])
	packed := 0
	if pa == nil {
		packed = ceilTo(mg, mr) * k
	}
	if len(work) < packed+lay.floats() {
		return false
	}
	if pa == nil {
		pa = work[:packed]
		packA(pa, matrix{data: elems[float32](w), rs: w.Strides[0], cs: 1}, 0, 0, mg, k)
	}
	j := stemJob{b: b, x: x, w: w, out: out, ca: ca, cm: cm, ldc: ldc, pa: pa, work: work, packed: packed, lay: lay, parts: 1}
	if rows != nil {
		j.rows, j.hasRows = *rows, true
	}
	oh := out.Shape[2]
	if flops := 2 * mg * k * oh * out.Shape[3]; flops >= 2*minPartFlops && oh > 1 && workers.take(threads) {
		j.parts = min(workers.limit, oh)
		growPartScratch(j.parts, len(work))
		pooledStem = j
		workers.run(&pooledStem, j.parts)
		pooledStem = stemJob{}
		workers.mu.Unlock()
		return true
	}
	j.runPart(0)
	return true
}

// stemJob is one convStem call, shared by parts of its output rows; the
// pool's copy is pooledStem.
type stemJob struct {
	b            int
	x, w, out    wgrt.Tensor
	ca           convAttrs
	cm, pa, work []float32
	ldc, packed  int
	lay          stemLayout
	rows         rowEpilogue // a copy, so that the caller's never escapes
	hasRows      bool
	parts        int
}

var pooledStem stemJob

// runPart computes part i's output rows, its split rows in its scratch
// past A's packed panels.
func (j *stemJob) runPart(i int) {
	from, to := share(i, j.parts, j.out.Shape[2])
	var rows *rowEpilogue
	if j.hasRows {
		rows = &j.rows
	}
	buf := scratchOfPart(i, j.work)[j.packed : j.packed+j.lay.floats()]
	stemRows(j.b, j.x, j.w, j.out, j.ca, j.cm, j.ldc, j.pa, buf, j.lay, rows, from, to)
}

// stemRows computes output rows [from, to) of convStem's product and
// finishes them, splitting the input rows they read into buf.
func stemRows(b int, x, w, out wgrt.Tensor, ca convAttrs, cm []float32, ldc int, pa, buf []float32, lay stemLayout, rows *rowEpilogue, from, to int) {
	ch, ih, iw := x.Shape[1], x.Shape[2], x.Shape[3]
	mg, kh, kw := w.Shape[0], w.Shape[2], w.Shape[3]
	ow := out.Shape[3]
	ph, pw := ca.pads[0], ca.pads[1]
	k := ch * kh * kw
	clear(buf[lay.planes*lay.width:]) // the zero row
	xs := elems[float32](x)
	xo := b * x.Strides[0]
	var slotRow [stemMaxRows]int
	for i := range slotRow {
		slotRow[i] = -1
	}
	var offs [blockK]int
	var edge [maxMR * maxNR]float32
	for oy := from; oy < to; oy++ {
		for ky := 0; ky < kh; ky++ {
			iy := 2*oy - ph + ky
			slot := (iy%kh + kh) % kh
			if iy >= 0 && iy < ih && slotRow[slot] != iy {
				for c := 0; c < ch; c++ {
					row := xs[xo+c*x.Strides[1]+iy*x.Strides[2]:]
					plane := (c*kh + slot) * 2
					splitRow(buf[plane*lay.width:(plane+1)*lay.width], buf[(plane+1)*lay.width:(plane+2)*lay.width], row[:iw], lay.margin)
				}
				slotRow[slot] = iy
			}
			for kx := 0; kx < kw; kx++ {
				d := kx - pw
				at := lay.margin + halfDown(d)
				for c := 0; c < ch; c++ {
					o := lay.planes*lay.width + at // the zero row
					if iy >= 0 && iy < ih {
						o = ((c*kh+slot)*2+d&1)*lay.width + at
					}
					offs[(c*kh+ky)*kw+kx] = 4 * o
				}
			}
		}
		for ox0 := 0; ox0 < ow; ox0 += nr {
			cols := min(nr, ow-ox0)
			for ir := 0; ir < mg; ir += mr {
				n := min(mr, mg-ir)
				ap, bp := &pa[ir*k], &buf[ox0]
				if n == mr && cols == nr {
					stemTile(k, ap, bp, &offs[0], &cm[ir*ldc+oy*ow+ox0], ldc, n, cols)
					continue
				}
				stemTile(k, ap, bp, &offs[0], &edge[0], nr, n, cols)
				for i := 0; i < n; i++ {
					copy(cm[(ir+i)*ldc+oy*ow+ox0:(ir+i)*ldc+oy*ow+ox0+cols], edge[i*nr:i*nr+cols])
				}
			}
		}
		rows.finish(cm, ldc, 0, mg, oy*ow, oy*ow+ow)
	}
}

// stemTile runs the running path's kernel over a tile of which rows and
// cols are wanted: on the AVX-512 path a row's last sixteen columns or
// fewer through a 16-wide kernel, a panel's last four rows or fewer
// through a four-row one.
func stemTile(k int, a, b *float32, offs *int, c *float32, ldc, rows, cols int) {
	switch {
	case nr == 16:
		kernel6x16Taps(k, a, b, offs, c, ldc)
	case cols <= 16:
		kernel12x16Taps(k, a, b, offs, c, ldc)
	case rows <= 4:
		kernel4x32Taps(k, a, b, offs, c, ldc)
	default:
		kernel12x32Taps(k, a, b, offs, c, ldc)
	}
}

// splitRow writes row's even columns to even and odd ones to odd, column
// 2j or 2j+1 at index margin+j, zero where that lies outside the row; even
// and odd are as long as each other.
func splitRow(even, odd, row []float32, margin int) {
	n := len(even) - margin // columns j < n
	odd = odd[:len(even)]
	clear(even[:margin])
	clear(odd[:margin])
	pairs := min(len(row)/2, n)
	j := 0
	if body := pairs &^ 7; body > 0 {
		_, _, _ = even[margin+body-1], odd[margin+body-1], row[2*body-1]
		deinterleaveAVX2(&even[margin], &odd[margin], &row[0], body)
		j = body
	}
	for ; j < pairs; j++ {
		even[margin+j], odd[margin+j] = row[2*j], row[2*j+1]
	}
	clear(even[margin+j:])
	clear(odd[margin+j:])
	if j < n && 2*j < len(row) {
		even[margin+j] = row[2*j] // a last, odd column
	}
}
