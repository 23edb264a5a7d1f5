package main

import (
	"encoding/json"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/fuse"
	"github.com/wrapgen/wrapgen/internal/interp"
	"github.com/wrapgen/wrapgen/internal/refscratch"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

const residualGraph = "testdata/fuse/residual.json"

// With the reference kernels a residual block plans as three FusedConv
// calls, the last writing over the block's input, in no more memory than
// the ops it replaces; without them (a user's kernels that declare no
// fused kernel) the graph is planned as written.
func TestPlanFusesForRefKernels(t *testing.T) {
	out, _, err := runCLI("plan", "-kernels", "ref", residualGraph)
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(out, "Kernel FusedConv("), out)
	assert.Contains(t, out, "Reuse y = h (may_alias)\n       Kernel FusedConv(a, w1, b1, h) -> (y)")
	assert.NotContains(t, out, "Kernel Relu")
	assert.NotContains(t, out, "Kernel Add")

	js, _, err := runCLI("plan", "-kernels", "ref", "-json", residualGraph)
	require.NoError(t, err)
	var fused struct {
		PeakBytes int64 `json:"peak_bytes"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &fused))
	g, err := graph.Load(residualGraph)
	require.NoError(t, err)
	require.NoError(t, g.AddScratch(refscratch.Rule))
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	fig, err := p.Figures(nil)
	require.NoError(t, err)
	assert.LessOrEqual(t, fused.PeakBytes, fig.PeakBytes, "fusing raised the peak")

	out, _, err = runCLI("plan", residualGraph)
	require.NoError(t, err)
	assert.NotContains(t, out, "Fused")
}

// run (fused) gives the outputs of the graph as written, run op by op with
// the same reference kernels.
func TestRunFusedMatchesUnfused(t *testing.T) {
	g, err := graph.Load(residualGraph)
	require.NoError(t, err)
	r := rand.New(rand.NewSource(1))
	params := map[string]wgrt.Tensor{}
	for _, p := range g.Params {
		shape := make([]int, len(p.Shape))
		for i, d := range p.Shape {
			v, _ := d.IsConst()
			shape[i] = int(v)
		}
		params[p.Name] = randomF32(r, shape...)
	}
	x := randomF32(r, 3, 8, 6, 6)
	runGraph := func(g *graph.Graph) []float32 {
		require.NoError(t, g.AddScratch(refscratch.Rule))
		p, err := plan.Make(g, plan.Options{})
		require.NoError(t, err)
		m := interp.New(p)
		defer m.Close()
		require.NoError(t, m.BindParams(params))
		outs, err := m.Run(wgref.Call, nil, []wgrt.Tensor{x})
		require.NoError(t, err)
		return append([]float32(nil), outs[0].Float32s()...)
	}
	fusedGraph, err := fuse.Apply(g, fuse.Ref)
	require.NoError(t, err)
	want, got := runGraph(g), runGraph(fusedGraph)
	require.Len(t, got, len(want))
	for i := range want {
		require.InDelta(t, want[i], got[i], 1e-4*(1+math.Abs(float64(want[i]))), "element %d", i)
	}
}

func randomF32(r *rand.Rand, shape ...int) wgrt.Tensor {
	t := wgrt.New(wgrt.F32, shape...)
	xs := t.Float32s()
	for i := range xs {
		xs[i] = r.Float32() - 0.5
	}
	return t
}

// With the reference kernels, plan shows the params wrapgen run packs
// once: each of the three convs' filters, 8 rows rounded up to the widest
// micro-kernel's 12 by 8·3·3 deep, in float32 (w1 serves two convs, each
// packing its own); without them, none.
func TestPlanShowsPackedParams(t *testing.T) {
	const packed = 3 * 12 * 72 * 4
	out, _, err := runCLI("plan", "-kernels", "ref", residualGraph)
	require.NoError(t, err)
	assert.Contains(t, out, "packed params              10,368 (10.1 KiB): ")
	js, _, err := runCLI("plan", "-kernels", "ref", "-json", residualGraph)
	require.NoError(t, err)
	var fig struct {
		Packed int64 `json:"packed_param_bytes"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &fig))
	assert.Equal(t, int64(packed), fig.Packed)

	out, _, err = runCLI("plan", residualGraph)
	require.NoError(t, err)
	assert.NotContains(t, out, "packed params")
}
