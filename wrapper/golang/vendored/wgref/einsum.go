package wgref

import (
	"fmt"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func init() { register("Einsum", einsumKernel) }

// Label numbering: letters a-z, A-Z are 0..51; the dimensions "..."
// stands for are 52 on, right-aligned across the operands.
const (
	letterLabels = 52
	maxLabels    = letterLabels + maxRank
	maxOperandsE = 8
)

func labelOf(b byte) int {
	switch {
	case b >= 'a' && b <= 'z':
		return int(b - 'a')
	case b >= 'A' && b <= 'Z':
		return 26 + int(b-'A')
	}
	return -1
}

// einsumTerm is one side of the equation for one tensor: the label of
// each dimension.
type einsumTerm struct {
	n      int
	labels [maxRank]int
}

// parseTerm reads term (letters with at most one "...") for a tensor of
// rank r whose "..." covers the last of e ellipsis labels.
func parseTerm(term string, r, e int) (einsumTerm, error) {
	var t einsumTerm
	dots := -1
	letters := 0
	for i := 0; i < len(term); i++ {
		if term[i] == '.' {
			if dots >= 0 || i+3 > len(term) || term[i:i+3] != "..." {
				return t, fmt.Errorf("bad ellipsis in %q", term)
			}
			dots = i
			i += 2
			continue
		}
		if labelOf(term[i]) < 0 {
			return t, fmt.Errorf("%q is not a label", term[i])
		}
		letters++
	}
	span := r - letters // dimensions "..." covers
	if span < 0 || (dots < 0 && span != 0) || r > maxRank {
		return t, fmt.Errorf("%q does not fit rank %d", term, r)
	}
	for i := 0; i < len(term); i++ {
		if term[i] == '.' {
			for j := 0; j < span; j++ {
				t.labels[t.n] = letterLabels + e - span + j
				t.n++
			}
			i += 2
			continue
		}
		t.labels[t.n] = labelOf(term[i])
		t.n++
	}
	return t, nil
}

// einsumKernel sums, for each output element, the product of the operands'
// elements over every value of the labels the output does not keep.
func einsumKernel(c *wgrt.Call) error {
	if len(c.Outputs) != 1 || len(c.Inputs) == 0 || len(c.Inputs) > maxOperandsE {
		return fmt.Errorf("%s: want 1 output and 1 to %d inputs", c.Kernel, maxOperandsE)
	}
	a := attrsOf(c)
	eq := a.String("equation")
	if a.err != nil {
		return a.err
	}
	out := c.Outputs[0]
	// Split "lhs->rhs" and the operands without allocating.
	arrow := -1
	for i := 0; i+1 < len(eq); i++ {
		if eq[i] == '-' && eq[i+1] == '>' {
			arrow = i
		}
	}
	if arrow < 0 {
		return fmt.Errorf("%s: equation %q is not explicit", c.Kernel, eq)
	}
	lhs, rhs := eq[:arrow], eq[arrow+2:]
	// The ellipsis rank: the most dimensions "..." covers in any operand.
	var terms [maxOperandsE]string
	nt, start := 0, 0
	for i := 0; i <= len(lhs); i++ {
		if i == len(lhs) || lhs[i] == ',' {
			if nt == maxOperandsE {
				return fmt.Errorf("%s: too many operands", c.Kernel)
			}
			terms[nt] = lhs[start:i]
			nt, start = nt+1, i+1
		}
	}
	if nt != len(c.Inputs) {
		return fmt.Errorf("%s: %d operands for %d inputs", c.Kernel, nt, len(c.Inputs))
	}
	e := 0
	for k := 0; k < nt; k++ {
		letters := 0
		for i := 0; i < len(terms[k]); i++ {
			if labelOf(terms[k][i]) >= 0 {
				letters++
			}
		}
		e = max(e, len(c.Inputs[k].Shape)-letters)
	}
	var ops [maxOperandsE]einsumTerm
	var size [maxLabels]int
	var used [maxLabels]bool
	for l := range size {
		size[l] = 1
	}
	for k := 0; k < nt; k++ {
		t, err := parseTerm(terms[k], len(c.Inputs[k].Shape), e)
		if err != nil {
			return fmt.Errorf("%s: operand %d: %v", c.Kernel, k, err)
		}
		ops[k] = t
		for i := 0; i < t.n; i++ {
			l, d := t.labels[i], c.Inputs[k].Shape[i]
			if used[l] && size[l] != d && size[l] != 1 && d != 1 {
				return fmt.Errorf("%s: label sizes %d and %d differ", c.Kernel, size[l], d)
			}
			if !used[l] || size[l] == 1 {
				size[l] = d
			}
			used[l] = true
		}
	}
	ot, err := parseTerm(rhs, len(out.Shape), e)
	if err != nil {
		return fmt.Errorf("%s: output: %v", c.Kernel, err)
	}
	var kept [maxLabels]bool
	for i := 0; i < ot.n; i++ {
		kept[ot.labels[i]] = true
	}
	// The summed labels, and their sizes as a shape to walk.
	var sumLabels [maxLabels]int
	var sumShape [maxLabels]int
	ns := 0
	for l := 0; l < maxLabels; l++ {
		if used[l] && !kept[l] {
			sumLabels[ns], sumShape[ns] = l, size[l]
			ns++
		}
	}
	if ns > maxRank {
		return fmt.Errorf("%s: more than %d summed labels", c.Kernel, maxRank)
	}
	float := familyOf(out.DType) == famFloat
	var val [maxLabels]int
	for o := range indices(out.Shape) {
		for i := 0; i < ot.n; i++ {
			val[ot.labels[i]] = o[i]
		}
		sf, si := 0.0, int64(0)
		for s := range indices(sumShape[:ns]) {
			for j := 0; j < ns; j++ {
				val[sumLabels[j]] = s[j]
			}
			pf, pi := 1.0, int64(1)
			for k := 0; k < nt; k++ {
				x := c.Inputs[k]
				off := 0
				for i := 0; i < ops[k].n; i++ {
					if x.Shape[i] != 1 {
						off += val[ops[k].labels[i]] * x.Strides[i]
					}
				}
				if float {
					pf *= loadF(x, off)
				} else {
					pi *= loadI(x, off)
				}
			}
			sf += pf
			si += pi
		}
		if float {
			storeF(out, offsetOf(o, out.Strides), sf)
		} else {
			storeI(out, offsetOf(o, out.Strides), si)
		}
	}
	return nil
}
