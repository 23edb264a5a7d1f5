package expr

import (
	"fmt"
	"strconv"
	"strings"
)

// evalSource evaluates expression text directly, with Python's integer
// semantics and no simplification: the oracle for the canonical form.
func evalSource(src string, env Env) (int64, error) {
	o := &oracle{toks: tokenize(src), env: env}
	v := o.sum()
	if o.i != len(o.toks) {
		return 0, fmt.Errorf("trailing %q", o.toks[o.i])
	}
	return v, o.err
}

type oracle struct {
	toks []string
	i    int
	env  Env
	err  error
}

func tokenize(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ':
			i++
		case strings.HasPrefix(s[i:], "//"):
			out = append(out, "//")
			i += 2
		case isDigit(c) || isIdentStart(c):
			j := i
			for j < len(s) && (isDigit(s[j]) || isIdentStart(s[j])) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		default:
			out = append(out, string(c))
			i++
		}
	}
	return out
}

func (o *oracle) peek() string {
	if o.i < len(o.toks) {
		return o.toks[o.i]
	}
	return ""
}

func (o *oracle) sum() int64 {
	v := o.product()
	for o.peek() == "+" || o.peek() == "-" {
		op := o.toks[o.i]
		o.i++
		r := o.product()
		if op == "+" {
			v += r
		} else {
			v -= r
		}
	}
	return v
}

func (o *oracle) product() int64 {
	v := o.unary()
	for o.peek() == "*" || o.peek() == "//" || o.peek() == "%" {
		op := o.toks[o.i]
		o.i++
		r := o.unary()
		switch op {
		case "*":
			v *= r
		case "//":
			v = floorDivInt(v, r)
		default:
			v = floorModInt(v, r)
		}
	}
	return v
}

func (o *oracle) unary() int64 {
	if o.peek() == "-" {
		o.i++
		return -o.unary()
	}
	t := o.peek()
	o.i++
	if t == "(" {
		v := o.sum()
		o.i++ // )
		return v
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		return n
	}
	if t == "max" || t == "min" {
		o.i++ // (
		var vals []int64
		for {
			vals = append(vals, o.sum())
			if o.peek() == "," {
				o.i++
				continue
			}
			o.i++ // )
			break
		}
		m := vals[0]
		for _, x := range vals[1:] {
			if (t == "max") == (x > m) {
				m = x
			}
		}
		return m
	}
	v, ok := o.env[t]
	if !ok {
		o.err = fmt.Errorf("unbound %s", t)
	}
	return v
}
