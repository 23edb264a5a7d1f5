package plan

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// verifyError lists what is wrong with a plan.
type verifyError struct{ problems []string }

func (e *verifyError) Error() string {
	const shown = 10
	ps := e.problems
	more := ""
	if len(ps) > shown {
		more = fmt.Sprintf("\n(and %d more)", len(ps)-shown)
		ps = ps[:shown]
	}
	return "plan is invalid:\n  " + strings.Join(ps, "\n  ") + more
}

// verifyRounds is how many random symbol assignments verify checks besides
// the hints.
const verifyRounds = 8

// verify checks a plan independently of how it was made: every buffer is
// placed exactly once, inside its pool, aligned; no two buffers of one pool
// that are live at the same step overlap in bytes; no op writes an output
// over its own input's bytes but at a pair it may; the lines allocate before
// and free after every use, and create pools before and release them after.
// Placement is checked at the hints and at random symbol values within the
// symbols' ranges.
func verify(p *Plan) error {
	v := &verifier{p: p}
	v.checkMembership()
	if len(v.problems) > 0 {
		return &verifyError{v.problems} // ids are unsound: nothing else can be indexed by them
	}
	v.checkLines()
	rng := rand.New(rand.NewSource(1))
	envs := []expr.Env{p.WithHints(nil)}
	for i := 0; i < verifyRounds && len(p.Graph.Symbols) > 0; i++ {
		envs = append(envs, randomEnv(p.Graph, rng))
	}
	if len(v.problems) == 0 {
		v.checkOpOverlaps(envs)
	}
	events, exprs := v.poolEvents(), v.placementExprs()
	for _, env := range envs {
		if len(v.problems) > 0 {
			break
		}
		v.checkPlacement(env, events, exprs)
	}
	if len(v.problems) > 0 {
		return &verifyError{v.problems}
	}
	return nil
}

// randomEnv draws each symbol in [min, max]; unbounded symbols up to four
// times their hint (at least min+16), which exercises growth past the hint.
func randomEnv(g *graph.Graph, rng *rand.Rand) expr.Env {
	env := expr.Env{}
	for _, s := range g.Symbols {
		hi := max(satMul4(s.Hint), satAdd16(s.Min))
		if s.HasMax {
			hi = s.Max
		}
		if hi-s.Min == math.MaxInt64 { // [0, 2^63-1]: one more than Int63n takes
			env[s.Name] = rng.Int63()
		} else {
			env[s.Name] = s.Min + rng.Int63n(hi-s.Min+1)
		}
	}
	return env
}

// satMul4 and satAdd16 are 4*v and v + 16 for v >= 0, at most
// math.MaxInt64: symbols' values may be as large as an int64 holds.
func satMul4(v int64) int64 {
	if v > math.MaxInt64/4 {
		return math.MaxInt64
	}
	return 4 * v
}

func satAdd16(v int64) int64 {
	if v > math.MaxInt64-16 {
		return math.MaxInt64
	}
	return v + 16
}

type verifier struct {
	p        *Plan
	problems []string
}

func (v *verifier) fail(format string, args ...any) {
	v.problems = append(v.problems, fmt.Sprintf(format, args...))
}

func (v *verifier) checkMembership() {
	placed := make([]*Pool, len(v.p.Buffers))
	for _, pool := range v.p.Pools {
		for _, b := range pool.Buffers {
			if b.ID < 0 || b.ID >= len(v.p.Buffers) || v.p.Buffers[b.ID] != b {
				v.fail("buffer %s in pool %s has id %d but is not the plan's buffer %d", b.Owner().Name, pool.Name, b.ID, b.ID)
				continue
			}
			if prev := placed[b.ID]; prev != nil {
				v.fail("buffer %s is placed twice (%s and %s)", b.Owner().Name, prev.Name, pool.Name)
			}
			placed[b.ID] = pool
			if b.Pool != pool {
				v.fail("buffer %s is listed in %s but says it is in another pool", b.Owner().Name, pool.Name)
			}
			if b.device != pool.Device {
				v.fail("buffer %s on %s is in pool %s on %s", b.Owner().Name, b.device, pool.Name, pool.Device)
			}
		}
	}
	for i, b := range v.p.Buffers {
		if b.ID != i {
			v.fail("buffer %s is the plan's buffer %d but has id %d", b.Owner().Name, i, b.ID)
		} else if placed[i] == nil {
			v.fail("buffer %s is not placed in any pool", b.Owner().Name)
		}
	}
}

