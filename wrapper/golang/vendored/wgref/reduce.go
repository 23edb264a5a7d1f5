package wgref

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func init() {
	for _, name := range []string{"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
		"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"} {
		register(name, reduce)
	}
	register("ArgMax", func(c *wgrt.Call) error { return argReduce(c, true) })
	register("ArgMin", func(c *wgrt.Call) error { return argReduce(c, false) })
	register("TopK", topK)
	register("CumSum", cumSum)
}

// reduced says, per input dimension, whether it is reduced, from the
// "axes" attribute. The importer lists every reduced axis (all of them for
// a full reduction), so an empty list is noop_with_empty_axes: nothing.
func reduced(c *wgrt.Call, rank int) (red [maxRank]bool, keep bool, err error) {
	a := attrsOf(c)
	axes := a.Ints("axes")
	keep = a.IntOr("keepdims", 1) != 0
	if a.err != nil {
		return red, false, a.err
	}
	for _, ax := range axes {
		if ax < 0 {
			ax += rank
		}
		if ax < 0 || ax >= rank {
			return red, false, fmt.Errorf("%s: axis %d for rank %d", c.Kernel, ax, rank)
		}
		red[ax] = true
	}
	return red, keep, nil
}

// outStrides sets s to map an input index to the output element that
// accumulates it: reduced dimensions stride 0.
func outStrides(s []int, red []bool, keep bool, out wgrt.Tensor) []int {
	o := 0
	for d, r := range red {
		if r && !keep {
			continue
		}
		if !r {
			s[d] = out.Strides[o]
		}
		o++
	}
	return s
}

// reduceAccumulators is how many float64s (or int64s) the Reduce*
// kernels keep per output element: their scratch.
func reduceAccumulators(kernel string) int {
	if kernel == "ReduceLogSumExp" {
		return 2
	}
	return 1
}

// reduce runs the Reduce* kernels: each output element accumulates the
// input elements that map to it, in float64 (int64 for integer sums,
// products, maxima and minima).
func reduce(c *wgrt.Call) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	redAll, keep, err := reduced(c, len(x.Shape))
	if err != nil {
		return err
	}
	red := redAll[:len(x.Shape)]
	n := 1
	for d, r := range red {
		if r {
			n *= x.Shape[d]
		}
	}
	if x.DType == wgrt.F32 && out.DType == wgrt.F32 && n > 0 && x.Contiguous() && out.Contiguous() && reducesTrailing(red) &&
		reduceRowsF32(c.Kernel, elems[float32](out)[:out.NumElements()], elems[float32](x), n) {
		return nil
	}
	// Accumulate by output element, in row-major order of the output.
	var denseBuf, dosBuf [maxRank]int
	dense := wgrt.RowMajor(denseBuf[:len(out.Shape)], out.Shape)
	dos := outStrides(dosBuf[:len(red)], red, keep, wgrt.Tensor{Strides: dense})
	total := out.NumElements()
	fam := familyOf(x.DType)
	if fam == famOther || fam == famBool {
		return unsupported(c, x.DType)
	}
	integer := fam != famFloat && (c.Kernel == "ReduceSum" || c.Kernel == "ReduceProd" || c.Kernel == "ReduceMax" || c.Kernel == "ReduceMin")
	if integer {
		acc, err := scratchOf[int64](c, total)
		if err != nil {
			return err
		}
		for i := range acc {
			acc[i] = 0
			switch c.Kernel {
			case "ReduceProd":
				acc[i] = 1
			case "ReduceMax":
				acc[i] = math.MinInt64
			case "ReduceMin":
				acc[i] = math.MaxInt64
			}
		}
		for idx := range indices(x.Shape) {
			v, k := loadI(x, offsetOf(idx, x.Strides)), offsetOf(idx, dos)
			switch c.Kernel {
			case "ReduceSum":
				acc[k] += v
			case "ReduceProd":
				acc[k] *= v
			case "ReduceMax":
				acc[k] = max(acc[k], v)
			case "ReduceMin":
				acc[k] = min(acc[k], v)
			}
		}
		for idx := range indices(out.Shape) {
			storeI(out, offsetOf(idx, out.Strides), acc[offsetOf(idx, dense)])
		}
		return nil
	}
	// ReduceLogSumExp subtracts each output's maximum: a second accumulator.
	both, err := scratchOf[float64](c, reduceAccumulators(c.Kernel)*total)
	if err != nil {
		return err
	}
	acc, peak := both[:total], both[total:]
	clear(acc)
	switch c.Kernel {
	case "ReduceProd":
		for i := range acc {
			acc[i] = 1
		}
	case "ReduceMax":
		for i := range acc {
			acc[i] = math.Inf(-1)
		}
	case "ReduceMin":
		for i := range acc {
			acc[i] = math.Inf(1)
		}
	case "ReduceLogSumExp":
		for i := range peak {
			peak[i] = math.Inf(-1)
		}
		for idx := range indices(x.Shape) {
			k := offsetOf(idx, dos)
			peak[k] = math.Max(peak[k], loadF(x, offsetOf(idx, x.Strides)))
		}
	}
	for idx := range indices(x.Shape) {
		v, k := loadF(x, offsetOf(idx, x.Strides)), offsetOf(idx, dos)
		switch c.Kernel {
		case "ReduceSum", "ReduceMean", "ReduceLogSum":
			acc[k] += v
		case "ReduceProd":
			acc[k] *= v
		case "ReduceMax":
			if v > acc[k] || v != v {
				acc[k] = v
			}
		case "ReduceMin":
			if v < acc[k] || v != v {
				acc[k] = v
			}
		case "ReduceL1":
			acc[k] += math.Abs(v)
		case "ReduceL2", "ReduceSumSquare":
			acc[k] += v * v
		case "ReduceLogSumExp":
			if !math.IsInf(peak[k], 0) {
				acc[k] += math.Exp(v - peak[k])
			} else {
				acc[k] += math.Exp(v)
			}
		}
	}
	for idx := range indices(out.Shape) {
		k := offsetOf(idx, dense)
		v := acc[k]
		switch c.Kernel {
		case "ReduceMean":
			v /= float64(n)
		case "ReduceL2":
			v = math.Sqrt(v)
		case "ReduceLogSum":
			v = math.Log(v)
		case "ReduceLogSumExp":
			if !math.IsInf(peak[k], 0) {
				v = math.Log(v) + peak[k]
			} else {
				v = math.Log(v)
			}
		}
		storeF(out, offsetOf(idx, out.Strides), v)
	}
	return nil
}

