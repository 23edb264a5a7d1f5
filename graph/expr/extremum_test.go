package expr

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExtremumShortForms(t *testing.T) {
	cases := []struct{ in, want string }{
		// The common part comes out.
		{"max(c + a, c + b)", "c + max(a, b)"},
		{"max(64*c + a + 8, 32*c + b + 8)", "32*c + max(a + 32*c, b) + 8"},
		{"min(2*x + 5, x + 3*y + 5)", "min(3*y, x) + x + 5"},
		// An inner extremum spreads when that lets an argument drop...
		{"max(c + max(a, b), c)", "c + max(a, b)"},
		{"max(c + max(a, 2*a + b), a + c + 1)", "a + c + max(1, a + b)"},
		{"max(x + max(a, b), x + a + b)", "a + b + x"},
		// ...and stays when spreading would only repeat c.
		{"max(a, c + d + e + max(x, y))", "max(a, c + d + e + max(x, y))"},
		// So does a common factor of constants and symbols.
		{"max(256*batch*s, 256*batch*t)", "256*batch*max(s, t)"},
		{"min(64*((n + 63)//64) + 128, 192*n)", "64*min((n + 63)//64 + 2, 3*n)"},
		{"max(x + 4*n*max(a, b), x + 4*n*a)", "4*max(a, b)*n + x"},
		// Dominated arguments drop however many there are.
		{"max(a, a + 1, a + 2, a + 3, a + 4, a + 5, a + 6, a + 7, a + 8, a + 9, b)", "max(a + 9, b)"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, mustParse(t, c.in).String(), c.in)
		assert.Equal(t, c.want, mustParse(t, c.want).String(), "reparse "+c.want)
	}
}

// randomExtremumSource writes a random expression over a, b and c that
// nests sums, multiples, floor divisions and extrema: what pool sizes are
// made of.
func randomExtremumSource(rng *rand.Rand, depth int) string {
	leaf := func() string {
		switch rng.Intn(5) {
		case 0:
			return fmt.Sprint(rng.Intn(9))
		case 1:
			return fmt.Sprintf("%d*%s", 2*(1+rng.Intn(3)), []string{"a", "b", "c", "a*b", "(a + 3)//4"}[rng.Intn(5)])
		case 2:
			return fmt.Sprintf("%d*%s", 1+rng.Intn(4), []string{"a", "b", "c"}[rng.Intn(3)])
		default:
			return []string{"a", "b", "c", "a*b"}[rng.Intn(4)]
		}
	}
	if depth == 0 {
		return leaf()
	}
	sub := func() string { return randomExtremumSource(rng, depth-1) }
	switch rng.Intn(6) {
	case 0, 1:
		fn := []string{"max", "min"}[rng.Intn(2)]
		args := make([]string, 1+rng.Intn(4))
		for i := range args {
			args[i] = sub()
		}
		return fn + "(" + strings.Join(args, ", ") + ")"
	case 2:
		return "(" + sub() + " + " + sub() + ")"
	case 3:
		return fmt.Sprintf("%d*(%s)", 1+rng.Intn(3), sub())
	case 4:
		return "(" + sub() + " - " + leaf() + ")"
	default:
		return "(" + sub() + ")//" + fmt.Sprint(1+rng.Intn(4))
	}
}

// TestExtremumRewritesAreExact builds random nested extrema and compares
// the canonical form with the text evaluated directly (the oracle) at
// every point of a small cube; the canonical text must parse back to
// itself. MaxIn, which drops arguments using bounds, is checked at every
// point inside them.
func TestExtremumRewritesAreExact(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	bounds := Bounds{"a": {Min: 1, Max: 5}, "b": {Min: 2, Max: 5}, "c": {Min: 0, Max: 4}}
	for i := 0; i < 200; i++ {
		srcs := make([]string, 2+rng.Intn(6))
		for k := range srcs {
			srcs[k] = randomExtremumSource(rng, 3)
		}
		src := "max(" + strings.Join(srcs, ", ") + ")"
		if rng.Intn(3) == 0 {
			src = "min(" + strings.Join(srcs, ", ") + ")"
		}
		e := mustParse(t, src)
		back := mustParse(t, e.String())
		require.Equal(t, e.String(), back.String(), "%s does not parse back", e)
		args := make([]Expr, len(srcs))
		for k, s := range srcs {
			args[k] = mustParse(t, s)
		}
		in := MaxIn(bounds, args...)
		toks := tokenize(src) // the oracle's, once: the cube evaluates it 216 times
		for a := int64(0); a <= 5; a++ {
			for b := int64(0); b <= 5; b++ {
				for c := int64(0); c <= 5; c++ {
					env := Env{"a": a, "b": b, "c": c}
					o := &oracle{toks: toks, env: env}
					v := o.sum()
					require.NoError(t, o.err, src)
					require.True(t, v.IsInt64(), src)
					want := v.Int64()
					got, err := e.Eval(env)
					require.NoError(t, err, e.String())
					require.Equal(t, want, got, "%s at %v: canonical %s", src, env, e)
					if a < 1 || b < 2 || c > 4 || src[:3] != "max" {
						continue
					}
					got, err = in.Eval(env)
					require.NoError(t, err, in.String())
					require.Equal(t, want, got, "MaxIn of %s at %v: %s", src, env, in)
				}
			}
		}
	}
}

func TestGeqTerms(t *testing.T) {
	b := Bounds{"n": {Min: 1, Max: -1}}
	yes := [][2]string{{"n + 1", "n"}, {"2*n*m + 64*((n + 63)//64)", "n*m"}, {"n - min(n, 3)", "-min(n, 3)"}, {"max(n, m)", "max(n, m) - 5"}}
	no := [][2]string{{"n", "n + 1"}, {"n", "m"}, {"n - 1", "0"}, {"2*n", "3*n"}}
	for _, c := range yes {
		assert.True(t, geqTerms(mustParse(t, c[0]), mustParse(t, c[1]), b), "%s >= %s", c[0], c[1])
	}
	for _, c := range no {
		assert.False(t, geqTerms(mustParse(t, c[0]), mustParse(t, c[1]), b), "%s >= %s", c[0], c[1])
	}
}

// TestGeqTermsIsSound: whenever the proof from the terms says y >= x
// within bounds, it holds at every point of them.
func TestGeqTermsIsSound(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	bounds := Bounds{"a": {Min: 1, Max: 5}, "b": {Min: 2, Max: 5}, "c": {Min: 0, Max: 4}}
	proven := 0
	for i := 0; i < 2000; i++ {
		x := mustParse(t, randomExtremumSource(rng, 2))
		y := Add(x, mustParse(t, randomExtremumSource(rng, 1)))
		if rng.Intn(2) == 0 {
			y = mustParse(t, randomExtremumSource(rng, 2))
		}
		if !geqTerms(y, x, bounds) {
			continue
		}
		proven++
		for a := int64(1); a <= 5; a++ {
			for b := int64(2); b <= 5; b++ {
				for c := int64(0); c <= 4; c++ {
					env := Env{"a": a, "b": b, "c": c}
					vy, err1 := y.Eval(env)
					vx, err2 := x.Eval(env)
					if err1 == nil && err2 == nil {
						require.GreaterOrEqual(t, vy, vx, "%s >= %s at %v", y, x, env)
					}
				}
			}
		}
	}
	assert.Greater(t, proven, 300, "the test must exercise the proof")
}
