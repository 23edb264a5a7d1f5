package wgrt

import (
	"fmt"
	"math"
	"slices"
)

// Placing storages at the sizes of a call. wrapgen's plan puts every
// storage at an offset proven for every symbol value in range; at the
// values a call binds, a placement of the concrete sizes can need less. So
// when a frame is laid out at symbols it has not seen, it places, for each
// device, every storage anew in one buffer, its arena (PlaceBest),
// checks the result, and keeps it only when the arena is smaller than the
// largest total of that device's pools the plan holds at once: never
// worse than the proven plan. An arena holding an output is handed to the
// caller with the outputs, as an output's pool is (a caller's output
// buffer then gets a copy). The C++ runtime
// (wrapgen_runtime.cc, PlaceBest) places byte for byte alike.

// Storage rows of Plan.Storages: quintuples.
const (
	storagePool = iota
	storageSize
	storageOffset
	storageBegin
	storageEnd
	storageWidth
)

// PlaceRules is how many placement rules PlaceGreedy has.
const PlaceRules = 4

// PlaceGreedy gives each storage in order an offset, aligned to align,
// where it overlaps no storage placed before it that is live at the same
// time: storage i is live over timesteps [begin[i], end[i]) and takes
// size[i] bytes. It returns the arena's size. The rule says in which
// order the storages are placed and where each goes:
//
//	0: largest first, each in the smallest gap between the storages live
//	   with it that holds it, else above them all (greedy by size with best
//	   fit, as TFLite's GPU planner);
//	1: largest first, each at the lowest offset that fits (first fit);
//	2: earliest first (then largest), best fit: an allocator's order;
//	3: largest size × lifetime first, best fit.
//
// Ties go to the earlier begin, then the lower index. order lists the
// storages to place and is sorted in place; placed must have room for
// them (it ends up holding them by offset). Nothing is allocated. Each
// storage looks at every one placed before it, so the work grows as the
// square of their number: past PlaceBudget(len(order)) such looks the
// rule gives up and returns -1 (a wrapper then keeps the plan's
// placement).
func PlaceGreedy(rule int, order, placed []int32, size, off []int, begin, end []int32, align int) int {
	key := func(i int32) (int, int) { // larger first, then earlier
		switch rule {
		case 2:
			return -int(begin[i]), size[i]
		case 3:
			return size[i] * int(end[i]-begin[i]), -int(begin[i])
		}
		return size[i], -int(begin[i])
	}
	slices.SortFunc(order, func(a, b int32) int {
		a1, a2 := key(a)
		b1, b2 := key(b)
		switch {
		case a1 != b1:
			return cmpDesc(a1, b1)
		case a2 != b2:
			return cmpDesc(a2, b2)
		}
		return int(a) - int(b)
	})
	placed = placed[:0]
	arena, budget := 0, PlaceBudget(len(order))
	for _, i := range order {
		if budget -= len(placed); budget < 0 {
			return -1
		}
		at, top, best := 0, 0, -1
		for _, j := range placed {
			if begin[i] >= end[j] || begin[j] >= end[i] {
				continue // not live at the same time
			}
			if gap := off[j] - top; gap >= size[i] && (best < 0 || gap < best) {
				at, best = top, gap
				if rule == 1 {
					break
				}
			}
			top = max(top, alignUp(off[j]+size[j], align))
		}
		if best < 0 {
			at = top
		}
		off[i] = at
		arena = max(arena, at+size[i])
		// Keep placed sorted by offset, then index.
		k, _ := slices.BinarySearchFunc(placed, i, func(x, y int32) int {
			if off[x] != off[y] {
				return off[x] - off[y]
			}
			return int(x) - int(y)
		})
		placed = slices.Insert(placed, k, i)
	}
	return arena
}

// PlaceBudget is how many looks at a placed storage PlaceGreedy may take
// for n storages: every one for up to 2,048 storages, then 2,048 per
// storage: about 10 ms of work per rule.
func PlaceBudget(n int) int { return max(1<<22, 2048*n) }

func cmpDesc(a, b int) int {
	if a > b {
		return -1
	}
	return 1
}