// argReduce writes, along axis, the index of the largest (or smallest)
// element: the first of equal ones, or the last with select_last_index.
func argReduce(c *wgrt.Call, largest bool) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	axis, err := axisAttr(c, len(x.Shape))
	if err != nil {
		return err
	}
	a := attrsOf(c)
	last := a.IntOr("select_last_index", 0) != 0
	keep := a.IntOr("keepdims", 1) != 0
	if a.err != nil {
		return a.err
	}
	if len(x.Shape) == 0 {
		return fmt.Errorf("%s: a scalar has no axis", c.Kernel)
	}
	var outerBuf, ostrBuf [maxRank]int
	outer, ostr := outerBuf[:len(x.Shape)], ostrBuf[:len(x.Shape)]
	copy(outer, x.Shape)
	outer[axis] = 1
	o := 0
	for d := range x.Shape {
		if d == axis && !keep {
			continue
		}
		if d != axis {
			ostr[d] = out.Strides[o]
		}
		o++
	}
	for idx := range indices(outer) {
		base := offsetOf(idx, x.Strides)
		best, at := 0.0, -1
		for i := 0; i < x.Shape[axis]; i++ {
			v := loadF(x, base+i*x.Strides[axis])
			better := at < 0 || (largest && v > best) || (!largest && v < best) || (last && v == best)
			if better {
				best, at = v, i
			}
		}
		storeI(out, offsetOf(idx, ostr), int64(at))
	}
	return nil
}

// topKEntry is one element of TopK's axis, sorted in its scratch.
type topKEntry struct {
	v float64
	i int
}

