package wgref

import (
	"fmt"
	"math"
	"sort"

	"github.com/wrapgen/wrapgen/wrapper/golang/wgrt"
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
func reduced(c *wgrt.Call, rank int) ([]bool, bool, error) {
	a := attrsOf(c)
	axes := a.Ints("axes")
	keep := a.IntOr("keepdims", 1) != 0
	if a.err != nil {
		return nil, false, a.err
	}
	red := make([]bool, rank)
	for _, ax := range axes {
		if ax < 0 {
			ax += rank
		}
		if ax < 0 || ax >= rank {
			return nil, false, fmt.Errorf("%s: axis %d for rank %d", c.Kernel, ax, rank)
		}
		red[ax] = true
	}
	return red, keep, nil
}

// outStrides maps an input index to the output element that accumulates
// it: reduced dimensions stride 0.
func outStrides(red []bool, keep bool, out wgrt.Tensor) []int {
	s := make([]int, len(red))
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

// reduce runs the Reduce* kernels: each output element accumulates the
// input elements that map to it, in float64 (int64 for integer sums,
// products, maxima and minima).
func reduce(c *wgrt.Call) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	red, keep, err := reduced(c, len(x.Shape))
	if err != nil {
		return err
	}
	n := 1
	for d, r := range red {
		if r {
			n *= x.Shape[d]
		}
	}
	// Accumulate by output element, in row-major order of the output.
	dense := rowMajor(out.Shape)
	dos := outStrides(red, keep, wgrt.Tensor{Strides: dense})
	total := out.NumElements()
	fam := familyOf(x.DType)
	if fam == famOther || fam == famBool {
		return unsupported(c, x.DType)
	}
	integer := fam != famFloat && (c.Kernel == "ReduceSum" || c.Kernel == "ReduceProd" || c.Kernel == "ReduceMax" || c.Kernel == "ReduceMin")
	if integer {
		acc := make([]int64, total)
		for i := range acc {
			switch c.Kernel {
			case "ReduceProd":
				acc[i] = 1
			case "ReduceMax":
				acc[i] = math.MinInt64
			case "ReduceMin":
				acc[i] = math.MaxInt64
			}
		}
		forEachIndex(x.Shape, func(idx []int) {
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
		})
		forEachIndex(out.Shape, func(idx []int) { storeI(out, offsetOf(idx, out.Strides), acc[offsetOf(idx, dense)]) })
		return nil
	}
	acc := make([]float64, total)
	var peak []float64 // ReduceLogSumExp subtracts each output's maximum
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
		peak = make([]float64, total)
		for i := range peak {
			peak[i] = math.Inf(-1)
		}
		forEachIndex(x.Shape, func(idx []int) {
			k := offsetOf(idx, dos)
			peak[k] = math.Max(peak[k], loadF(x, offsetOf(idx, x.Strides)))
		})
	}
	forEachIndex(x.Shape, func(idx []int) {
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
	})
	forEachIndex(out.Shape, func(idx []int) {
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
	})
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
	outer := append([]int(nil), x.Shape...)
	outer[axis] = 1
	ostr := make([]int, len(x.Shape))
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
	forEachIndex(outer, func(idx []int) {
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
	})
	return nil
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
	outer := append([]int(nil), x.Shape...)
	outer[axis] = 1
	order := make([]int, n)
	v := make([]float64, n)
	forEachIndex(outer, func(idx []int) {
		base := offsetOf(idx, x.Strides)
		for i := range order {
			order[i], v[i] = i, loadF(x, base+i*x.Strides[axis])
		}
		sort.SliceStable(order, func(i, j int) bool {
			if largest {
				return v[order[i]] > v[order[j]]
			}
			return v[order[i]] < v[order[j]]
		})
		vb, ib := offsetOf(idx, vals.Strides), offsetOf(idx, inds.Strides)
		for j := 0; j < k; j++ {
			copyElem(vals, vb+j*vals.Strides[axis], x, base+order[j]*x.Strides[axis])
			storeI(inds, ib+j*inds.Strides[axis], int64(order[j]))
		}
	})
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
	outer := append([]int(nil), x.Shape...)
	outer[axis] = 1
	n := x.Shape[axis]
	forEachIndex(outer, func(idx []int) {
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
	})
	return nil
}