// checkLines replays the lines: every storage a kernel touches must be
// allocated and not yet freed, from a pool that exists; buffers' live ranges
// must cover their lines. It runs after checkMembership found the ids sound.
func (v *verifier) checkLines() {
	alive := make([]bool, len(v.p.Buffers))
	freed := make([]bool, len(v.p.Buffers))
	liveIn := map[*Pool]int{} // live buffers per pool
	poolAlive := map[*Pool]bool{}
	poolDone := map[*Pool]bool{}
	bufOf := make([]*Buffer, len(v.p.Graph.Tensors))
	for _, b := range v.p.Buffers {
		for _, t := range b.Tensors {
			bufOf[t.Index] = b
		}
	}
	ac := newAliasChecker(v)
	for _, l := range v.p.Lines {
		ac.line(l)
		switch l.Kind {
		case LinePoolCreate:
			if poolAlive[l.Pool] || poolDone[l.Pool] {
				v.fail("pool %s is created twice", l.Pool.Name)
			}
			poolAlive[l.Pool] = true
		case LinePoolRelease:
			if liveIn[l.Pool] > 0 {
				for _, b := range l.Pool.Buffers {
					if alive[b.ID] {
						v.fail("pool %s is released while %s is still live", l.Pool.Name, b.Owner().Name)
					}
				}
			}
			poolAlive[l.Pool], poolDone[l.Pool] = false, true
		case LineAllocFromPool:
			b := l.Buffer
			if !v.known(b) {
				continue
			}
			if alive[b.ID] || freed[b.ID] {
				v.fail("buffer %s is allocated twice", b.Owner().Name)
			}
			if !poolAlive[b.Pool] {
				v.fail("buffer %s is allocated from pool %s, which does not exist at that point", b.Owner().Name, b.Pool.Name)
			}
			if l.Step < b.Begin {
				v.fail("buffer %s is allocated at step %d, before its live range [%d, %d)", b.Owner().Name, l.Step, b.Begin, b.End)
			}
			if !alive[b.ID] {
				liveIn[b.Pool]++
			}
			alive[b.ID] = true
		case LineDeallocFromPool:
			b := l.Buffer
			if !v.known(b) {
				continue
			}
			if !alive[b.ID] {
				v.fail("buffer %s is freed without being live", b.Owner().Name)
			} else {
				liveIn[b.Pool]--
			}
			if b.Output {
				v.fail("output buffer %s is freed", b.Owner().Name)
			}
			if l.Step > b.End {
				v.fail("buffer %s is freed at step %d, after its live range [%d, %d)", b.Owner().Name, l.Step, b.Begin, b.End)
			}
			alive[b.ID] = false
			freed[b.ID] = true
		case LineKernel:
			for t := range touched(l.Op) {
				if t.Root.External() {
					continue
				}
				b := bufOf[t.Root.Index]
				if b == nil {
					v.fail("%s touches %s, which has no buffer", l.Op.Label(), t.Name)
				} else if !alive[b.ID] {
					v.fail("%s touches %s while its storage is not allocated", l.Op.Label(), t.Name)
				}
			}
		case lineAlloc, lineFree:
			v.fail("line %s was not rewritten to a pool line", l)
		}
	}
}

// known reports (and fails) a line's buffer that is not one of the plan's.
func (v *verifier) known(b *Buffer) bool {
	if b != nil && b.ID >= 0 && b.ID < len(v.p.Buffers) && v.p.Buffers[b.ID] == b {
		return true
	}
	v.fail("a line refers to a buffer that is not in the plan")
	return false
}

type placed struct {
	off, end int64
	b        *Buffer
}

// poolEvent is a buffer starting or ending in a pool's timeline.
type poolEvent struct {
	step  int
	start bool
	b     *Buffer
}

// poolEvents returns each pool's buffer events in time order (ends before
// starts at a step: ranges are half-open). They do not depend on symbol
// values, so they are sorted once for all the values checked.
func (v *verifier) poolEvents() [][]poolEvent {
	out := make([][]poolEvent, len(v.p.Pools))
	for k, pool := range v.p.Pools {
		evs := make([]poolEvent, 0, 2*len(pool.Buffers))
		for _, b := range pool.Buffers {
			evs = append(evs, poolEvent{b.Begin, true, b}, poolEvent{b.End, false, b})
		}
		sort.Slice(evs, func(i, j int) bool {
			if evs[i].step != evs[j].step {
				return evs[i].step < evs[j].step
			}
			if evs[i].start != evs[j].start {
				return !evs[i].start
			}
			return evs[i].b.ID < evs[j].b.ID
		})
		out[k] = evs
	}
	return out
}

