package plan

import (
	"sort"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// inductor is Inductor's planner (PyTorch Inductor memory_planning.py)
// ported decision for decision: its results are the reference users compare
// other strategies against.
type inductor struct{}

func (inductor) name() string { return "inductor" }

type inductorPool struct {
	root      *temporalSplit
	canExpand bool
}

func (p *inductorPool) allocate(b *allocation, isLast bool) bool {
	isLast = p.canExpand && isLast
	if p.root.allocate(b, isLast) {
		return true
	}
	if isLast {
		p.allocateAtEnd(b)
		return true
	}
	return false
}

func (p *inductorPool) allocateAtEnd(b *allocation) {
	align := p.root.align
	p.root = newTemporal(align, &spatialSplit{cache: cache{align: align}, left: p.root, right: newTemporal(align, b)})
}

// inductorPools groups pools by device, devices in order of first use.
type inductorPools struct {
	devices []string
	byDev   map[string][]*inductorPool
	mode    MemoryPool
	align   int64
}

func (ps *inductorPools) pools(dev string) []*inductorPool {
	if _, ok := ps.byDev[dev]; !ok {
		ps.devices = append(ps.devices, dev)
		ps.byDev[dev] = nil
	}
	return ps.byDev[dev]
}

func (ps *inductorPools) add(b *allocation, canExpand bool) {
	dev := b.buf.device
	ps.byDev[dev] = append(ps.pools(dev), &inductorPool{root: newTemporal(ps.align, b), canExpand: canExpand})
}

func (ps *inductorPools) allocate(b *allocation) {
	pools := ps.pools(b.buf.device)
	for i, p := range pools {
		if p.allocate(b, i == len(pools)-1) {
			return
		}
	}
	// everything is full, make a new pool
	ps.add(b, ps.mode != PoolNone)
}

// allocateOutput gives outputs their own pools so memory is freed properly.
func (ps *inductorPools) allocateOutput(b *allocation) {
	pools := ps.pools(b.buf.device)
	if len(pools) > 0 && (ps.mode == PoolOutputs || ps.mode == PoolCombined) {
		pools[len(pools)-1].allocateAtEnd(b)
		return
	}
	ps.add(b, ps.mode == PoolCombined)
}

func (inductor) place(req *request) (*placement, error) {
	ps := &inductorPools{byDev: map[string][]*inductorPool{}, mode: req.mode, align: req.align}
	var outputs, intermediates []*allocation
	for _, b := range req.buffers {
		a := &allocation{buf: b, rng: liveRange{b.Begin, b.End}, hint: b.hint, size: b.Size}
		if b.Output && req.mode != PoolCombined {
			outputs = append(outputs, a)
		} else {
			intermediates = append(intermediates, a)
		}
	}
	sort.SliceStable(outputs, func(i, j int) bool {
		x, y := outputs[i], outputs[j]
		if x.hint != y.hint {
			return x.hint < y.hint
		}
		return x.rng.end-x.rng.begin > y.rng.end-y.rng.begin
	})
	for _, a := range outputs {
		ps.allocateOutput(a)
	}
	sort.SliceStable(intermediates, func(i, j int) bool {
		x, y := intermediates[i], intermediates[j]
		if x.hint != y.hint {
			return x.hint > y.hint
		}
		return x.rng.end-x.rng.begin > y.rng.end-y.rng.begin
	})
	for _, a := range intermediates {
		ps.allocate(a)
	}
	// finalize: name the pools across devices and fix every offset.
	placed := newPlacement(req)
	all := append(append([]*allocation(nil), outputs...), intermediates...)
	byPool := map[*inductorPool]*Pool{}
	for _, dev := range ps.devices {
		for _, ip := range ps.byDev[dev] {
			p := &Pool{Device: dev}
			byPool[ip] = p
			placed.pools = append(placed.pools, p)
			ip.root.finalize(ip, expr.Const(0))
			p.Size = ip.root.symSize()
		}
	}
	for _, a := range all {
		placed.put(a.buf, byPool[a.pool], a.offset)
	}
	return placed, nil
}
