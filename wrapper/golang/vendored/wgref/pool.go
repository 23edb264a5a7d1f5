package wgref

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func init() {
	register("MaxPool", func(c *wgrt.Call) error { return pool(c, "max") })
	register("AveragePool", func(c *wgrt.Call) error { return pool(c, "avg") })
	register("LpPool", func(c *wgrt.Call) error { return pool(c, "lp") })
	register("GlobalAveragePool", func(c *wgrt.Call) error { return globalPool(c, "avg") })
	register("GlobalMaxPool", func(c *wgrt.Call) error { return globalPool(c, "max") })
	register("GlobalLpPool", func(c *wgrt.Call) error { return globalPool(c, "lp") })
}

// pool reduces each window of the spatial dimensions: the window of output
// position o starts at o*stride - pad_begin and takes kernel positions
// dilation apart; positions outside the input are skipped (or, for
// AveragePool with count_include_pad, counted when inside the padding).
func pool(c *wgrt.Call, kind string) error {
	if len(c.Inputs) != 1 || len(c.Outputs) < 1 || len(c.Outputs) > 2 {
		return fmt.Errorf("%s: want 1 input and 1 or 2 outputs", c.Kernel)
	}
	out, x := c.Outputs[0], c.Inputs[0]
	r := len(x.Shape) - 2
	if r < 1 || len(out.Shape) != len(x.Shape) {
		return fmt.Errorf("%s: input %v and output %v do not fit", c.Kernel, x.Shape, out.Shape)
	}
	a := attrsOf(c)
	kernel, strides, pads := a.Ints("kernel_shape"), a.Ints("strides"), a.Ints("pads")
	var ones [maxRank]int
	for i := range ones {
		ones[i] = 1
	}
	dil := ones[:max(r, 0)]
	if a.Has("dilations") {
		dil = a.Ints("dilations")
	}
	includePad := a.IntOr("count_include_pad", 0) != 0
	order := a.IntOr("storage_order", 0)
	p := float64(a.IntOr("p", 2))
	if a.err != nil {
		return a.err
	}
	if len(kernel) != r || len(strides) != r || len(pads) != 2*r || len(dil) != r {
		return fmt.Errorf("%s: attributes do not fit %d spatial dimensions", c.Kernel, r)
	}
	if familyOf(x.DType) == famOther || familyOf(x.DType) == famBool {
		return unsupported(c, x.DType)
	}
	var idxOut *wgrt.Tensor
	if len(c.Outputs) == 2 {
		idxOut = &c.Outputs[1]
	}
	if idxOut == nil && kind != "lp" && x.DType == wgrt.F32 && out.DType == wgrt.F32 {
		if win, ok := windowOf(x, out, kernel, strides, pads, dil); ok {
			poolF32(x, out, win, kind == "max", includePad, pads[2*r-1], pads[r], threadsOf(c))
			return nil
		}
	}
	if idxOut != nil && kind == "max" && x.DType == wgrt.F32 && out.DType == wgrt.F32 && idxOut.DType == wgrt.I64 && idxOut.Strides[r+1] == 1 {
		if win, ok := windowOf(x, out, kernel, strides, pads, dil); ok {
			maxPoolIndicesF32(x, out, *idxOut, win, order == 1)
			return nil
		}
	}
	var posBuf, flatBuf [maxRank]int
	pos := posBuf[:r]
	// Flat index strides of the input for MaxPool's Indices (row-major, or
	// column-major over the spatial dimensions with storage_order 1).
	flat := wgrt.RowMajor(flatBuf[:len(x.Shape)], x.Shape)
	if order == 1 {
		s := 1
		for d := 2; d < len(x.Shape); d++ {
			flat[d] = s
			s *= x.Shape[d]
		}
	}
	for o := range indices(out.Shape) {
		base := o[0]*x.Strides[0] + o[1]*x.Strides[1]
		best, bestAt := math.Inf(-1), -1
		sum, count := 0.0, 0
		for k := range indices(kernel) {
			inside, inPad := true, true
			for d := 0; d < r; d++ {
				pos[d] = o[2+d]*strides[d] - pads[d] + k[d]*dil[d]
				if pos[d] < 0 || pos[d] >= x.Shape[2+d] {
					inside = false
				}
				if pos[d] < -pads[d] || pos[d] >= x.Shape[2+d]+pads[r+d] {
					inPad = false
				}
			}
			if !inside {
				if includePad && inPad {
					count++
				}
				continue
			}
			v := loadF(x, base+offsetOf(pos, x.Strides[2:]))
			count++
			switch kind {
			case "max":
				if v > best || bestAt < 0 {
					best = v
					bestAt = o[0]*flat[0] + o[1]*flat[1] + offsetOf(pos, flat[2:])
				}
			case "avg":
				sum += v
			case "lp":
				sum += math.Pow(math.Abs(v), p)
			}
		}
		at := offsetOf(o, out.Strides)
		switch kind {
		case "max":
			storeF(out, at, best)
			if idxOut != nil {
				storeI(*idxOut, offsetOf(o, idxOut.Strides), int64(bestAt))
			}
		case "avg":
			storeF(out, at, sum/float64(count))
		case "lp":
			storeF(out, at, math.Pow(sum, 1/p))
		}
	}
	return nil
}

