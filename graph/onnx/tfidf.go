package onnx

import (
	"fmt"
	"slices"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// tfIdfVectorizer counts, in each row of a [C] or [N, C] integer input,
// the pool's n-grams (their items up to max_skip_count apart), into
// [max(ngram_indexes)+1] or [N, max(ngram_indexes)+1] floats. The kernel
// gets only the n-grams of the lengths counted, each length's sorted so
// that it can binary search them without building a table per call:
// "pool" holds them, "pool_starts" where each length's n-grams begin (the
// min_gram_length-grams first) and where the last end, "pool_indexes" the output
// coordinate of each. The weights, which format v1 cannot hold as a float
// list, pass as comma-separated text, "" when the mode uses none.
func tfIdfVectorizer(c *nodeCtx) error {
	if c.typedAttr("pool_strings", attrStrings) != nil {
		return unsup("pool_strings (string n-grams: format v1 has no string dtype)")
	}
	x := c.input(0)
	if x.dtype != "i32" && x.dtype != "i64" {
		return fmt.Errorf("input has dtype %s, want int32 or int64", x.dtype)
	}
	if len(x.shape) != 1 && len(x.shape) != 2 {
		return fmt.Errorf("input has shape %s, want [C] or [N, C]", shapeText(x.shape))
	}
	for _, name := range []string{"mode", "min_gram_length", "max_gram_length", "max_skip_count", "ngram_counts", "ngram_indexes", "pool_int64s"} {
		if c.attr(name) == nil {
			return fmt.Errorf("attribute %q is required", name)
		}
	}
	mode := c.attrString("mode", "")
	if mode != "TF" && mode != "IDF" && mode != "TFIDF" {
		return fmt.Errorf("mode %q, want TF, IDF or TFIDF", mode)
	}
	minN, maxN, skips := c.attrInt("min_gram_length", 0), c.attrInt("max_gram_length", 0), c.attrInt("max_skip_count", 0)
	if minN < 1 || maxN < minN || skips < 0 {
		return fmt.Errorf("min_gram_length %d, max_gram_length %d, max_skip_count %d: want 1 <= min <= max and skips >= 0", minN, maxN, skips)
	}
	counts, _ := c.attrInts("ngram_counts")
	indexes, _ := c.attrInts("ngram_indexes")
	pool, _ := c.attrInts("pool_int64s")

	// The pool's n-grams of length i+1 are pool[counts[i]:counts[i+1]]
	// (the last up to the end), numbered in pool order across lengths.
	type section struct{ n, lo, hi, first int }
	var secs []section
	total := 0
	for i, start := range counts {
		end := int64(len(pool))
		if i+1 < len(counts) {
			end = counts[i+1]
		}
		n := i + 1
		if start < 0 || start > end || end > int64(len(pool)) || (end-start)%int64(n) != 0 {
			return fmt.Errorf("ngram_counts %v do not split the %d items of pool_int64s into whole 1-grams, 2-grams…", counts, len(pool))
		}
		secs = append(secs, section{n, int(start), int(end), total})
		total += int(end-start) / n
	}
	if total == 0 || len(indexes) != total {
		return fmt.Errorf("ngram_indexes has %d entries for the %d n-grams of pool_int64s, want as many and at least one", len(indexes), total)
	}
	size := int64(0)
	for _, ix := range indexes {
		if ix < 0 {
			return fmt.Errorf("ngram_indexes %v has a negative entry", indexes)
		}
		size = max(size, ix+1)
	}

	var grams, at []int64
	starts := []int64{0}
	for _, s := range secs {
		if int64(s.n) < minN || int64(s.n) > maxN {
			continue
		}
		gram := func(j int) []int64 { return pool[s.lo+j*s.n : s.lo+(j+1)*s.n] }
		order := make([]int, (s.hi-s.lo)/s.n)
		for j := range order {
			order[j] = j
		}
		slices.SortFunc(order, func(a, b int) int { return slices.Compare(gram(a), gram(b)) })
		for k, j := range order {
			if k > 0 && slices.Equal(gram(j), gram(order[k-1])) {
				return fmt.Errorf("pool_int64s holds the %d-gram %v twice", s.n, gram(j))
			}
			grams = append(grams, gram(j)...)
			at = append(at, indexes[s.first+j])
		}
		starts = append(starts, int64(len(grams)))
	}

	// ONNX's reference and ONNX Runtime weight output coordinate i with
	// weights[i]; TF ignores the weights.
	weights := ""
	if w := c.attrFloats("weights"); mode != "TF" && len(w) > 0 {
		if len(w) != len(indexes) {
			return fmt.Errorf("weights has %d entries for %d n-grams, want one each", len(w), len(indexes))
		}
		if int64(len(w)) < size {
			return unsup("%d weights for %d output coordinates (ONNX's reference and ONNX Runtime read weights[i] for coordinate i, past the end here)", len(w), size)
		}
		weights = floatsText(w[:size])
	}

	c.emitString("mode", mode)
	c.emitInt("min_gram_length", minN)
	c.emitInt("max_skip_count", skips)
	c.emitInts("pool", grams)
	c.emitInts("pool_starts", starts)
	c.emitInts("pool_indexes", at)
	c.emitString("weights", weights)
	c.setOut(0, "f32", append(slices.Clone(x.shape[:len(x.shape)-1]), expr.Const(size)))
	return nil
}
