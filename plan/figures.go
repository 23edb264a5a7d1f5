package plan

import (
	"fmt"
	"math"
	"sort"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// Figures are a plan's memory numbers at one set of symbol values.
type Figures struct {
	Symbols expr.Env
	// LoadBytes is the lower bound: the largest total of live storage
	// bytes at any step. Sizes are not rounded up to the alignment: a
	// storage alone in its pool (or last in it) needs no padding, so only
	// the exact sizes bound every plan from below.
	LoadBytes int64
	// DeclaredLoadBytes is the lower bound with declared inplace pairs
	// only: what LoadBytes would be without the planner's aliasing.
	DeclaredLoadBytes int64
	// ModeBoundBytes is the lower bound for plans that keep the memory_pool
	// mode's grouping with one pool per group (all intermediates of a device
	// in one pool): each group reserves its own largest live total from its
	// first use to its last, since a pool cannot shrink. Plans that split
	// pools by time can go below it, down to LoadBytes.
	ModeBoundBytes int64
	// PeakBytes is the largest total of pool bytes alive at any step; a
	// pool is alive from its first use to its last.
	PeakBytes int64
	// RunTimeBytes is the same for a wrapper of the plan at these values:
	// its runtime places the storages anew at a call's sizes where that
	// needs less than the plan's placement (wgrt's place.go). Set by
	// callers that lay a wrapper out (wrapgen plan); 0 when not computed.
	RunTimeBytes int64
	// NaiveBytes is what allocating every storage separately and never
	// reusing memory would take: the sum of all storage bytes.
	NaiveBytes int64
	// ParamBytes and ConstantBytes are the params' and inline constants'
	// memory, outside every pool: with the peak, the whole picture.
	ParamBytes, ConstantBytes int64
	// PackedBytes is the params packed into the reference kernels' panels
	// once, when a runner that packs them (wrapgen run) binds them: held
	// beside the params, outside the pools. Set by callers planning for
	// the reference kernels; 0 otherwise.
	PackedBytes int64
	PoolBytes   []int64 // by pool, as Plan.Pools
	BufferBytes []int64 // by buffer id
	Offsets     []int64 // by buffer id
}

// Ratio is peak over the lower bound (1 when both are zero).
func (f *Figures) Ratio() float64 {
	if f.LoadBytes == 0 {
		return 1
	}
	return float64(f.PeakBytes) / float64(f.LoadBytes)
}

// Figures evaluates the plan at env (nil: at the hints).
func (p *Plan) Figures(env expr.Env) (*Figures, error) {
	env = p.WithHints(env)
	f := &Figures{Symbols: env, BufferBytes: make([]int64, len(p.Buffers)), Offsets: make([]int64, len(p.Buffers))}
	var loads, peaks []event
	for _, b := range p.Buffers {
		n, err := b.Size.Eval(env)
		if err != nil {
			return nil, fmt.Errorf("size of %s: %w", b.Owner().Name, err)
		}
		off, err := b.Offset.Eval(env)
		if err != nil {
			return nil, fmt.Errorf("offset of %s: %w", b.Owner().Name, err)
		}
		f.BufferBytes[b.ID], f.Offsets[b.ID] = n, off
		if f.NaiveBytes, err = addCounted(f.NaiveBytes, n, env); err != nil {
			return nil, err
		}
		loads = append(loads, event{b.Begin, n}, event{b.End, -n})
	}
	var poolTotal int64 // bounds the peak, as NaiveBytes bounds the loads
	for _, pool := range p.Pools {
		n, err := pool.Size.Eval(env)
		if err != nil {
			return nil, fmt.Errorf("size of %s: %w", pool.Name, err)
		}
		f.PoolBytes = append(f.PoolBytes, n)
		if poolTotal, err = addCounted(poolTotal, n, env); err != nil {
			return nil, err
		}
		peaks = append(peaks, event{pool.Begin, n}, event{pool.End, -n})
	}
	for _, t := range p.Graph.Params {
		n, err := t.StorageBytes().Eval(env)
		if err != nil {
			return nil, fmt.Errorf("size of param %s: %w", t.Name, err)
		}
		if f.ParamBytes, err = addCounted(f.ParamBytes, n, env); err != nil {
			return nil, err
		}
	}
	for _, t := range p.Graph.Constants {
		f.ConstantBytes += int64(len(t.Data))
	}
	f.LoadBytes = maxLive(loads)
	f.DeclaredLoadBytes = f.LoadBytes
	if p.declared != nil {
		var plain []event
		for _, b := range p.declared {
			n, err := b.Size.Eval(env)
			if err != nil {
				return nil, fmt.Errorf("size of %s: %w", b.Owner().Name, err)
			}
			plain = append(plain, event{b.Begin, n}, event{b.End, -n})
		}
		f.DeclaredLoadBytes = maxLive(plain)
	}
	f.PeakBytes = maxLive(peaks)
	f.ModeBoundBytes = p.modeBound(f)
	return f, nil
}

// addCounted is total + n, or an error when the sum does not fit an int64:
// sums of sizes that each fit still may not (at a large -range-horizon).
func addCounted(total, n int64, env expr.Env) (int64, error) {
	if n > math.MaxInt64-total {
		return 0, fmt.Errorf("the storages together take more bytes than int64 counts at %s", EnvText(env))
	}
	return total + n, nil
}

// modeBound computes Figures.ModeBoundBytes from the evaluated buffer
// sizes. With one pool per mode group, a pool reserves its largest live
// total from its first use to its last. With "none" and "combined" that
// is each group's load over its life. With "intermediates" and "outputs",
// outputs' pools may host intermediates until their outputs are born, so
// what is unavoidable is later: once every output of a device is born, its
// outputs' pools and the intermediates live from then on are all reserved.
func (p *Plan) modeBound(f *Figures) int64 {
	req := &request{buffers: p.Buffers, mode: p.Mode}
	size := func(b *Buffer) int64 { return f.BufferBytes[b.ID] } // exact, as LoadBytes
	if p.Mode != PoolIntermediates && p.Mode != PoolOutputs {
		var groupEvs []event
		for _, g := range modeGroups(req) {
			var evs []event
			begin, end := -1, 0
			for _, b := range g.buffers {
				n := size(b)
				if n == 0 {
					continue
				}
				if begin < 0 || b.Begin < begin {
					begin = b.Begin
				}
				end = max(end, b.End)
				evs = append(evs, event{b.Begin, n}, event{b.End, -n})
			}
			if load := maxLive(evs); load > 0 {
				groupEvs = append(groupEvs, event{begin, load}, event{end, -load})
			}
		}
		return maxLive(groupEvs)
	}
	bound := f.LoadBytes
	for _, g := range modeGroups(req) {
		if hasOutput(g) {
			continue
		}
		// g is a device's intermediates; its outputs' groups are the others.
		var outputs int64
		lastBirth := 0
		for _, og := range modeGroups(req) {
			if og.device != g.device || !hasOutput(og) {
				continue
			}
			var evs []event
			for _, b := range og.buffers {
				evs = append(evs, event{b.Begin, size(b)}, event{b.End, -size(b)})
				lastBirth = max(lastBirth, b.Begin)
			}
			outputs += maxLive(evs)
		}
		var late []event
		for _, b := range g.buffers {
			if b.End > lastBirth {
				late = append(late, event{max(b.Begin, lastBirth), size(b)}, event{b.End, -size(b)})
			}
		}
		bound = max(bound, outputs+maxLive(late))
	}
	return bound
}

type event struct {
	step  int
	delta int64
}

// maxLive sweeps [begin, end) intervals given as +size at begin and -size at
// end, releasing before acquiring at the same step.
func maxLive(evs []event) int64 {
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].step != evs[j].step {
			return evs[i].step < evs[j].step
		}
		return evs[i].delta < evs[j].delta
	})
	var cur, best int64
	for _, e := range evs {
		cur += e.delta
		best = max(best, cur)
	}
	return best
}
