package onnx

import (
	"fmt"
	"maps"
	"math"
	"strings"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// Sizes computed in float arithmetic on symbolic sizes: interpolate's
// scale_factor exports floor(float(h) * 1.5) (Shape, Cast to float, Mul,
// Floor, Cast back) as a Resize's sizes. Float arithmetic on integers is
// exact while every value it makes is representable: the float a size is
// cast to is the size, and x * c for a float constant c = p/2^k (every
// float is one) is exactly x*p/2^k while x*p fits the significand. So the
// importer follows such values as exact ratios num/den of a symbolic
// integer and a power of two, and Floor, Ceil and Cast back to an integer
// give a symbolic integer: floor(float(h) * 1.5) is (3*h)//2. Where
// exactness needs the sizes small enough, the import bounds their symbol
// (a max, noted, as it raises minima for convolutions), unless the user
// gave one that is too large: then the value stays computed at run time.

// ratio is the exact value num/den (den > 0, a power of two) of a float
// computed from sizes.
type ratio struct {
	num expr.Expr
	den int64
}

// significandBits is how many bits of an integer a float dtype holds
// exactly.
func significandBits(d string) (int, bool) {
	switch d {
	case "f32":
		return 24, true
	case "f64":
		return 53, true
	}
	return 0, false
}

// ratiosOf is v's elements as exact ratios: a float value known as
// integers (ints on a float dtype: what foldFloatSizes makes) or one
// foldFloatSizes follows; false otherwise.
func ratiosOf(v *value) ([]ratio, bool) {
	if v == nil {
		return nil, false
	}
	if v.ratios != nil {
		return v.ratios, true
	}
	if v.known && v.ints != nil {
		out := make([]ratio, len(v.ints))
		for i, e := range v.ints {
			out[i] = ratio{e, 1}
		}
		return out, true
	}
	return nil, false
}

// setRatios sets output 0 to the ratios rs: known integers when every
// denominator is 1, else followed as ratios (and computed at run time by
// the op's kernel too, for any use that needs the float).
func (c *nodeCtx) setRatios(rs []ratio) {
	out := c.outs[0]
	if out == nil {
		return
	}
	s, ok := concrete(out.shape)
	if !ok || numel(s) != int64(len(rs)) {
		return
	}
	whole := true
	for _, r := range rs {
		whole = whole && r.den == 1
	}
	if whole {
		ints := make([]expr.Expr, len(rs))
		for i, r := range rs {
			ints[i] = r.num
		}
		out.known, out.ints = true, ints
		return
	}
	out.ratios = rs
}

// foldFloatSizes follows exact float arithmetic on sizes through node c
// (see above), before finish decides whether c needs a kernel.
func (im *importer) foldFloatSizes(c *nodeCtx) {
	if len(c.outs) == 0 || c.outs[0] == nil || c.outs[0].known || c.n.domain != "" || len(c.ins) == 0 {
		return
	}
	// Why a size computed in float did not fold follows it to the op
	// that needs it (neededAtImport says it).
	im.inexact = ""
	defer func() {
		out := c.outs[0]
		if out.known {
			return
		}
		out.inexact = im.inexact
		for _, in := range c.ins {
			if out.inexact == "" && in != nil {
				out.inexact = in.inexact
			}
		}
	}()
	out := c.outs[0]
	bits, isFloat := significandBits(string(out.dtype))
	x := c.ins[0]
	switch c.n.opType {
	case "Cast":
		if x == nil {
			return
		}
		if isFloat && x.known && x.ints != nil && isIntDType(x.dtype) {
			// A size in a float: exact while it fits the significand.
			for _, e := range x.ints {
				if !im.fitsSignificand(e, bits, "cast to "+string(out.dtype)) {
					return
				}
			}
			c.setRatios(ratiosFrom(x.ints))
			return
		}
		rs, ok := ratiosOf(x)
		if !ok || x.known {
			return
		}
		if isFloat {
			// Float to float: exact while the target holds it.
			for _, r := range rs {
				if !im.fitsSignificand(r.num, bits, "cast to "+string(out.dtype)) {
					return
				}
			}
			c.setRatios(rs)
			return
		}
		if !isIntDType(out.dtype) || out.dtype == "bool" {
			return
		}
		// Cast to an integer truncates: floor for values >= 0.
		ints := make([]expr.Expr, len(rs))
		for i, r := range rs {
			if !expr.NonNeg(r.num, im.bounds) {
				return
			}
			ints[i], _ = expr.FloorDiv(r.num, expr.Const(r.den))
		}
		out.known, out.ints = true, ints
	case "Floor", "Ceil":
		rs, ok := ratiosOf(x)
		if !ok || !isFloat {
			return
		}
		whole := make([]ratio, len(rs))
		for i, r := range rs {
			num := r.num
			if c.n.opType == "Ceil" {
				num = expr.Add(num, expr.Const(r.den-1))
			}
			q, _ := expr.FloorDiv(num, expr.Const(r.den))
			whole[i] = ratio{q, 1}
		}
		c.setRatios(whole)
	case "Mul", "Div":
		if !isFloat || len(c.ins) != 2 {
			return
		}
		rs, ok := ratiosOf(c.ins[0])
		k := c.ins[1]
		if !ok {
			if c.n.opType == "Div" {
				return
			}
			rs, ok = ratiosOf(c.ins[1])
			k = c.ins[0]
		}
		// One multiplier for every element, or one per element (a
		// scale per axis); setRatios keeps the result only when the
		// output has as many elements, so broadcasting made no more.
		if !ok || k == nil || !k.known || len(k.floats) == 0 || (len(k.floats) != 1 && len(rs) != 1 && len(k.floats) != len(rs)) {
			return
		}
		n := len(rs)
		if n == 1 {
			n = len(k.floats)
		}
		res := make([]ratio, n)
		for i := range res {
			r, f := rs[min(i, len(rs)-1)], k.floats[min(i, len(k.floats)-1)]
			p, shift, ok := dyadic(f)
			if !ok || p <= 0 {
				return
			}
			var num expr.Expr
			den := r.den
			if c.n.opType == "Mul" {
				// x * p*2^shift.
				num = expr.Scale(r.num, p)
				if shift >= 0 {
					num = expr.Scale(num, int64(1)<<shift)
				} else {
					den <<= -shift
				}
			} else {
				// x / c is exact only for c a power of two.
				if p != 1 {
					return
				}
				num = r.num
				if shift <= 0 {
					num = expr.Scale(num, int64(1)<<-shift)
				} else {
					den <<= shift
				}
			}
			if den <= 0 || den > 1<<40 || num.Overflowed() {
				return
			}
			if !im.fitsSignificand(num, bits, fmt.Sprintf("%s computed in %s", c.n.opType, out.dtype)) {
				return
			}
			res[i] = reduceRatio(ratio{num, den})
		}
		c.setRatios(res)
	}
}

func ratiosFrom(ints []expr.Expr) []ratio {
	out := make([]ratio, len(ints))
	for i, e := range ints {
		out[i] = ratio{e, 1}
	}
	return out
}

// reduceRatio divides num and den by 2 while num stays a whole multiple.
func reduceRatio(r ratio) ratio {
	for r.den > 1 {
		h, ok := expr.FloorDiv(r.num, expr.Const(2))
		if !ok || !expr.Equal(expr.Scale(h, 2), r.num) {
			break
		}
		r = ratio{h, r.den / 2}
	}
	return r
}

// dyadic writes a finite f as p * 2^shift with p odd (or 0).
func dyadic(f float64) (p int64, shift int, ok bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, 0, false
	}
	if f == 0 {
		return 0, 0, true
	}
	frac, exp := math.Frexp(f) // f = frac * 2^exp, 0.5 <= |frac| < 1
	m := int64(frac * (1 << 53))
	shift = exp - 53
	for m%2 == 0 {
		m /= 2
		shift++
	}
	if shift > 40 || shift < -40 || m > 1<<40 || m < -(1<<40) {
		return 0, 0, false
	}
	return m, shift, true
}

