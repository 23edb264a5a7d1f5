package expr

import (
	"fmt"
	"strconv"
)

// SyntaxError locates a parse failure within the expression text.
type SyntaxError struct {
	Col int // 1-based column in the expression text
	Msg string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("column %d: %s", e.Col, e.Msg) }

// Parse reads an expression: integers, symbol names, + - * // %, parentheses,
// max(a, ...) and min(a, ...). The result is canonical. Constants that
// overflow int64 are syntax errors.
func Parse(src string) (Expr, error) {
	p := &parser{src: src}
	p.next()
	e := p.sum()
	if p.err == nil && p.tok != tokEOF {
		p.fail("unexpected %s", p.describe())
	}
	if p.err != nil {
		return Expr{}, p.err
	}
	if e.Overflowed() {
		return Expr{}, &SyntaxError{1, "constant part overflows int64"}
	}
	return e, nil
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokInt
	tokIdent
	tokOp // + - * // % ( ) ,
)

type parser struct {
	src string
	pos int
	// current token
	tok    tokKind
	text   string
	tokPos int
	err    error
}

func (p *parser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = &SyntaxError{p.tokPos + 1, fmt.Sprintf(format, args...)}
	}
}

func (p *parser) describe() string {
	if p.tok == tokEOF {
		return "end of expression"
	}
	return strconv.Quote(p.text)
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *parser) next() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
	p.tokPos = p.pos
	if p.pos >= len(p.src) {
		p.tok, p.text = tokEOF, ""
		return
	}
	c := p.src[p.pos]
	start := p.pos
	switch {
	case isDigit(c):
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
		}
		p.tok = tokInt
	case isIdentStart(c):
		for p.pos < len(p.src) && (isIdentStart(p.src[p.pos]) || isDigit(p.src[p.pos])) {
			p.pos++
		}
		p.tok = tokIdent
	case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
		p.pos += 2
		p.tok = tokOp
	case c == '+' || c == '-' || c == '*' || c == '%' || c == '(' || c == ')' || c == ',':
		p.pos++
		p.tok = tokOp
	default:
		p.pos++
		p.tok, p.text = tokOp, p.src[start:p.pos]
		if c == '/' {
			p.fail("single / is not an operator: use // for floor division")
		} else {
			p.fail("unexpected character %q", c)
		}
		return
	}
	p.text = p.src[start:p.pos]
}

func (p *parser) isOp(s string) bool { return p.tok == tokOp && p.text == s }

func (p *parser) sum() Expr {
	// One Add of every operand: adding them one at a time would rebuild the
	// growing sum each time (quadratic in its length).
	parts := []Expr{p.product()}
	for p.err == nil && (p.isOp("+") || p.isOp("-")) {
		neg := p.text == "-"
		p.next()
		r := p.product()
		if neg {
			r = Scale(r, -1)
		}
		parts = append(parts, r)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return Add(parts...)
}

func (p *parser) product() Expr {
	e := p.unary()
	for p.err == nil && (p.isOp("*") || p.isOp("//") || p.isOp("%")) {
		op, at := p.text, p.tokPos
		p.next()
		r := p.unary()
		var ok bool
		switch op {
		case "*":
			e, ok = Mul(e, r), true
		case "//":
			e, ok = FloorDiv(e, r)
		default:
			e, ok = Mod(e, r)
		}
		if !ok && p.err == nil {
			p.err = &SyntaxError{at + 1, "division by zero"}
		}
	}
	return e
}

func (p *parser) unary() Expr {
	if p.isOp("-") {
		p.next()
		return Scale(p.unary(), -1)
	}
	if p.isOp("+") {
		p.next()
		return p.unary()
	}
	return p.primary()
}

func (p *parser) primary() Expr {
	switch {
	case p.err != nil:
		return Expr{}
	case p.tok == tokInt:
		v, err := strconv.ParseInt(p.text, 10, 64)
		if err != nil {
			p.fail("integer %s overflows int64", p.text)
			return Expr{}
		}
		p.next()
		return Const(v)
	case p.tok == tokIdent:
		name := p.text
		p.next()
		if !p.isOp("(") {
			return Sym(name)
		}
		if name != "max" && name != "min" {
			p.fail("unknown function %q (only max and min)", name)
			return Expr{}
		}
		p.next()
		var args []Expr
		for p.err == nil {
			args = append(args, p.sum())
			if p.isOp(",") {
				p.next()
				continue
			}
			if !p.isOp(")") {
				p.fail("expected , or ) in %s(...), found %s", name, p.describe())
				return Expr{}
			}
			p.next()
			break
		}
		if name == "max" {
			return Max(args...)
		}
		return Min(args...)
	case p.isOp("("):
		p.next()
		e := p.sum()
		if p.err == nil && !p.isOp(")") {
			p.fail("expected ), found %s", p.describe())
		}
		p.next()
		return e
	default:
		p.fail("expected a number, a symbol or (, found %s", p.describe())
		return Expr{}
	}
}
