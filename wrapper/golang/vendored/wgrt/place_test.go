package wgrt

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A hand-worked problem, as TFLM's planner tests have: three storages, A
// (100 bytes, steps [0, 2)), B (50, [1, 3)) and C (60, [2, 4)), aligned
// to 64. A and C are never live together; B is live with both.
func TestPlaceGreedyExactOffsets(t *testing.T) {
	size := []int{100, 50, 60}
	begin, end := []int32{0, 1, 2}, []int32{2, 3, 4}
	for _, tc := range []struct {
		rule  int
		off   []int
		arena int
	}{
		// Largest first: A at 0; C (60) is live with B only, not placed
		// yet: at 0; B is live with A and C: above both, at 128 (100
		// aligned up).
		{0, []int{0, 128, 0}, 178},
		{1, []int{0, 128, 0}, 178},
		// Earliest first: A at 0, B above A at 128, C live with B only:
		// the gap below B (128 bytes) holds it, at 0.
		{2, []int{0, 128, 0}, 178},
		// By size x lifetime: A (200), C (120), B (100): as rule 0.
		{3, []int{0, 128, 0}, 178},
	} {
		off := make([]int, 3)
		order, placed := []int32{0, 1, 2}, make([]int32, 0, 3)
		arena := PlaceGreedy(tc.rule, order, placed, size, off, begin, end, 64)
		assert.Equal(t, tc.off, off, "rule %d", tc.rule)
		assert.Equal(t, tc.arena, arena, "rule %d", tc.rule)
	}
}

// On random problems every rule's placement is valid (checkPlacement),
// no arena is below the lower bound (the most bytes live at once), and
// PlaceBest keeps the smallest.
func TestPlaceBestValidAndSmallest(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 500; trial++ {
		n := 1 + rng.Intn(40)
		size, begin, end := make([]int, n), make([]int32, n), make([]int32, n)
		for i := range n {
			size[i] = rng.Intn(3) * rng.Intn(1000)
			begin[i] = int32(rng.Intn(30))
			end[i] = begin[i] + 1 + int32(rng.Intn(10))
		}
		bound := 0
		for step := int32(0); step < 41; step++ {
			live := 0
			for i := range n {
				if begin[i] <= step && step < end[i] {
					live += size[i]
				}
			}
			bound = max(bound, live)
		}
		align := []int{1, 4, 64}[rng.Intn(3)]
		order, placed := make([]int32, n), make([]int32, 0, n)
		reset := func() {
			for i := range order {
				order[i] = int32(i)
			}
		}
		smallest := -1
		for rule := range PlaceRules {
			reset()
			off := make([]int, n)
			arena := PlaceGreedy(rule, order, placed, size, off, begin, end, align)
			require.NoError(t, checkPlacement(placed[:n], size, off, begin, end, align, arena), "trial %d rule %d", trial, rule)
			assert.GreaterOrEqual(t, arena, bound, "trial %d rule %d", trial, rule)
			if smallest < 0 || arena < smallest {
				smallest = arena
			}
		}
		reset()
		off := make([]int, n)
		arena, _ := PlaceBest(order, placed, size, off, make([]int, n), begin, end, align)
		assert.Equal(t, smallest, arena, "trial %d", trial)
		require.NoError(t, checkPlacement(placed[:n], size, off, begin, end, align, arena))
	}
}

// A frame places storages anew when that needs less than the plan: two
// storages the plan put side by side (pool of 2n*16 bytes) that are never
// live together share bytes in the arena; the views then point there, a
// steady call allocates nothing, and a call at other sizes lays out again.
func TestFramePlacesAtSizes(t *testing.T) {
	p := &Program{Graph: "g", Align: 64, Ops: make([]Op, 2), SymbolNames: []string{"n"}, Devices: []string{"cpu"},
		Tensors: []int32{int32(U8), 0, 1, 0, int32(U8), 0, 1, 0}, Dims: []int32{2, 4},
		Code: []int{
			intSym, 0, 0, // v0 = n
			intConst, 16, 0, // v1 = 16
			intMul, 0, 1, // v2 = 16*n: each storage's bytes
			intAdd, 2, 2, // v3 = 32*n: the pool
			intConst, 0, 0, // v4 = 0
			intConst, 1, 0, // v5 = 1
		},
		Plans: []Plan{{PoolDevices: []string{"cpu"},
			Storages: []int32{0, 2, 4, 0, 1, 0, 2, 2, 1, 2},
			Steps: []int32{
				stepAcquire, 0, 3, -1, -1,
				stepView, 0, 0, 0, 4, 2, stepCall, 0, stepUnview, 0,
				stepView, 1, 0, 1, 4, 2, stepCall, 1, stepUnview, 1,
				stepRelease, 0,
			}}}}
	alloc := &countingAllocator{}
	pools := &KeptPools{Allocators: Allocators{"cpu": alloc}}
	f := NewFrame(p, 1)
	seen := &viewsSeen{f: f}
	for _, n := range []int{3, 3, 5} {
		f.Sym[0] = n
		require.NoError(t, f.Layout(p))
		assert.True(t, f.Placed())
		assert.Equal(t, 16*n, f.PeakBytes())
		assert.Equal(t, 32*n, f.StaticPeakBytes())
		require.NoError(t, f.Exec(p, pools, seen, nil))
		assert.Len(t, seen.data[0], 16*n)
		assert.Same(t, &seen.data[0][0], &seen.data[1][0], "both storages at offset 0 of the arena")
	}
	assert.Equal(t, 2, alloc.allocs, "the arena is allocated at n=3 and grown at n=5, not at the steady call")
	f.Sym[0] = 5
	require.NoError(t, f.Layout(p))
	assert.Zero(t, testing.AllocsPerRun(10, func() {
		_ = f.Layout(p)
		_ = f.Exec(p, pools, seen, nil)
	}))
}

// viewsSeen notes the data each op's tensor (op i sees tensor i) had.
type viewsSeen struct {
	f    *Frame
	data [2][]byte
}

func (v *viewsSeen) CallOp(i int) error {
	v.data[i] = v.f.T[i].Data
	return nil
}

// Past its budget a rule gives up: 5,000 storages live at once take 12.5
// million looks, over PlaceBudget's 10.24 million; 1,000 do not.
func TestPlaceGreedyBudget(t *testing.T) {
	for _, tc := range []struct{ n, want int }{{1000, 1000 * 64}, {5000, -1}} {
		size, begin, end := make([]int, tc.n), make([]int32, tc.n), make([]int32, tc.n)
		order, off := make([]int32, tc.n), make([]int, tc.n)
		for i := range tc.n {
			size[i], end[i], order[i] = 64, 1, int32(i)
		}
		arena, _ := PlaceBest(order, make([]int32, 0, tc.n), size, off, make([]int, tc.n), begin, end, 64)
		assert.Equal(t, tc.want, arena, "%d storages", tc.n)
	}
}
