package expr

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustParse(t *testing.T, s string) Expr {
	t.Helper()
	e, err := Parse(s)
	require.NoError(t, err, s)
	return e
}

func TestCanonicalForm(t *testing.T) {
	cases := []struct{ in, want string }{
		{"2*batch*4", "8*batch"},
		{"batch*8", "8*batch"},
		{"3 + 4*5", "23"},
		{"batch - batch", "0"},
		{"(seq+63)//64*64", "64*((seq + 63)//64)"},
		{"(64*batch + 64)//64", "batch + 1"},
		{"(128*batch + 70)//64", "2*batch + 1"},
		{"max(batch, 4)", "max(4, batch)"},
		{"max(8*batch, 4*batch)", "8*batch"},
		{"min(8*batch, 4*batch)", "4*batch"},
		{"max(max(a, b), 3, 7)", "max(7, a, b)"},
		{"(a+b)*(a+b)", "a*a + 2*a*b + b*b"},
		{"-x + 3", "-x + 3"},
		{"7 % 3", "1"},
		{"-7 // 2", "-4"},
		{"(2*n + 1) % 2", "1"},
		{"x // 1", "x"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, mustParse(t, c.in).String(), c.in)
		// The canonical text parses back to itself.
		assert.Equal(t, c.want, mustParse(t, c.want).String(), "reparse "+c.want)
	}
	assert.True(t, Equal(mustParse(t, "2*batch*4"), mustParse(t, "8*batch")))
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		"":                      "column 1: expected a number",
		"batch +":               "column 8: expected a number",
		"(batch":                "expected )",
		"batch / 2":             "column 7: single / is not an operator",
		"foo(1)":                "unknown function",
		"99999999999999999999":  "overflows int64",
		"4611686018427387904*4": "overflows int64",
		"x // 0":                "division by zero",
		"3 $ 4":                 "unexpected character",
		"max(1 2)":              "expected , or )",
	}
	for in, want := range cases {
		_, err := Parse(in)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), want, in)
	}
}

func TestEvalOverflowAndErrors(t *testing.T) {
	e := mustParse(t, "batch*4611686018427387904")
	_, err := e.Eval(Env{"batch": 1})
	require.NoError(t, err)
	_, err = e.Eval(Env{"batch": 2})
	require.ErrorContains(t, err, "overflows int64")
	_, err = e.Eval(Env{})
	require.ErrorContains(t, err, "no value")
	_, err = mustParse(t, "x // y").Eval(Env{"x": 1, "y": 0})
	require.ErrorContains(t, err, "division by zero")
}

// naive evaluates the source text directly, without simplification, as an
// oracle for "simplify then evaluate equals evaluate".
func TestSimplifyPreservesValue(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	srcs := []string{
		"(a + 3)*(b - 2) // 5 + a % 7",
		"max(a*2, b + 1, 3) - min(a, b)",
		"((a + 63)//64)*64 - a",
		"(12*a + 5) // 4 + (12*a + 5) % 4",
		"-a // 3 + (-a) % 3",
		"(a*b + a) // (b + 1)",
	}
	for _, s := range srcs {
		e := mustParse(t, s)
		for i := 0; i < 200; i++ {
			env := Env{"a": rng.Int63n(1000), "b": rng.Int63n(1000)}
			want, err := evalSource(s, env)
			require.NoError(t, err)
			got, err := e.Eval(env)
			require.NoError(t, err)
			require.Equal(t, want, got, "%s at %v (canonical %s)", s, env, e)
		}
	}
}

func TestNonNegAndLessEq(t *testing.T) {
	b := Bounds{"batch": {Min: 1, Max: -1}}
	assert.True(t, NonNeg(mustParse(t, "batch - 1"), b))
	assert.False(t, NonNeg(mustParse(t, "batch - 2"), b))
	assert.False(t, NonNeg(mustParse(t, "batch - 1"), nil))
	assert.True(t, LessEq(mustParse(t, "4*batch"), mustParse(t, "8*batch"), nil))
	assert.True(t, NonNeg(mustParse(t, "(batch + 63)//64"), b))
	assert.Equal(t, "8*batch", MaxIn(b, mustParse(t, "8*batch"), mustParse(t, "8")).String())
}

func TestFormatStyles(t *testing.T) {
	e := mustParse(t, "max(batch, 4)*2 + (seq + 63)//64")
	src := e.Format(Style{Name: func(s string) string { return "s_" + s }, FloorDiv: "rt.FloorDiv", Mod: "rt.Mod",
		Max: func(a []string) string { return "max(" + strings.Join(a, ", ") + ")" },
		Min: func(a []string) string { return "min(" + strings.Join(a, ", ") + ")" }})
	assert.Equal(t, "rt.FloorDiv(s_seq + 63, 64) + 2*max(4, s_batch)", src)
}

func TestLinearIsCanonical(t *testing.T) {
	syms := []string{"a", "batch", "z"}
	for _, c := range []struct {
		c0    int64
		coefs []int64
	}{{0, []int64{0, 0, 0}}, {5, []int64{0, 0, 0}}, {-3, []int64{2, 0, -1}}, {0, []int64{0, 605184, 0}}, {64, []int64{1, 1, 1}}} {
		want := Add(Const(c.c0), Scale(Sym("a"), c.coefs[0]), Scale(Sym("batch"), c.coefs[1]), Scale(Sym("z"), c.coefs[2]))
		got := Linear(c.c0, c.coefs, syms)
		assert.Equal(t, want.String(), got.String())
		coefs, c0, ok := Affine(got, syms)
		assert.True(t, ok)
		assert.Equal(t, c.coefs, coefs)
		assert.Equal(t, c.c0, c0)
	}
}
