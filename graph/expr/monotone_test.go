package expr

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNonDecreasing(t *testing.T) {
	b := Bounds{"n": {Min: 1, Max: 50}, "k": {Min: 0, Max: 9}}
	for src, want := range map[string]bool{
		"min(300, k) + min(300, n)": true,
		"2*k*n + (k + 3)//2":        true,
		"max(k, n - 4) * n":         true,
		"n - k":                     false,
		"k % 4":                     false,
		"(n - 60) * k":              false, // the other factor is negative
		"min(n, 10 - k)":            false,
		"n + 7":                     true, // does not use k
	} {
		e, err := Parse(src)
		require.NoError(t, err)
		assert.Equal(t, want, NonDecreasing(e, "k", b), src)
		if !want {
			continue
		}
		// Checked at every point of the small ranges.
		for n := int64(1); n <= 50; n++ {
			for k := int64(1); k <= 9; k++ {
				lo, err := e.Eval(Env{"n": n, "k": k - 1})
				require.NoError(t, err)
				hi, err := e.Eval(Env{"n": n, "k": k})
				require.NoError(t, err)
				assert.LessOrEqual(t, lo, hi, "%s at n=%d k=%d", src, n, k)
			}
		}
	}
}
