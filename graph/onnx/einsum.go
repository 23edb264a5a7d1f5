package onnx

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// einsum: the output's shape from the equation's labels ("..." broadcast
// across the operands; without "->", the labels that appear once, sorted,
// after the ellipsis). The kernel gets the equation in its explicit form
// and reads it itself.
func einsum(c *nodeCtx) error {
	eq := strings.ReplaceAll(c.attrString("equation", ""), " ", "")
	if eq == "" {
		return fmt.Errorf("attribute \"equation\" is required")
	}
	lhs, rhs, explicit := strings.Cut(eq, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != c.nIn() {
		return fmt.Errorf("equation %q has %d operands, the node %d inputs", eq, len(terms), c.nIn())
	}
	sizes := map[byte]expr.Expr{}
	count := map[byte]int{}
	var ellipsis []expr.Expr // broadcast, right-aligned
	for k, term := range terms {
		x := c.input(k)
		before, after, hasDots := strings.Cut(term, "...")
		n := len(before) + len(after)
		if n > len(x.shape) || (!hasDots && n != len(x.shape)) {
			return fmt.Errorf("operand %d %q does not fit rank %d", k, term, len(x.shape))
		}
		dots := x.shape[len(before) : len(x.shape)-len(after)]
		ellipsis = broadcastDims(ellipsis, dots)
		for i, l := range []byte(before + after) {
			if !(l >= 'a' && l <= 'z' || l >= 'A' && l <= 'Z') {
				return fmt.Errorf("equation %q: %q is not a label", eq, l)
			}
			d := x.shape[i]
			if i >= len(before) {
				d = x.shape[len(x.shape)-len(after)+i-len(before)]
			}
			if prev, ok := sizes[l]; ok && !expr.Equal(prev, d) {
				if c1, ok1 := prev.IsConst(); ok1 && c1 == 1 {
					sizes[l] = d
				} else if c2, ok2 := d.IsConst(); !ok2 || c2 != 1 {
					return fmt.Errorf("label %c is %s and %s", l, prev, d)
				}
			} else if !ok {
				sizes[l] = d
			}
			count[l]++
		}
	}
	if !explicit {
		var once []byte
		for l, n := range count {
			if n == 1 {
				once = append(once, l)
			}
		}
		sort.Slice(once, func(i, j int) bool { return once[i] < once[j] })
		rhs = string(once)
		if strings.Contains(lhs, "...") {
			rhs = "..." + rhs
		}
	}
	var shape []expr.Expr
	before, after, hasDots := strings.Cut(rhs, "...")
	if !hasDots {
		before = rhs
	}
	for _, l := range []byte(before) {
		d, ok := sizes[l]
		if !ok {
			return fmt.Errorf("output label %c is in no operand", l)
		}
		shape = append(shape, d)
	}
	if hasDots {
		shape = append(shape, ellipsis...)
		for _, l := range []byte(after) {
			d, ok := sizes[l]
			if !ok {
				return fmt.Errorf("output label %c is in no operand", l)
			}
			shape = append(shape, d)
		}
	}
	if shape == nil {
		shape = []expr.Expr{}
	}
	c.emitString("equation", lhs+"->"+rhs)
	c.setOut(0, c.input(0).dtype, shape)
	return nil
}

// broadcastDims broadcasts two right-aligned dimension lists (a 1
// stretches; symbolic dimensions are taken to agree).
func broadcastDims(a, b []expr.Expr) []expr.Expr {
	if len(b) > len(a) {
		a, b = b, a
	}
	out := append([]expr.Expr(nil), a...)
	off := len(a) - len(b)
	for i, d := range b {
		if c, ok := out[off+i].IsConst(); ok && c == 1 {
			out[off+i] = d
		}
	}
	return out
}
