package plan

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/synth"
	"github.com/wrapgen/wrapgen/internal/testenv"
)

// touches reports whether a kernel op reads, writes or mutates b's memory.
func touches(op *graph.Op, b *Buffer) bool {
	in := func(t *graph.Tensor) bool {
		for _, n := range b.Tensors {
			if t.Root == n {
				return true
			}
		}
		return false
	}
	for _, ts := range [][]*graph.Tensor{op.Inputs, op.Outputs, op.Mutates} {
		for _, t := range ts {
			if in(t) {
				return true
			}
		}
	}
	return false
}

// checkProperties checks what every plan must satisfy, independently of
// verify: outputs never freed, inputs never planned (so never written by
// the wrapper), every other storage freed once, right after its last use
// (or right after the loop it is used in, when defined outside it).
func checkProperties(t *testing.T, p *Plan, what string) {
	f, err := p.Figures(nil)
	require.NoError(t, err, what)
	require.LessOrEqual(t, f.LoadBytes, f.ModeBoundBytes, "%s: the mode bound is below the plain one", what)
	require.LessOrEqual(t, f.LoadBytes, f.PeakBytes, "%s: the lower bound is above the peak", what)
	freed := map[*Buffer]int{}
	for i, l := range p.Lines {
		if l.Kind != LineDeallocFromPool {
			continue
		}
		b := l.Buffer
		require.False(t, b.Output, "%s: output storage %s is freed", what, b.Owner().Name)
		freed[b]++
		last := -1
		for j := i - 1; j >= 0; j-- {
			if p.Lines[j].Kind == LineKernel && touches(p.Lines[j].Op, b) {
				last = j
				break
			}
		}
		require.GreaterOrEqual(t, last, 0, "%s: %s freed before any use", what, b.Owner().Name)
		// Between the last use and the free, nothing runs at the free's
		// depth or outside it: a storage used in a loop it was defined
		// outside of lives until that loop ends, and no longer.
		for j := last + 1; j < i; j++ {
			k := p.Lines[j].Kind
			require.False(t, (k == LineKernel || k == LineLoopBegin) && p.Lines[j].Depth <= l.Depth,
				"%s: %s is freed at line %d, not right after its last use at line %d", what, b.Owner().Name, i, last)
		}
	}
	for _, b := range p.Buffers {
		for _, n := range b.Tensors {
			require.False(t, n.Input, "%s: input %s is planned", what, n.Name)
		}
		if !b.Output {
			require.Equal(t, 1, freed[b], "%s: %s freed %d times", what, b.Owner().Name, freed[b])
		}
	}
}

func TestPropertiesOnRandomGraphs(t *testing.T) {
	seeds := uint64(150)
	if !testenv.Long() {
		seeds = 30
	}
	for seed := uint64(0); seed < seeds; seed++ {
		g, err := graph.Parse("random.json", synth.Random(seed))
		require.NoError(t, err)
		for _, s := range Strategies() {
			for _, m := range MemoryPools {
				p, err := Make(g, Options{Strategy: s, MemoryPool: m})
				require.NoError(t, err, "seed %d strategy %s mode %s", seed, s, m)
				checkProperties(t, p, fmt.Sprintf("seed %d strategy %s mode %s", seed, s, m))
			}
		}
	}
}
