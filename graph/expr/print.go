package expr

import "strings"

// Style says how to print an Expr as source in some language. Empty function
// names print the format's own infix operators (// and %).
type Style struct {
	Name     func(sym string) string // identifier for a symbol; nil keeps the name
	FloorDiv string                  // function taking (a, b); "" prints a//b
	Mod      string                  // function taking (a, b); "" prints a%b
	Max, Min func(args []string) string
	Int      func(c int64) string // nil prints decimal
	// canonical marks the format's own style, whose text of an argument is
	// its String, rendered once.
	canonical bool
}

var plainStyle = Style{
	Max:       func(a []string) string { return "max(" + strings.Join(a, ", ") + ")" },
	Min:       func(a []string) string { return "min(" + strings.Join(a, ", ") + ")" },
	canonical: true,
}

// argText prints an argument of an atom in s.
func argText(x Expr, s Style) string {
	if s.canonical {
		return x.String()
	}
	return x.Format(s)
}

// Format prints e in the given style.
func (e Expr) Format(s Style) string {
	if e.p == nil {
		return s.intText(0)
	}
	return render(e.p.terms, s)
}

func (s Style) intText(c int64) string {
	if s.Int != nil {
		return s.Int(c)
	}
	return formatInt(c)
}

func render(ts []term, s Style) string {
	if len(ts) == 0 {
		return s.intText(0)
	}
	var b strings.Builder
	for i, t := range ts {
		c := t.coef
		if i > 0 {
			if c < 0 {
				b.WriteString(" - ")
				c = -c
			} else {
				b.WriteString(" + ")
			}
		} else if c < 0 && len(t.mono) > 0 {
			b.WriteString("-")
			c = -c
			if c == 1 && len(t.mono) == 1 && t.mono[0].isInfix(s) {
				// Unary minus binds tighter than // and %: -(7%a) is not -7%a.
				b.WriteString("(" + termText(c, t.mono, s) + ")")
				continue
			}
		}
		b.WriteString(termText(c, t.mono, s))
	}
	return b.String()
}

// termText prints c × mono; c is non-negative unless mono is empty.
func termText(c int64, mono []*atom, s Style) string {
	if len(mono) == 0 {
		return s.intText(c)
	}
	var parts []string
	if c != 1 {
		parts = append(parts, s.intText(c))
	}
	for _, a := range mono {
		txt := atomText(a, s)
		if (len(mono) > 1 || c != 1) && a.isInfix(s) {
			txt = "(" + txt + ")"
		}
		parts = append(parts, txt)
	}
	return strings.Join(parts, "*")
}

func (a *atom) isInfix(s Style) bool {
	return (a.kind == atomFloorDiv && s.FloorDiv == "") || (a.kind == atomMod && s.Mod == "")
}

func atomText(a *atom, s Style) string {
	switch a.kind {
	case atomSym:
		if s.Name != nil {
			return s.Name(a.name)
		}
		return a.name
	case atomFloorDiv, atomMod:
		op, fn := "//", s.FloorDiv
		if a.kind == atomMod {
			op, fn = "%", s.Mod
		}
		l, r := argText(a.args[0], s), argText(a.args[1], s)
		if fn != "" {
			return fn + "(" + l + ", " + r + ")"
		}
		if len(a.args[0].terms()) > 1 || hasNegLead(a.args[0]) {
			l = "(" + l + ")"
		}
		if !simpleOperand(a.args[1]) {
			r = "(" + r + ")"
		}
		return l + op + r
	default:
		args := make([]string, len(a.args))
		for i, x := range a.args {
			args[i] = argText(x, s)
		}
		if a.kind == atomMax {
			return s.Max(args)
		}
		return s.Min(args)
	}
}

func hasNegLead(e Expr) bool {
	ts := e.terms()
	return len(ts) > 0 && ts[0].coef < 0
}

// simpleOperand reports whether e prints as a constant, a symbol or a call.
func simpleOperand(e Expr) bool {
	if c, ok := e.IsConst(); ok {
		return c >= 0
	}
	a := soleAtom(e)
	return a != nil && (a.kind == atomSym || a.kind == atomMax || a.kind == atomMin)
}
