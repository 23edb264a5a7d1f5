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