// PlaceBest places the storages in order by every rule of PlaceGreedy and
// keeps the smallest arena (the first rule of equal ones): offsets in off,
// placed by offset; try is scratch like off. It returns the arena's size
// and the rule; -1 when every rule ran out of budget.
//
// It returns -1 when the storages' sizes (aligned, summed, times the
// longest lifetime) may not fit an int64, as the C++ runtime does.
func PlaceBest(order, placed []int32, size, off, try []int, begin, end []int32, align int) (arena, rule int) {
	total := 0
	for _, i := range order {
		life := max(int(end[i]-begin[i]), 1)
		if size[i] > math.MaxInt64-align-total || size[i] > math.MaxInt64/life {
			return -1, 0
		}
		total += size[i] + align
	}
	arena, rule = -1, 0
	for r := range PlaceRules {
		if a := PlaceGreedy(r, order, placed, size, try, begin, end, align); a >= 0 && (arena < 0 || a < arena) {
			arena, rule = a, r
		}
	}
	if arena >= 0 {
		PlaceGreedy(rule, order, placed, size, off, begin, end, align)
	}
	return arena, rule
}

// checkPlacement checks a placement PlaceGreedy returned: every offset
// aligned, every storage inside the arena, and no two storages live at the
// same time share a byte. placed is sorted by offset.
func checkPlacement(placed []int32, size, off []int, begin, end []int32, align, arena int) error {
	for k, i := range placed {
		if off[i] < 0 || off[i]%align != 0 || off[i]+size[i] > arena {
			return fmt.Errorf("storage %d at [%d, %d) lies outside the arena of %d bytes or off its alignment %d", i, off[i], off[i]+size[i], arena, align)
		}
		for _, j := range placed[k+1:] {
			if off[j] >= off[i]+size[i] {
				break
			}
			if size[j] > 0 && begin[i] < end[j] && begin[j] < end[i] {
				return fmt.Errorf("storages %d and %d are live at the same time and share bytes [%d, %d)", i, j, off[j], min(off[i]+size[i], off[j]+size[j]))
			}
		}
	}
	return nil
}

func alignUp(n, align int) int {
	if align <= 1 {
		return n
	}
	return (n + align - 1) / align * align
}

// placement is where a frame's storages lie at the symbols of the last
// Layout, and which pools live in their device's arena.
type placement struct {
	base   []int   // per storage: its first byte in its pool's buffer
	size   []int   // per storage: its bytes
	dyn    []int   // per storage: its offset in the arena
	try    []int   // scratch for PlaceBest
	begin  []int32 // per storage: live range
	end    []int32
	order  []int32 // scratch for PlaceBest
	placed []int32

	moved      []bool // per pool: its storages live in its device's arena
	poolDevice []int  // per pool: its device, an index into Program.Devices
	poolSize   []int  // per pool: its bytes (walkPools)
	arena      []int  // per device: the arena's bytes (0: no arena)
	arenaLive  []int  // per device: pools in the arena acquired and not released
	peak       int    // the largest total of pool bytes the call holds at once
	static     int    // the same for the plan's own placement
}

func newPlacement(p *Program) placement {
	storages, pools := 0, 0
	for i := range p.Plans {
		storages = max(storages, len(p.Plans[i].Storages)/storageWidth)
		pools = max(pools, len(p.Plans[i].PoolDevices))
	}
	return placement{
		base: make([]int, storages), size: make([]int, storages), dyn: make([]int, storages), try: make([]int, storages),
		begin: make([]int32, storages), end: make([]int32, storages),
		order: make([]int32, 0, storages), placed: make([]int32, 0, storages),
		moved: make([]bool, pools), poolDevice: make([]int, pools), poolSize: make([]int, pools),
		arena: make([]int, len(p.Devices)), arenaLive: make([]int, len(p.Devices)),
	}
}

// arenaSlot is the Pools index of device d's arena: after the plan's pools.
func (f *Frame) arenaSlot(d int) int { return len(f.pool) - len(f.place.arena) + d }