// globalPool reduces all spatial dimensions of each channel.
func globalPool(c *wgrt.Call, kind string) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	if len(x.Shape) < 2 || len(out.Shape) != len(x.Shape) {
		return fmt.Errorf("%s: input %v and output %v do not fit", c.Kernel, x.Shape, out.Shape)
	}
	if familyOf(x.DType) != famFloat {
		return unsupported(c, x.DType)
	}
	a := attrsOf(c)
	p := float64(a.IntOr("p", 2))
	if a.err != nil {
		return a.err
	}
	spatial := x.Shape[2:]
	n := prod(spatial)
	xs := x.DType == wgrt.F32 && spatialContiguous(x)
	for b := 0; b < x.Shape[0]; b++ {
		for ch := 0; ch < x.Shape[1]; ch++ {
			base := b*x.Strides[0] + ch*x.Strides[1]
			acc := 0.0
			if kind == "max" {
				acc = math.Inf(-1)
			}
			add := func(v float64) {
				switch kind {
				case "max":
					acc = math.Max(acc, v)
				case "avg":
					acc += v
				case "lp":
					acc += math.Pow(math.Abs(v), p)
				}
			}
			switch {
			case xs && kind == "avg":
				acc = rowSum(elems[float32](x)[base : base+n])
			case xs && kind == "max":
				acc = float64(rowMax(elems[float32](x)[base : base+n]))
			default:
				for s := range indices(spatial) {
					add(loadF(x, base+offsetOf(s, x.Strides[2:])))
				}
			}
			switch kind {
			case "avg":
				acc /= float64(n)
			case "lp":
				acc = math.Pow(acc, 1/p)
			}
			storeF(out, b*out.Strides[0]+ch*out.Strides[1], acc)
		}
	}
	return nil
}

// poolF32 is pool for 1-D and 2-D float32 maximum and average windows,
// plane by plane in tap rows (window2d.go); padEndW and padEndH are the
// end pads of the last and (2-D) first spatial axis.
func poolF32(x, out wgrt.Tensor, win window2d, isMax, includePad bool, padEndW, padEndH, threads int) {
	wo := windowOp{op: tapSum, avg: true, includePad: includePad, padEndW: padEndW}
	if isMax {
		wo = windowOp{op: tapMax, init: negInf32}
	}
	outRow := 0
	if len(out.Shape) == 4 {
		outRow, wo.padEndH = out.Strides[2], padEndH
	}
	job := poolPlanes{x: x, out: out, win: win, wo: wo, outRow: outRow}
	if planes := x.Shape[0] * x.Shape[1]; shares(threads, planes, x.NumElements()) {
		pooledPool = job
		workers.runRange(planes, &pooledPool)
		pooledPool = poolPlanes{}
		workers.mu.Unlock()
		return
	}
	job.planes(0, x.Shape[0]*x.Shape[1])
}

// poolPlanes is a pooling over ranges of its planes.
type poolPlanes struct {
	x, out wgrt.Tensor
	win    window2d
	wo     windowOp
	outRow int
}

// pooledPool is the pooling that holds the worker pool.
var pooledPool poolPlanes

func (j *poolPlanes) doRange(from, to int) { j.planes(from, to) }

// planes pools [image, channel] planes [from, to).
func (j *poolPlanes) planes(from, to int) {
	if j.wo.op == tapMax {
		switch {
		case maxPool16Vector && j.win.fits16(j.x, j.out, 16):
			j.planes16(from, to, 16)
			return
		case maxPool8Vector && j.win.fits16(j.x, j.out, 8):
			j.planes16(from, to, 8)
			return
		}
	}
	j.planesByRows(from, to)
}

// planes16 pools [image, channel] planes [from, to), lanes (16 or 8)
// channels of an image at a time where the range holds them
// (conv_depthwise16.go), the others in tap rows.
func (j *poolPlanes) planes16(from, to, lanes int) {
	var bufs dw16Bufs
	m := j.x.Shape[1]
	for u := from; u < to; {
		if ch := u % m; ch+lanes <= m && u+lanes <= to {
			j.win.block16(j.x, j.out, u/m, ch, ch, 1, lanes, blockMaxPool, fusedAct{}, nil, &bufs)
			u += lanes
			continue
		}
		j.planesByRows(u, u+1)
		u++
	}
}

// planesByRows pools [image, channel] planes [from, to) one by one.
func (j *poolPlanes) planesByRows(from, to int) {
	xs, ys := elems[float32](j.x), elems[float32](j.out)
	var bufs planeBufs
	for u := from; u < to; u++ {
		b, ch := u/j.x.Shape[1], u%j.x.Shape[1]
		j.win.plane(ys[b*j.out.Strides[0]+ch*j.out.Strides[1]:], j.outRow, xs[b*j.x.Strides[0]+ch*j.x.Strides[1]:], &j.wo, &bufs)
	}
}
