package onnx

import (
	"container/heap"
	"fmt"
	"math"
	"strings"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// The bound of a size computed at run time (a sizeExpr) over the ranges
// of the symbols it uses, by interval arithmetic refined by branch and
// bound: interval arithmetic alone loses that h * 640 / max(h, w) <= 640
// (h appears twice), but on a box where one symbol is a single value the
// remaining occurrences agree, so splitting the symbols' box, always
// along the split that lowers the bound most, closes in on the largest
// value the computation reaches. Each float operation widens its interval
// by float32's relative rounding, so the bound holds for the value the
// kernels compute.

// span is an interval of reals; ends may be infinite.
type span struct{ lo, hi float64 }

// roundSlack is the relative widening of a float operation's result: more
// than float32's half ulp, 2^-24.
const roundSlack = 1.0 / (1 << 21)

func widen(s span) span {
	return span{s.lo - math.Abs(s.lo)*roundSlack - 1e-30, s.hi + math.Abs(s.hi)*roundSlack + 1e-30}
}

// mulEnd is a*b where 0 times an infinity is 0 (the other factor's end
// is then exactly 0).
func mulEnd(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return a * b
}

func mulSpan(a, b span) span {
	p := [4]float64{mulEnd(a.lo, b.lo), mulEnd(a.lo, b.hi), mulEnd(a.hi, b.lo), mulEnd(a.hi, b.hi)}
	out := span{p[0], p[0]}
	for _, x := range p[1:] {
		out.lo, out.hi = min(out.lo, x), max(out.hi, x)
	}
	return out
}

func divSpan(a, b span) span {
	if b.lo <= 0 && b.hi >= 0 {
		return span{math.Inf(-1), math.Inf(1)}
	}
	return mulSpan(a, span{1 / b.hi, 1 / b.lo})
}

// eval is the interval of s over the symbol ranges b.
func (s *sizeExpr) eval(b expr.Bounds) span {
	switch s.op {
	case sizeExact:
		if s.isConst {
			return span{s.c, s.c}
		}
		if s.sym != "" {
			r, ok := b[s.sym]
			if !ok {
				return span{0, math.Inf(1)}
			}
			if r.Max < r.Min {
				return span{float64(r.Min), math.Inf(1)}
			}
			return span{float64(r.Min), float64(r.Max)}
		}
		out := span{math.Inf(-1), math.Inf(1)}
		if hi, ok := expr.UpperBound(s.exact, b); ok {
			out.hi = float64(hi)
		}
		if lo, ok := expr.UpperBound(s.negation(), b); ok {
			out.lo = -float64(lo)
		}
		return out
	case sizeConst:
		return span{s.c, s.c}
	case sizeData:
		out := span{math.Inf(-1), math.Inf(1)}
		if hi, ok := expr.UpperBound(s.most, b); ok && s.hasMost {
			out.hi = float64(hi)
		}
		if lo, ok := expr.UpperBound(s.negation(), b); ok && s.hasLeast {
			out.lo = -float64(lo)
		}
		return out
	}
	args := make([]span, len(s.args))
	for i, a := range s.args {
		args[i] = a.eval(b)
	}
	switch s.op {
	case sizeAdd:
		return span{args[0].lo + args[1].lo, args[0].hi + args[1].hi}
	case sizeSub:
		return span{args[0].lo - args[1].hi, args[0].hi - args[1].lo}
	case sizeMul:
		return mulSpan(args[0], args[1])
	case sizeDiv:
		return divSpan(args[0], args[1])
	case sizeMin, sizeMax:
		out := args[0]
		for _, a := range args[1:] {
			if s.op == sizeMin {
				out = span{min(out.lo, a.lo), min(out.hi, a.hi)}
			} else {
				out = span{max(out.lo, a.lo), max(out.hi, a.hi)}
			}
		}
		return out
	case sizeFloor:
		return span{math.Floor(args[0].lo), math.Floor(args[0].hi)}
	case sizeCeil:
		return span{math.Ceil(args[0].lo), math.Ceil(args[0].hi)}
	case sizeRound:
		return span{math.Floor(args[0].lo), math.Ceil(args[0].hi)}
	case sizeTrunc:
		return span{math.Trunc(args[0].lo), math.Trunc(args[0].hi)}
	case sizeFloat:
		return widen(args[0])
	}
	panic(fmt.Sprintf("sizeExpr op %d", s.op))
}

// box is a range per symbol of a sizeExpr, and the bound of its value there.
type box struct {
	ranges []expr.Range
	hi     float64
}

type boxHeap []*box

func (h boxHeap) Len() int           { return len(h) }
func (h boxHeap) Less(i, j int) bool { return h[i].hi > h[j].hi }
func (h boxHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *boxHeap) Push(x any)        { *h = append(*h, x.(*box)) }
func (h *boxHeap) Pop() any {
	old := *h
	b := old[len(old)-1]
	*h = old[:len(old)-1]
	return b
}

// maxBoxes bounds the boxes sizeBound evaluates for one size, and
// maxBoundWork the nodes evaluated by the searches of all the sizes of one
// model (a few KB of ONNX can hold dozens of sizes, each over dozens of
// symbols): past either, the bound is the largest over the boxes left
// (sound, only looser), and once a model's budget is spent each further
// size gets the bound interval arithmetic gives on its whole box. The
// budget is work, not time, so that an import is the same on any machine.
const (
	maxBoxes     = 200000
	maxBoundWork = 20_000_000
)

// sizeRange is the range of the integer s over the symbols' ranges: at
// least lo (and 0), at most hi, or an error naming the symbols that need a
// -max when no finite hi follows.
func (im *importer) sizeRange(s *sizeExpr) (lo, hi int64, err error) {
	if hi, err = im.sizeBound(s); err != nil {
		return 0, 0, err
	}
	neg, err := im.sizeBound(&sizeExpr{op: sizeSub, args: []*sizeExpr{exactSize(expr.Const(0)), s}})
	if err != nil || neg > 0 {
		return 0, hi, nil
	}
	return min(-neg, hi), hi, nil
}

// sizeBound is an upper bound of s over the symbols' ranges, floored,
// or an error naming the symbols that need a -max when none is finite.
func (im *importer) sizeBound(s *sizeExpr) (int64, error) {
	syms := s.symbols()
	at := func(ranges []expr.Range) expr.Bounds {
		b := expr.Bounds{}
		for i, n := range syms {
			b[n] = ranges[i]
		}
		return b
	}
	root := &box{ranges: make([]expr.Range, len(syms))}
	var unbounded []string
	for i, n := range syms {
		r, ok := im.bounds[n]
		if !ok {
			r = expr.Range{Min: 0, Max: -1}
		}
		if r.Max < r.Min {
			unbounded = append(unbounded, n)
		}
		root.ranges[i] = r
	}
	root.hi = upper(s.eval(at(root.ranges)))
	if len(unbounded) > 0 && (math.IsInf(root.hi, 1) || math.IsNaN(root.hi) || root.hi > maxDim) {
		return 0, fmt.Errorf("it has no finite bound over the sizes %s it is computed from: give each a largest value (-max %s=N)", strings.Join(unbounded, ", "), strings.Join(unbounded, "=N -max "))
	}
	if len(unbounded) > 0 {
		return finiteBound(root.hi, syms)
	}
	cost := s.evalCost() // of one evaluation
	best := math.Inf(-1) // a value s surely reaches: the low end at a box's first corner
	corner := func(b *box) {
		im.boundWork += cost
		pt := make([]expr.Range, len(b.ranges))
		for i, r := range b.ranges {
			pt[i] = expr.Range{Min: r.Min, Max: r.Min}
		}
		if lo := s.eval(at(pt)).lo; !math.IsNaN(lo) {
			best = max(best, lo)
		}
	}
	corner(root)
	h := &boxHeap{root}
	done := math.Inf(-1) // the largest bound of a box that is a single point
	for evals := 0; h.Len() > 0 && evals < maxBoxes && im.boundWork < maxBoundWork; {
		b := heap.Pop(h).(*box)
		if b.hi <= done || math.Floor(b.hi) <= math.Floor(best)+1 {
			// No box left can raise the bound past one above a reached value.
			heap.Push(h, b)
			break
		}
		// Split along the symbol whose halves have the lower larger bound.
		var pick []*box
		pickHi := math.Inf(1)
		for i, r := range b.ranges {
			if r.Max <= r.Min {
				continue
			}
			mid := r.Min + (r.Max-r.Min)/2
			halves := []*box{{ranges: append([]expr.Range{}, b.ranges...)}, {ranges: append([]expr.Range{}, b.ranges...)}}
			halves[0].ranges[i] = expr.Range{Min: r.Min, Max: mid}
			halves[1].ranges[i] = expr.Range{Min: mid + 1, Max: r.Max}
			worst := math.Inf(-1)
			for _, c := range halves {
				c.hi = upper(s.eval(at(c.ranges)))
				evals++
				im.boundWork += cost
				worst = max(worst, c.hi)
			}
			if pick == nil || worst < pickHi {
				pick, pickHi = halves, worst
			}
		}
		if pick == nil {
			done = max(done, b.hi) // a single point: its bound is final
			continue
		}
		for _, c := range pick {
			corner(c)
			heap.Push(h, c)
		}
	}
	hi := done
	if h.Len() > 0 {
		hi = max(hi, (*h)[0].hi)
	}
	return finiteBound(hi, syms)
}

// upper is sp's high end, +Inf when NaN (inf - inf: nothing is known),
// so that boxes stay ordered.
func upper(sp span) float64 {
	if math.IsNaN(sp.hi) {
		return math.Inf(1)
	}
	return sp.hi
}

// finiteBound is floor(hi) when finite and within the sizes wrapgen
// plans; else an error naming the symbols whose ranges gave it.
func finiteBound(hi float64, syms []string) (int64, error) {
	if math.IsNaN(hi) || hi > maxDim || hi < -maxDim {
		return 0, fmt.Errorf("its largest value over the ranges of the sizes %s it is computed from is beyond %d: give them smaller largest values (-max %s=N)", strings.Join(syms, ", "), int64(maxDim), strings.Join(syms, "=N -max "))
	}
	return int64(math.Floor(hi)), nil
}