// placementExprs are every buffer's size and offset, by id, ready to
// evaluate at many symbol values.
type placementExprs struct {
	syms        []string
	sizes, offs []expr.AffineEval
}

func (v *verifier) placementExprs() placementExprs {
	var pe placementExprs
	// Only the symbols the sizes and offsets use: a graph with thousands of
	// run-time sizes (in none of them, planned at their bounds) would
	// otherwise make every evaluation that long.
	used := map[string]bool{}
	for _, b := range v.p.Buffers {
		for _, e := range []expr.Expr{b.Size, b.Offset} {
			for _, name := range e.Symbols() {
				used[name] = true
			}
		}
	}
	for _, s := range v.p.Graph.Symbols {
		if used[s.Name] {
			pe.syms = append(pe.syms, s.Name)
		}
	}
	pe.sizes = make([]expr.AffineEval, len(v.p.Buffers))
	pe.offs = make([]expr.AffineEval, len(v.p.Buffers))
	for i, b := range v.p.Buffers {
		pe.sizes[i] = expr.NewAffineEval(b.Size, pe.syms)
		pe.offs[i] = expr.NewAffineEval(b.Offset, pe.syms)
	}
	return pe
}

func (v *verifier) checkPlacement(env expr.Env, events [][]poolEvent, pe placementExprs) {
	at := func() string { return fmt.Sprintf(" (at %s)", EnvText(env)) }
	vals := make([]int64, len(pe.syms))
	for i, s := range pe.syms {
		vals[i] = env[s]
	}
	sizes := make([]int64, len(v.p.Buffers))
	offs := make([]int64, len(v.p.Buffers))
	for k, pool := range v.p.Pools {
		psize, err := pool.Size.Eval(env)
		if err != nil {
			v.fail("pool %s size %s: %v%s", pool.Name, pool.Size, err, at())
			return
		}
		for _, b := range pool.Buffers {
			n, err1 := pe.sizes[b.ID].Eval(vals, env)
			off, err2 := pe.offs[b.ID].Eval(vals, env)
			if err1 != nil || err2 != nil {
				v.fail("buffer %s cannot be evaluated%s: %v %v", b.Owner().Name, at(), err1, err2)
				return
			}
			sizes[b.ID], offs[b.ID] = n, off
			if off < 0 || off%v.p.Align != 0 {
				v.fail("buffer %s offset %d is not a non-negative multiple of %d%s", b.Owner().Name, off, v.p.Align, at())
			}
			if n > 0 && off+n > psize {
				v.fail("buffer %s [%d, %d) reaches past pool %s of %d bytes%s", b.Owner().Name, off, off+n, pool.Name, psize, at())
			}
		}
		v.sweep(pool, events[k], sizes, offs, at)
	}
}

// sweep walks a pool's buffers in time, keeping the live ones ordered by
// offset; a newcomer need only be compared with its neighbours.
func (v *verifier) sweep(pool *Pool, evs []poolEvent, sizes, offs []int64, at func() string) {
	var live []placed
	for _, e := range evs {
		if sizes[e.b.ID] <= 0 {
			continue
		}
		off := offs[e.b.ID]
		i := sort.Search(len(live), func(i int) bool {
			return live[i].off > off || (live[i].off == off && live[i].b.ID >= e.b.ID)
		})
		if !e.start {
			if i < len(live) && live[i].b == e.b {
				live = append(live[:i], live[i+1:]...)
			}
			continue
		}
		cur := placed{off, off + sizes[e.b.ID], e.b}
		if i > 0 && live[i-1].end > cur.off {
			v.overlap(pool, live[i-1], cur, at())
		}
		if i < len(live) && cur.end > live[i].off {
			v.overlap(pool, cur, live[i], at())
		}
		live = append(live, placed{})
		copy(live[i+1:], live[i:])
		live[i] = cur
	}
}

func (v *verifier) overlap(pool *Pool, a, b placed, at string) {
	v.fail("%s: %s [%d, %d) live [%d, %d) overlaps %s [%d, %d) live [%d, %d)%s", pool.Name,
		a.b.Owner().Name, a.off, a.end, a.b.Begin, a.b.End, b.b.Owner().Name, b.off, b.end, b.b.Begin, b.b.End, at)
}