// minExactMax is the smallest max the import gives a symbol for
// exactness: a float constant like 0.1 (13421773/2^27 in float32) would
// need tiny sizes, and is left to the kernels instead.
const minExactMax = 1 << 16

// fitsSignificand makes sure 0 <= e < 2^bits for every symbol value, so
// that a float holds it exactly: proven from the symbols' ranges, or by
// giving e's one symbol, when the user set no max for it, the largest max
// that proves it (noted). False when neither works: the value is then
// left to the kernels.
func (im *importer) fitsSignificand(e expr.Expr, bits int, what string) bool {
	limit := expr.Const(int64(1)<<bits - 1)
	if !expr.NonNeg(e, im.bounds) {
		return false
	}
	if expr.LessEq(e, limit, im.bounds) {
		return true
	}
	syms := e.Symbols()
	if len(syms) != 1 {
		return false
	}
	s := syms[0]
	if _, rt := im.runTime[s]; rt {
		return false
	}
	r := im.bounds[s]
	userMax, userSet := im.opts.Max[s]
	if userSet {
		r.Max = -1 // what max would do, for the message
	}
	proven := func(v int64) bool {
		b := maps.Clone(im.bounds)
		b[s] = expr.Range{Min: r.Min, Max: v}
		return expr.LessEq(e, limit, b)
	}
	// The largest max that proves it, by bisection (a smaller max never
	// makes the proof harder).
	lo, hi := r.Min, int64(1)<<bits
	if r.Max >= 0 {
		hi = min(hi, r.Max) // a max set before for another value stays
	}
	if !proven(max(lo, minExactMax)) {
		return false // exact only for sizes too small to impose
	}
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if proven(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if userSet {
		im.inexact = fmt.Sprintf("%s (%s) is exact in %d bits only for %s up to %d, below its -max %d: -max %s=%d would fold it", what, e, bits, s, lo, userMax, s, lo)
		return false
	}
	im.bounds[s] = expr.Range{Min: r.Min, Max: lo}
	for i := range im.doc.symbols {
		if sym := &im.doc.symbols[i]; sym.name == s {
			sym.max = lo
			sym.hint = min(sym.hint, lo)
		}
	}
	// One note per symbol, its last (smallest) max.
	notes := im.notes[:0]
	for _, n := range im.notes {
		if !strings.HasPrefix(n, "symbol "+s+": max ") {
			notes = append(notes, n)
		}
	}
	im.notes = notes
	im.noteOnce("max "+s, fmt.Sprintf("symbol %s: max %d, so that %s (%s) is exact (-max %s=N sets it)", s, lo, what, e, s))
	return true
}
