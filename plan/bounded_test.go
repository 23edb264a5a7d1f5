package plan

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
)

// finishesWithin runs work in a goroutine and fails the test if it has not
// returned by the deadline: a planner that loops forever fails instead of
// hanging the test binary.
func finishesWithin(t *testing.T, deadline time.Duration, work func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		work()
	}()
	select {
	case <-done:
	case <-time.After(deadline):
		require.FailNow(t, fmt.Sprintf("still running after %s", deadline))
	}
}

// chainOfBytes is a two-op chain of u8 tensors of n elements, so that each
// storage fits an int64 whatever n's max is.
func chainOfBytes(symbol string) string {
	return `{"name": "big", "symbols": {"n": ` + symbol + `},
	  "tensors": {"x": {"dtype": "u8", "shape": ["n"]}, "y": {"dtype": "u8", "shape": ["n"]}, "z": {"dtype": "u8", "shape": ["n"]}},
	  "inputs": ["x"], "outputs": ["z"],
	  "ops": [{"kernel": "Relu", "inputs": ["x"], "outputs": ["y"]}, {"kernel": "Relu", "inputs": ["y"], "outputs": ["z"]}]}`
}

// A symbol's max of 2^62 or more once made the range sampling double past
// 2^62, wrap to 0 and loop forever in plan, gen and run; the same with a
// -range-horizon of 2^62 or more for a symbol without a max. The verifier's
// random values once panicked on [0, 2^63-1] too.
func TestHugeSymbolMaxAndHorizonPlan(t *testing.T) {
	cases := []struct {
		symbol  string
		horizon int64
		last    int64 // the largest value sampled
	}{
		{`{"hint": 8, "max": 4611686018427387904}`, 0, 1 << 62},
		{`{"hint": 8, "max": 9223372036854775807}`, 0, math.MaxInt64},
		{`{"hint": 8, "max": 6917529027641081856}`, 0, 6917529027641081856},
		{`{"hint": 0, "min": 0, "max": 9223372036854775807}`, 0, math.MaxInt64}, // once also a panic drawing a random value
		{`{"hint": 4611686018427387904}`, 0, DefaultHorizon},                    // the hint is sampled apart
		{`{"hint": 8}`, 1 << 62, 1 << 62},
		{`{"hint": 8}`, math.MaxInt64, 1 << 62},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s horizon %d", c.symbol, c.horizon), func(t *testing.T) {
			g := parse(t, chainOfBytes(c.symbol))
			finishesWithin(t, 10*time.Second, func() {
				values := (&Plan{Graph: g, Horizon: c.horizon}).sampleValues(g.Symbol("n"))
				require.NotEmpty(t, values)
				assert.Equal(t, c.last, values[len(values)-1])
				assert.LessOrEqual(t, len(values), 65, "the minimum, the powers of two and the max")
				for i := 1; i < len(values); i++ {
					assert.Greater(t, values[i], values[i-1], "increasing: %v", values)
				}
				p, err := Make(g, Options{Horizon: c.horizon})
				require.NoError(t, err)
				r, err := p.Range()
				require.NoError(t, err)
				assert.Positive(t, r.Points)
			})
		})
	}
}

// A size that fits an int64 at the max but not once rounded up to the
// alignment (4*n + 63 at n = (2^63-1)/4), and a -range-horizon past where
// the sizes fit, once gave a strategy's internal error ("strategy best:
// search: 4*n + 63 overflows int64"). Now every strategy either plans (a
// pool holding one storage needs no rounding) or gives the message that
// names the symbol values and says what to change.
func TestSizesPastInt64GetTheClearMessage(t *testing.T) {
	f32 := func(symbol string) string {
		return strings.ReplaceAll(chainOfBytes(symbol), `"u8"`, `"f32"`)
	}
	cases := []struct {
		src     string
		horizon int64
	}{
		{f32(`{"hint": 8, "max": 2305843009213693951}`), 0},
		{chainOfBytes(`{"hint": 8, "max": 9223372036854775807}`), 0},
		{f32(`{"hint": 8}`), 1 << 62},
		{f32(`{"hint": 8}`), math.MaxInt64},
	}
	for _, c := range cases {
		for _, strategy := range Strategies() {
			t.Run(fmt.Sprintf("%d %s", c.horizon, strategy), func(t *testing.T) {
				g, err := graph.Parse("big.json", []byte(c.src))
				require.NoError(t, err)
				finishesWithin(t, 10*time.Second, func() {
					_, err := Make(g, Options{Strategy: strategy, Horizon: c.horizon})
					if err != nil {
						assert.Contains(t, err.Error(), "big: at n=")
						assert.Contains(t, err.Error(), "more than int64 counts; lower the symbols' max")
						assert.NotContains(t, err.Error(), "overflows int64")
					}
				})
			})
		}
	}
	g := parse(t, f32(`{"hint": 8, "max": 2305843009213693951}`))
	_, err := Make(g, Options{})
	require.NoError(t, err, "best keeps the placement that fits")
}
