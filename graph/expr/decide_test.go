package expr

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecide(t *testing.T) {
	unbounded := Bounds{"n": {Min: 0, Max: -1}}
	small := Bounds{"n": {Min: 1, Max: 10}}
	for _, tc := range []struct {
		src    string
		b      Bounds
		want   Verdict
		at     int64 // for Refuted
		errMsg string
	}{
		{"n*n + 3", unbounded, Proven, 0, ""},                        // NonNeg
		{"n*n - 4*n + 4", unbounded, Proven, 0, ""},                  // a square: past the roots' bound
		{"(n-5)*(n-5) - 1", unbounded, Refuted, 5, ""},               // negative at one point only
		{"5*n - n*n", unbounded, Refuted, 6, ""},                     // negative leading coefficient
		{"n%3*n", unbounded, Proven, 0, ""},                          // NonNeg: mod of a positive
		{"n - n%3*n", unbounded, Unknown, 0, ""},                     // neither, without a max
		{"n - n%3*n", Bounds{"n": {Min: 3, Max: 6}}, Refuted, 5, ""}, // enumerated
		{"n%7*2000000000000000000", small, Refuted, 5, "overflows"},
		{"(n-5)*(n-5) - 1", small, Refuted, 5, ""},
		{"n - 11", small, Refuted, 1, ""},
		{"11 - n", small, Proven, 0, ""},
	} {
		e, err := Parse(tc.src)
		require.NoError(t, err)
		d := NewDecider(tc.b).Decide(e)
		assert.Equal(t, tc.want, d.Verdict, tc.src)
		if tc.want == Refuted {
			assert.Equal(t, Env{"n": tc.at}, d.At, tc.src)
			if tc.errMsg != "" {
				assert.ErrorContains(t, d.Err, tc.errMsg, tc.src)
			}
		}
	}
}

// A budget counts evaluations: once spent, facts are Unknown, never
// guessed.
func TestDecideBudget(t *testing.T) {
	e, err := Parse("n - n%3*n + 100")
	require.NoError(t, err)
	d := &Decider{Bounds: Bounds{"n": {Min: 0, Max: 99}}, MaxPoints: DefaultMaxPoints, Budget: 150}
	assert.Equal(t, Proven, d.Decide(e).Verdict)
	assert.Equal(t, int64(50), d.Budget)
	assert.Equal(t, Unknown, d.Decide(e).Verdict)
}

// Interval bounds prove what shifting symbols to their minimum cannot see
// through a floor division or modulo by a constant.
func TestNonNegThroughDivision(t *testing.T) {
	for _, tc := range []struct {
		src  string
		min  int64
		want bool
	}{
		{"n//5 - 2", 10, true},
		{"n//5 - 2", 9, false},
		{"((n//5//2 + 1)//2 + 1)//2 - 2", 50, true},
		{"((n//5//2 + 1)//2 + 1)//2 - 2", 45, false},
		{"n%3 - 3", 100, false},
		{"2 - n%3", 0, true},
		{"max(n - 4, 2) - 2", 0, true},
		{"min(n, 7) - 3", 3, true},
		{"min(n, 7) - 8", 100, false},
	} {
		e, err := Parse(tc.src)
		require.NoError(t, err)
		assert.Equal(t, tc.want, NonNeg(e, Bounds{"n": {Min: tc.min, Max: -1}}), "%s with n >= %d", tc.src, tc.min)
	}
}

func TestSubstitute(t *testing.T) {
	for _, tc := range []struct{ src, s, with, want string }{
		{"4*n*m + n", "n", "3", "12*m + 3"},
		{"(n + 5)//2 + n%3", "n", "m + 1", "(m + 6)//2 + (m + 1)%3"},
		{"max(n, m) - min(n*n, 4)", "n", "2", "max(2, m) - 4"},
		{"batch*seq*256", "seq", "1", "256*batch"},
	} {
		e, err := Parse(tc.src)
		require.NoError(t, err)
		w, err := Parse(tc.with)
		require.NoError(t, err)
		want, err := Parse(tc.want)
		require.NoError(t, err)
		assert.Equal(t, want.String(), Substitute(e, tc.s, w).String(), tc.src)
	}
}