// placeAtSizes decides, after the values are computed, where every storage
// lies: in its pool as planned, or anew in its device's arena when that
// takes less memory at these sizes. Programs whose ops set run-time sizes
// keep the plan's placement (their sizes change during the call).
func (f *Frame) placeAtSizes(p *Program) error {
	pl, pm := &p.Plans[f.plan], &f.place
	n := len(pl.Storages) / storageWidth
	for i := range pl.PoolDevices {
		pm.moved[i] = false
		pm.poolDevice[i] = slices.Index(p.Devices, pl.PoolDevices[i])
	}
	clear(pm.arena)
	for i := 0; i < n; i++ {
		r := pl.Storages[storageWidth*i:]
		pm.size[i], pm.begin[i], pm.end[i] = f.Vals[r[storageSize]], r[storageBegin], r[storageEnd]
	}
	pm.static = f.heldBytes(p)
	pm.peak = pm.static
	if len(p.RunTimeSizes) > 0 || p.KeepPlan {
		f.setBases(p)
		return nil
	}
	for d := range pm.arena {
		pm.order = pm.order[:0]
		for i := 0; i < n; i++ {
			if pm.poolDevice[pl.Storages[storageWidth*i+storagePool]] == d {
				pm.order = append(pm.order, int32(i))
			}
		}
		if len(pm.order) == 0 {
			continue
		}
		arena, _ := PlaceBest(pm.order, pm.placed[:0], pm.size, pm.dyn, pm.try, pm.begin, pm.end, p.Align)
		if arena < 0 || arena >= f.movableBytes(p, d) {
			continue
		}
		if err := checkPlacement(pm.placed[:len(pm.order)], pm.size, pm.dyn, pm.begin, pm.end, p.Align, arena); err != nil {
			return fmt.Errorf("%s: at %s, placing the storages at these sizes went wrong (a wrapgen bug): %w", p.Graph, p.symbolText(f.Sym), err)
		}
		// An arena is held from the first use of its device's pools to
		// the last: kept only when the call then holds less in all.
		pm.arena[d] = arena
		f.moveDevice(pl, d, true)
		if held := f.heldBytes(p); held < pm.peak {
			pm.peak = held
		} else {
			pm.arena[d] = 0
			f.moveDevice(pl, d, false)
		}
	}
	f.setBases(p)
	return nil
}

// moveDevice marks device d's pools as placed in its arena, or not.
func (f *Frame) moveDevice(pl *Plan, d int, moved bool) {
	for i := range pl.PoolDevices {
		if f.place.poolDevice[i] == d {
			f.place.moved[i] = moved
		}
	}
}

// setBases gives every storage its first byte in its pool's buffer: the
// plan's offset, or its place in the arena.
func (f *Frame) setBases(p *Program) {
	pl, pm := &p.Plans[f.plan], &f.place
	for i := range len(pl.Storages) / storageWidth {
		r := pl.Storages[storageWidth*i:]
		if pm.moved[r[storagePool]] {
			pm.base[i] = pm.dyn[i]
		} else {
			pm.base[i] = f.Vals[r[storageOffset]]
		}
	}
}

// movableBytes is the largest total of device d's pools the plan holds
// at once.
func (f *Frame) movableBytes(p *Program, d int) int {
	pm := &f.place
	held, most := 0, 0
	f.walkPools(p, func(pool int32, size int, acquire bool) {
		if pm.poolDevice[pool] != d {
			return
		}
		if acquire {
			held += size
			most = max(most, held)
		} else {
			held -= size
		}
	})
	return most
}

// heldBytes is the largest total of pool bytes a call holds at once, the
// arenas counted from the first acquire of a pool they hold to the last
// release.
func (f *Frame) heldBytes(p *Program) int {
	pm := &f.place
	live := pm.arenaLive
	clear(live)
	held, most := 0, 0
	f.walkPools(p, func(pool int32, size int, acquire bool) {
		d := pm.poolDevice[pool]
		if pm.moved[pool] {
			size = 0
			if acquire && live[d] == 0 || !acquire && live[d] == 1 {
				size = pm.arena[d]
			}
			if acquire {
				live[d]++
			} else {
				live[d]--
			}
		}
		if acquire {
			held += size
			most = max(most, held)
		} else {
			held -= size
		}
	})
	clear(live)
	return most
}

// walkPools calls visit for each pool acquire and release of the plan, in
// step order (a loop's body once), with the pool's bytes.
func (f *Frame) walkPools(p *Program, visit func(pool int32, size int, acquire bool)) {
	s, size := p.Plans[f.plan].Steps, f.place.poolSize
	for pc := 0; pc < len(s) && s[pc] >= 0 && int(s[pc]) < len(stepWidth); pc += 1 + stepWidth[s[pc]] {
		switch s[pc] {
		case stepAcquire:
			size[s[pc+1]] = f.Vals[s[pc+2]]
			visit(s[pc+1], size[s[pc+1]], true)
		case stepRelease:
			visit(s[pc+1], size[s[pc+1]], false)
		}
	}
}

// PeakBytes is the largest total of pool bytes the last Layout's symbols
// make a call hold at once, as it places its storages; StaticPeakBytes the
// same with the plan's own placement. Outputs' pools count (they are
// handed over at the end).
func (f *Frame) PeakBytes() int { return f.place.peak }

// StaticPeakBytes: see PeakBytes.
func (f *Frame) StaticPeakBytes() int { return f.place.static }

// Placed reports whether any storage lies in an arena placed at the sizes
// of the last Layout rather than where the plan put it.
func (f *Frame) Placed() bool { return slices.Contains(f.place.moved, true) }
