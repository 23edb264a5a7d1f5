package wgref

import (
	"fmt"
	"strconv"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func init() { register("TfIdfVectorizer", tfIdfVectorizer) }

// tfIdfVectorizer counts, in each row of X ([C] or [N, C], integers), the
// n-grams of "pool" (graph/onnx/tfidf.go: each length's sorted, from
// min_gram_length on, bounded by "pool_starts"), their items d apart for
// d = 1..max_skip_count+1 (a 1-gram once), adding 1 to Y at the n-gram's
// output coordinate ("pool_indexes"), then weights the counts as ONNX's
// reference does: TF keeps them, IDF turns those above 0 into the weight
// (1 without weights), TFIDF multiplies them by it.
func tfIdfVectorizer(c *wgrt.Call) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	a := attrsOf(c)
	mode, minN, skips := a.String("mode"), a.Int("min_gram_length"), a.Int("max_skip_count")
	pool, starts, at := a.Ints("pool"), a.Ints("pool_starts"), a.Ints("pool_indexes")
	weights := a.String("weights")
	if a.err != nil {
		return fmt.Errorf("%s: %w", c.Kernel, a.err)
	}
	if mode != "TF" && mode != "IDF" && mode != "TFIDF" || minN < 1 || skips < 0 {
		return fmt.Errorf("%s: mode %q, min_gram_length %d, max_skip_count %d: want TF, IDF or TFIDF, at least 1, at least 0", c.Kernel, mode, minN, skips)
	}
	x, y := c.Inputs[0], c.Outputs[0]
	if familyOf(x.DType) != famInt {
		return unsupported(c, x.DType)
	}
	if len(x.Shape) != len(y.Shape) || len(x.Shape) < 1 || len(x.Shape) > 2 || len(x.Shape) == 2 && x.Shape[0] != y.Shape[0] {
		return fmt.Errorf("%s: input %v and output %v, want [C] and [K] or [N, C] and [N, K]", c.Kernel, x.Shape, y.Shape)
	}
	if len(starts) == 0 || starts[0] != 0 || starts[len(starts)-1] != len(pool) {
		return fmt.Errorf("%s: pool_starts %v do not bound the %d pool items", c.Kernel, starts, len(pool))
	}
	grams := 0
	for k := 1; k < len(starts); k++ {
		n := minN + k - 1
		if starts[k] < starts[k-1] || (starts[k]-starts[k-1])%n != 0 {
			return fmt.Errorf("%s: pool_starts %v do not hold whole n-grams from %d-grams on", c.Kernel, starts, minN)
		}
		grams += (starts[k] - starts[k-1]) / n
	}
	if len(at) != grams {
		return fmt.Errorf("%s: %d pool_indexes for %d n-grams", c.Kernel, len(at), grams)
	}

	// Rows and steps in elements: a 1-D tensor is one row.
	rank := len(x.Shape)
	rows, cols, size := 1, x.Shape[rank-1], y.Shape[rank-1]
	xRow, xStep, yRow, yStep := 0, x.Strides[rank-1], 0, y.Strides[rank-1]
	if rank == 2 {
		rows, xRow, yRow = x.Shape[0], x.Strides[0], y.Strides[0]
	}
	for r := range rows {
		for i := range size {
			storeF(y, r*yRow+i*yStep, 0)
		}
	}
	id0 := 0 // the section's first n-gram, in pool_indexes
	for k := 1; k < len(starts); k++ {
		n, sec := minN+k-1, pool[starts[k-1]:starts[k]]
		maxD := skips + 1
		if n == 1 {
			maxD = 1 // a 1-gram has no gaps: counted once
		}
		for r := range rows {
			for d := 1; d <= maxD && (n-1)*d < cols; d++ {
				for s := 0; s+(n-1)*d < cols; s++ {
					j := findGram(sec, n, x, r*xRow+s*xStep, d*xStep)
					if j < 0 {
						continue
					}
					ix := at[id0+j]
					if ix < 0 || ix >= size {
						return fmt.Errorf("%s: output coordinate %d out of [0, %d)", c.Kernel, ix, size)
					}
					o := r*yRow + ix*yStep
					storeF(y, o, loadF(y, o)+1)
				}
			}
		}
		id0 += len(sec) / n
	}

	weigh := func(i int, w float64) {
		for r := range rows {
			o := r*yRow + i*yStep
			v := loadF(y, o)
			if mode == "IDF" && v > 0 {
				v = 1
			}
			storeF(y, o, v*w)
		}
	}
	switch {
	case mode != "TF" && weights != "":
		var bad error
		fields(weights, func(i int, field string) {
			w, err := strconv.ParseFloat(field, 64)
			if err != nil && bad == nil {
				bad = fmt.Errorf("%s: weights %q: %w", c.Kernel, weights, err)
			}
			if i < size {
				weigh(i, w)
			}
		})
		return bad
	case mode == "IDF":
		for i := range size {
			weigh(i, 1)
		}
	}
	return nil
}

// findGram is the index of the n-gram of sec (sorted n-grams, n items
// each) equal to the n items of x at off, off+step…, or -1.
func findGram(sec []int, n int, x wgrt.Tensor, off, step int) int {
	lo, hi := 0, len(sec)/n
	for lo < hi {
		mid := (lo + hi) / 2
		cmp := 0
		for k, v := range sec[mid*n : (mid+1)*n] {
			if xv := loadI(x, off+k*step); int64(v) != xv {
				cmp = 1
				if int64(v) < xv {
					cmp = -1
				}
				break
			}
		}
		switch {
		case cmp == 0:
			return mid
		case cmp < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return -1
}
