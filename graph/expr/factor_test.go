package expr

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDivideMonomial(t *testing.T) {
	for _, c := range []struct{ e, d, want string }{
		{"364*min(150, k)", "min(150, k)", "364"},
		{"6*n*min(150, k) + 2*min(150, k)*k", "2*min(150, k)", "k + 3*n"},
		{"4*n*n", "2*n", "2*n"},
		{"3*n + 1", "n", ""},
		{"3*n", "2*n", ""},
		{"6*n", "n + 1", ""},
	} {
		e, err := Parse(c.e)
		require.NoError(t, err)
		d, err := Parse(c.d)
		require.NoError(t, err)
		q, ok := DivideMonomial(e, d)
		if c.want == "" {
			assert.False(t, ok, "%s / %s", c.e, c.d)
			continue
		}
		require.True(t, ok, "%s / %s", c.e, c.d)
		assert.Equal(t, c.want, q.String())
		assert.Equal(t, e.String(), Mul(q, d).String())
	}
}
