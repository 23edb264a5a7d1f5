package expr

import (
	"testing"
)

// FuzzSimplify: whatever parses, the canonical form evaluates to what the
// text evaluates to directly (when neither overflows), for symbol values
// >= 0, prints as text that
// parses back to the same expression, and nothing panics.
func FuzzSimplify(f *testing.F) {
	for _, s := range []string{
		"(a + 3)*(b - 2) // 5 + a % 7", "max(a*2, b + 1, 3) - min(a, b)", "((a + 63)//64)*64 - a",
		"(12*a + 5) // 4 + (12*a + 5) % 4", "-a // 3 + (-a) % 3", "(a*b + a) // (b + 1)", "2*a*4 - 8*a",
		"a // 0", "9223372036854775807 + a", "max(a)", "((((a))))",
	} {
		f.Add(s, int64(3), int64(5))
	}
	f.Fuzz(func(t *testing.T, src string, a, b int64) {
		e, err := Parse(src)
		if err != nil {
			return
		}
		for _, s := range e.Symbols() {
			if s != "a" && s != "b" {
				return
			}
		}
		// Symbols are sizes: the format rejects a negative min, and the
		// canonical form relies on it (max(a, 0) is a).
		if a < 0 {
			a = -(a + 1)
		}
		if b < 0 {
			b = -(b + 1)
		}
		env := Env{"a": a, "b": b}
		want, err1 := evalSource(src, env)
		got, err2 := e.Eval(env)
		if err1 == nil && err2 == nil && want != got {
			t.Fatalf("%q at a=%d b=%d: direct %d, canonical %s gives %d", src, a, b, want, e, got)
		}
		back, err := Parse(e.String())
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", e.String(), src, err)
		}
		if !Equal(back, e) {
			t.Fatalf("canonical form %q of %q parses to %q", e.String(), src, back.String())
		}
	})
}
