package expr

import (
	"fmt"
	"math/big"
	"strings"
)

// evalSource evaluates expression text directly, with Python's integer
// semantics (exact, in big integers) and no simplification: the oracle for
// the canonical form. A result outside int64 is an error.
func evalSource(src string, env Env) (int64, error) {
	o := &oracle{toks: tokenize(src), env: env}
	v := o.sum()
	if o.i != len(o.toks) {
		return 0, fmt.Errorf("the oracle could not follow %q", src)
	}
	if o.err == nil && !v.IsInt64() {
		return 0, fmt.Errorf("overflow")
	}
	return v.Int64(), o.err
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

func (o *oracle) sum() *big.Int {
	v := o.product()
	for o.peek() == "+" || o.peek() == "-" {
		op := o.toks[o.i]
		o.i++
		r := o.product()
		if op == "+" {
			v = new(big.Int).Add(v, r)
		} else {
			v = new(big.Int).Sub(v, r)
		}
	}
	return v
}

// floorDivMod is Python's // and %: rounding toward negative infinity.
func floorDivMod(a, b *big.Int) (q, m *big.Int) {
	q, m = new(big.Int).QuoRem(a, b, new(big.Int))
	if m.Sign() != 0 && (m.Sign() < 0) != (b.Sign() < 0) {
		q.Sub(q, big.NewInt(1))
		m.Add(m, b)
	}
	return q, m
}

func (o *oracle) product() *big.Int {
	v := o.unary()
	for o.peek() == "*" || o.peek() == "//" || o.peek() == "%" {
		op := o.toks[o.i]
		o.i++
		r := o.unary()
		switch {
		case op == "*":
			v = new(big.Int).Mul(v, r)
		case r.Sign() == 0:
			o.err = fmt.Errorf("division by zero")
			return big.NewInt(0)
		case op == "//":
			v, _ = floorDivMod(v, r)
		default:
			_, v = floorDivMod(v, r)
		}
	}
	return v
}

func (o *oracle) unary() *big.Int {
	if o.peek() == "-" {
		o.i++
		return new(big.Int).Neg(o.unary())
	}
	if o.peek() == "+" {
		o.i++
		return o.unary()
	}
	t := o.peek()
	o.i++
	if t == "(" {
		v := o.sum()
		o.i++ // )
		return v
	}
	if n, ok := new(big.Int).SetString(t, 10); ok {
		return n
	}
	if t == "max" || t == "min" {
		o.i++ // (
		var vals []*big.Int
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
			if (t == "max") == (x.Cmp(m) > 0) {
				m = x
			}
		}
		return m
	}
	v, ok := o.env[t]
	if !ok {
		o.err = fmt.Errorf("unbound %s", t)
	}
	return big.NewInt(v)
}
