package interp

import (
	"math/rand"
	"runtime/metrics"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/refscratch"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// With two threads a model's kernels give the bits of one thread and,
// once warm, allocate nothing: every op of the prepared graph (convs split
// by images at batch 8, by blocks at batch 1; the products and the
// transposes), counted in the kernel calls of a steady Run.
func TestThreadsModelSameBitsNoAllocations(t *testing.T) {
	g, err := graph.Parse("prepared.json", []byte(preparedGraph))
	require.NoError(t, err)
	require.NoError(t, g.AddScratch(refscratch.RuleWithPackedWeights))
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	r := rand.New(rand.NewSource(9))
	params := map[string]wgrt.Tensor{}
	for _, x := range g.Params {
		shape := make([]int, len(x.Shape))
		for i, d := range x.Shape {
			v, _ := d.IsConst()
			shape[i] = int(v)
		}
		params[x.Name] = randomTensor(r, shape...)
	}
	m := New(p)
	defer m.Close()
	require.NoError(t, m.BindParams(params))
	require.NoError(t, m.PrepareWeights(wgref.Prepare))

	sample := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}}
	allocs := uint64(0)
	counted := func(c *wgrt.Call) error {
		metrics.Read(sample)
		before := sample[0].Value.Uint64()
		err := wgref.Call(c)
		metrics.Read(sample)
		allocs += sample[0].Value.Uint64() - before
		return err
	}
	defer wgref.SetThreads(wgref.Threads())
	for _, n := range []int{8, 1} {
		wgref.SetThreads(1)
		x := randomTensor(r, n, 6, 9, 9)
		one, err := m.Run(wgref.Call, nil, []wgrt.Tensor{x})
		require.NoError(t, err)
		want := [][]float32{slices.Clone(one[0].Float32s()), slices.Clone(one[1].Float32s())}
		wgref.SetThreads(2)
		for run := 0; run < 3; run++ {
			allocs = 0
			got, err := m.Run(counted, nil, []wgrt.Tensor{x})
			require.NoError(t, err)
			for i := range got {
				require.True(t, slices.Equal(want[i], got[i].Float32s()), "n=%d output %d: two threads change bits", n, i)
			}
		}
		require.Zero(t, allocs, "n=%d: the kernels of a steady run allocate with two threads", n)
	}
}

func randomTensor(r *rand.Rand, shape ...int) wgrt.Tensor {
	t := wgrt.New(wgrt.F32, shape...)
	for i := range t.Float32s() {
		t.Float32s()[i] = r.Float32()*2 - 1
	}
	return t
}
