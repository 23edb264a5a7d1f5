package emit

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/plan"
)

func program(t *testing.T, file string) *Model {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	g, err := graph.Parse(file, data)
	require.NoError(t, err)
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	return New(p)
}

// kinds spells the steps one letter each: a(cquire) r(elease) v(iew)
// u(nview) R(euse) c(all) L(oop) E(nd loop).
func kinds(steps []Step) string {
	b := make([]byte, len(steps))
	for i, s := range steps {
		b[i] = "arvucLER"[s.Kind]
	}
	return string(b)
}

// The rnn example: the pool is acquired before the first view and released
// after the last use; the loop body calls three kernels and is closed once.
func TestStepsOfRNN(t *testing.T) {
	m := program(t, "../../examples/rnn/rnn.json")
	k := kinds(m.Buckets[0].Steps)
	// matmul, zeros; loop { matmul, add, tanh_into }; add: views before
	// each use, unviews after the last; the output's pool, acquired
	// first, hosts the intermediates, so the last op needs no new pool.
	assert.Equal(t, "avcavcLvcvcucuEuvcur", k)
	var calls, loops int
	for _, s := range m.Buckets[0].Steps {
		switch s.Kind {
		case Call:
			assert.Equal(t, m.OpIndex[s.Op], s.OpIndex)
			calls++
		case Loop:
			assert.Equal(t, "steps", s.Count.String())
			loops++
		case View:
			assert.Same(t, m.Buckets[0].BufferOf[s.Tensor.Root].Pool, s.Pool)
		}
	}
	assert.Equal(t, len(m.Ops), calls, "every kernel op is called once in the program text")
	assert.Equal(t, 1, loops)
}

// Every view step's tensor is unviewed later at the same nesting, or is an
// output (kept for the caller).
func TestEveryViewIsUndoneOrDelivered(t *testing.T) {
	for _, f := range []string{"../../examples/mlp/mlp.json", "../../examples/rnn/rnn.json"} {
		m := program(t, f)
		live := map[*graph.Tensor]bool{}
		for _, s := range m.Buckets[0].Steps {
			switch s.Kind {
			case View:
				live[s.Tensor] = true
			case Unview:
				assert.True(t, live[s.Tensor], "%s: %s unviewed before it was viewed", f, s.Tensor.Name)
				delete(live, s.Tensor)
			}
		}
		for tn := range live {
			assert.True(t, tn.Root.Output, "%s: %s still viewed at the end", f, tn.Name)
		}
	}
}