// topK writes the k largest (or smallest) elements along axis and their
// indices, sorted, equal values in index order.
func topK(c *wgrt.Call) error {
	if err := need(c, 2, 1, 1); err != nil {
		return err
	}
	vals, inds, x := c.Outputs[0], c.Outputs[1], c.Inputs[0]
	axis, err := axisAttr(c, len(x.Shape))
	if err != nil {
		return err
	}
	a := attrsOf(c)
	k, largest := a.Int("k"), a.IntOr("largest", 1) != 0
	if a.err != nil {
		return a.err
	}
	n := x.Shape[axis]
	if k < 0 || k > n || vals.Shape[axis] != k {
		return fmt.Errorf("%s: k %d for axis of %d", c.Kernel, k, n)
	}
	var outerBuf [maxRank]int
	outer := outerBuf[:len(x.Shape)]
	copy(outer, x.Shape)
	outer[axis] = 1
	work, err := scratchOf[topKEntry](c, n)
	if err != nil {
		return err
	}
	for idx := range indices(outer) {
		base := offsetOf(idx, x.Strides)
		for i := range work {
			work[i] = topKEntry{loadF(x, base+i*x.Strides[axis]), i}
		}
		slices.SortStableFunc(work, func(p, q topKEntry) int {
			if largest {
				return cmp.Compare(q.v, p.v)
			}
			return cmp.Compare(p.v, q.v)
		})
		vb, ib := offsetOf(idx, vals.Strides), offsetOf(idx, inds.Strides)
		for j := 0; j < k; j++ {
			copyElem(vals, vb+j*vals.Strides[axis], x, base+work[j].i*x.Strides[axis])
			storeI(inds, ib+j*inds.Strides[axis], int64(work[j].i))
		}
	}
	return nil
}

// cumSum adds up along axis: exclusive leaves out each element itself,
// reverse sums from the end.
func cumSum(c *wgrt.Call) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	axis, err := axisAttr(c, len(x.Shape))
	if err != nil {
		return err
	}
	a := attrsOf(c)
	exclusive, reverse := a.IntOr("exclusive", 0) != 0, a.IntOr("reverse", 0) != 0
	if a.err != nil {
		return a.err
	}
	fam := familyOf(x.DType)
	var outerBuf [maxRank]int
	outer := outerBuf[:len(x.Shape)]
	copy(outer, x.Shape)
	outer[axis] = 1
	n := x.Shape[axis]
	for idx := range indices(outer) {
		xb, ob := offsetOf(idx, x.Strides), offsetOf(idx, out.Strides)
		sf, si := 0.0, int64(0)
		for j := 0; j < n; j++ {
			i := j
			if reverse {
				i = n - 1 - j
			}
			xo, oo := xb+i*x.Strides[axis], ob+i*out.Strides[axis]
			if fam == famFloat {
				v := loadF(x, xo)
				if exclusive {
					storeF(out, oo, sf)
					sf += v
				} else {
					sf += v
					storeF(out, oo, sf)
				}
			} else {
				v := loadI(x, xo)
				if exclusive {
					storeI(out, oo, si)
					si += v
				} else {
					si += v
					storeI(out, oo, si)
				}
			}
		}
	}
	return nil
}

// reducesTrailing reports whether the reduced dimensions are the last
// ones, so that each output element reduces one contiguous row.
func reducesTrailing(red []bool) bool {
	for d := 1; d < len(red); d++ {
		if red[d-1] && !red[d] {
			return false
		}
	}
	return true
}

// reduceRowsF32 reduces each contiguous row of n float32s of xs into one
// element of os, sums in float64 as the general path does; false for the
// kernels it does not do.
func reduceRowsF32(kernel string, os, xs []float32, n int) bool {
	switch kernel {
	case "ReduceSum", "ReduceMean", "ReduceSumSquare", "ReduceL2":
		for r := range os {
			row := xs[r*n : r*n+n]
			var v float64
			switch kernel {
			case "ReduceSum":
				v = sum64(row)
			case "ReduceMean":
				v = sum64(row) / float64(n)
			case "ReduceSumSquare":
				_, v = sumAndSquares(row)
			case "ReduceL2":
				_, v = sumAndSquares(row)
				v = math.Sqrt(v)
			}
			os[r] = float32(v)
		}
	case "ReduceMax", "ReduceMin":
		isMax := kernel == "ReduceMax"
		for r := range os {
			row := xs[r*n : r*n+n]
			acc := row[0]
			for _, v := range row {
				if (isMax && v > acc) || (!isMax && v < acc) || v != v {
					acc = v
				}
			}
			os[r] = acc
		}
	default:
		return false
	}
	return true
}
