package expr

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAffineEvalMatchesEval(t *testing.T) {
	syms := []string{"a", "b"}
	exprs := []string{"0", "7", "3*a + 5", "a*b", "max(a, 2*b) + 64", "9223372036854775807*a + 1", "-9223372036854775807*b - 1", "(a + 63)//64*64"}
	envs := []Env{{"a": 0, "b": 0}, {"a": 1, "b": 3}, {"a": 2, "b": 1 << 40}, {"a": 1 << 62, "b": 5}}
	for _, src := range exprs {
		e, err := Parse(src)
		require.NoError(t, err)
		a := NewAffineEval(e, syms)
		for _, env := range envs {
			want, wantErr := e.Eval(env)
			got, gotErr := a.Eval([]int64{env["a"], env["b"]}, env)
			assert.Equal(t, wantErr != nil, gotErr != nil, "%s at %v", src, env)
			if wantErr == nil {
				assert.Equal(t, want, got, "%s at %v", src, env)
			}
		}
	}
}

func TestLinLeq(t *testing.T) {
	mins := []int64{1, 0}
	assert.True(t, LinLeq(Lin{0, 1, 0}, Lin{0, 2, 0}, mins), "a <= 2a for a >= 1")
	assert.True(t, LinLeq(Lin{5, 0, 0}, Lin{0, 5, 0}, mins), "5 <= 5a for a >= 1")
	assert.False(t, LinLeq(Lin{1, 0, 0}, Lin{0, 0, 1}, mins), "1 <= b fails at b = 0")
	assert.False(t, LinLeq(Lin{0, 2, 0}, Lin{0, 1, 0}, mins))
	assert.False(t, LinLeq(Lin{math.MinInt64, 0, 0}, Lin{0, 0, 0}, mins), "negating MinInt64 overflows: no proof")
	assert.False(t, LinLeq(Lin{0, 0, 0}, Lin{math.MaxInt64, math.MaxInt64, 0}, []int64{2, 0}), "overflow: no proof")
	sum, ok := AddLin(Lin{1, 2}, Lin{3, 4})
	assert.True(t, ok)
	assert.Equal(t, Lin{4, 6}, sum)
	_, ok = AddLin(Lin{math.MaxInt64}, Lin{1})
	assert.False(t, ok)
}
