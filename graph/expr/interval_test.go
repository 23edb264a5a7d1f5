package expr

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Remainders written out by hand (n - 8*(n//8)) are bounded as remainders;
// every bound is checked at every value of the small ranges.
func TestBoundsOfHandWrittenRemainders(t *testing.T) {
	b := Bounds{"n": {Min: 0, Max: 70}, "k": {Min: 1, Max: 9}}
	for src, want := range map[string][2]int64{
		"n - 8*(n//8) - 8":                  {-8, -1},
		"8 - (n - 8*(n//8))":                {1, 8},
		"3*n - 24*(n//8) + k":               {1, 30},
		"(n + 5) - 8*((n + 5)//8) - 8":      {-8, -1},
		"2*(n - 4*(n//4)) - (k - 3*(k//3))": {-2, 6},
	} {
		e, err := Parse(src)
		require.NoError(t, err)
		iv := boundsOf(e, b)
		require.True(t, iv.loOK && iv.hiOK, src)
		assert.Equal(t, want, [2]int64{iv.lo, iv.hi}, src)
		for n := b["n"].Min; n <= b["n"].Max; n++ {
			for k := b["k"].Min; k <= b["k"].Max; k++ {
				v, err := e.Eval(Env{"n": n, "k": k})
				require.NoError(t, err)
				assert.True(t, iv.lo <= v && v <= iv.hi, "%s = %d at n=%d k=%d, outside [%d, %d]", src, v, n, k, iv.lo, iv.hi)
			}
		}
	}
	// Unbounded n: the sign is still proven.
	e, err := Parse("n - 8*(n//8) - 8")
	require.NoError(t, err)
	assert.True(t, NonNeg(Sub(Const(-1), e), nil))
	assert.False(t, NonNeg(e, nil))
	// Not a remainder: n - 8*(n//4) is not bounded.
	e, err = Parse("n - 8*(n//4)")
	require.NoError(t, err)
	iv := boundsOf(e, Bounds{})
	assert.False(t, iv.loOK && iv.hiOK)
}
