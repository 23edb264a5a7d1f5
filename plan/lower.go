package plan

import (
	"fmt"
	"iter"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// lowered is a graph lowered to wrapper lines with its buffers and their
// live ranges, before any placement.
type lowered struct {
	lines    []*Line
	buffers  []*Buffer
	lastStep int // outputs live to lastStep+1
	// aliasedOps counts the ops where the planner chose in-place reuse.
	aliasedOps int
}

// lowering follows the ops once to find every storage's first and last use
// (through any alias), then emits the lines.
type lowering struct {
	g                 *graph.Graph
	hints, aliasHints expr.Env
	// kernels are the kernel ops in program order, which both findBuffers
	// and emit follow, with their positions and enclosing loops.
	kernels []kernelAt
	loopEnd map[*graph.Op]int // loop op → position of its end
	// Per tensor (by Tensor.Index) and per buffer (by ID): slices, not maps,
	// since a large graph has hundreds of thousands of each.
	group    []*Buffer     // storage owner (root) → its buffer
	inplaced []bool        // in-place outputs: storage owners that join a group
	defLoops [][]*graph.Op // loops around the first op touching the buffer
	lastPos  []int
	emitted  []bool
	buffers  []*Buffer
	lines    []*Line
	slab     []Line      // lines are allocated in chunks
	freesAt  [][]*Buffer // by program position
	// chosen are the in-place pairs the planner took, by kernel index.
	chosen [][]graph.Inplace
}

type kernelAt struct {
	op    *graph.Op
	pos   int
	loops []*graph.Op
}

// line returns a new line holding l.
func (lw *lowering) line(l Line) *Line {
	if len(lw.slab) == 0 {
		lw.slab = make([]Line, 1024)
	}
	p := &lw.slab[0]
	lw.slab = lw.slab[1:]
	*p = l
	return p
}

// lower turns the graph's ops into wrapper lines: for each op, allocations
// for the storages it touches first, Reuse lines for in-place outputs, the
// kernel, then frees for the storages whose last use (through any view) it
// was. A storage defined outside a loop and touched inside lives until the
// loop ends. hints give the sizes the planner optimises for. With alias, the
// planner also takes the in-place pairs the kernels' traits allow (see
// chooseAliases), weighed at aliasHints; they become Reuse lines like
// declared ones.
func lower(g *graph.Graph, hints, aliasHints expr.Env, alias bool) (*lowered, error) {
	lw := &lowering{
		g: g, hints: hints, aliasHints: aliasHints,
		loopEnd: map[*graph.Op]int{},
		group:   make([]*Buffer, len(g.Tensors)), inplaced: make([]bool, len(g.Tensors)),
	}
	positions := 0
	lw.number(g.Ops, nil, &positions)
	lw.freesAt = make([][]*Buffer, positions)
	aliased := 0
	if alias {
		lw.chosen, aliased = lw.chooseAliases()
	}
	if err := lw.findBuffers(); err != nil {
		return nil, err
	}
	lw.markOutputs()
	for _, b := range lw.buffers { // by ID, so each step's frees are in ID order
		if !b.Output {
			p := lw.lastPos[b.ID]
			lw.freesAt[p] = append(lw.freesAt[p], b)
		}
	}
	lw.emitted = make([]bool, len(lw.buffers))
	lw.emit(g.Ops, 0, new(int))
	prog := &lowered{lines: lw.lines, buffers: lw.buffers, aliasedOps: aliased}
	prog.lastStep = computeLiveRanges(prog.lines, prog.buffers)
	return prog, nil
}

func (lw *lowering) number(ops []*graph.Op, loops []*graph.Op, next *int) {
	for _, op := range ops {
		if op.Loop != nil {
			inner := append(append([]*graph.Op(nil), loops...), op)
			lw.number(op.Loop.Body, inner, next)
			lw.loopEnd[op] = *next
			*next++
			continue
		}
		lw.kernels = append(lw.kernels, kernelAt{op, *next, loops})
		*next++
	}
}

// touched yields the tensors op touches: its inputs, outputs, mutated
// tensors and scratch, without building a slice (this runs for every op of
// large graphs). Scratch is touched by its op alone, so it is allocated
// right before the call and freed right after.
func touched(op *graph.Op) iter.Seq[*graph.Tensor] {
	return func(yield func(*graph.Tensor) bool) {
		if op.Scratch != nil && !yield(op.Scratch) {
			return
		}
		for _, ts := range [][]*graph.Tensor{op.Inputs, op.Outputs, op.Mutates} {
			for _, t := range ts {
				if !yield(t) {
					return
				}
			}
		}
	}
}

// findBuffers creates a buffer for each storage at its first touch, joins
// in-place outputs to their input's buffer, and records each buffer's last
// use, extended to the end of any loop that touches it from outside.
func (lw *lowering) findBuffers() error {
	for ki, k := range lw.kernels {
		op, opPos, opLoops := k.op, k.pos, k.loops
		for _, ip := range lw.inplace(ki) {
			b := lw.group[ip.In.Root.Index]
			if b == nil {
				return fmt.Errorf("%s: in-place input %q has no storage", op.Label(), ip.In.Name)
			}
			lw.group[ip.Out.Index] = b
			lw.inplaced[ip.Out.Index] = true
			b.Tensors = append(b.Tensors, ip.Out)
		}
		for t := range touched(op) {
			root := t.Root
			if root.External() {
				continue
			}
			b := lw.group[root.Index]
			if b == nil {
				size := root.StorageBytes()
				hint, err := size.Eval(lw.hints)
				if err != nil {
					return fmt.Errorf("%s: size of %q: %v", op.Label(), root.Name, err)
				}
				b = &Buffer{ID: len(lw.buffers), Tensors: []*graph.Tensor{root}, device: root.Device, Size: size, hint: hint}
				lw.buffers = append(lw.buffers, b)
				lw.group[root.Index] = b
				lw.defLoops = append(lw.defLoops, opLoops)
				lw.lastPos = append(lw.lastPos, -1)
			}
			if p := lw.effectivePos(opPos, opLoops, b); p > lw.lastPos[b.ID] {
				lw.lastPos[b.ID] = p
			}
		}
	}
	return nil
}

// effectivePos is where a use of b at an op (at pos, inside loops) ends:
// the op itself, or the end of the outermost enclosing loop that b was
// defined outside of.
func (lw *lowering) effectivePos(pos int, loops []*graph.Op, b *Buffer) int {
	return lw.loopExit(pos, loops, lw.defLoops[b.ID])
}

func (lw *lowering) markOutputs() {
	for _, t := range lw.g.Outputs {
		if b := lw.group[t.Root.Index]; b != nil {
			b.Output = true
		}
		if b := lw.group[t.Index]; b != nil {
			b.Output = true
		}
	}
}

// emit writes the lines of ops; next is the index in lw.kernels of the
// next kernel op, which is visited in the same order as number made it.
func (lw *lowering) emit(ops []*graph.Op, depth int, next *int) {
	for _, op := range ops {
		if op.Loop != nil {
			lw.lines = append(lw.lines, lw.line(Line{Kind: LineLoopBegin, Op: op, Depth: depth}))
			lw.emit(op.Loop.Body, depth+1, next)
			lw.lines = append(lw.lines, lw.line(Line{Kind: LineLoopEnd, Op: op, Depth: depth}))
			lw.emitFrees(lw.loopEnd[op], depth)
			continue
		}
		for t := range touched(op) {
			if t.Root.External() || lw.inplaced[t.Index] {
				continue
			}
			b := lw.group[t.Root.Index]
			if !lw.emitted[b.ID] {
				lw.emitted[b.ID] = true
				lw.lines = append(lw.lines, lw.line(Line{Kind: lineAlloc, Buffer: b, Tensor: b.Owner(), Depth: depth}))
			}
		}
		for i, ip := range lw.inplace(*next) {
			lw.lines = append(lw.lines, lw.line(Line{Kind: LineReuse, Op: op, Buffer: lw.group[ip.Out.Index], Tensor: ip.Out, From: ip.In,
				chosen: i >= len(op.Inplace), Depth: depth}))
		}
		lw.lines = append(lw.lines, lw.line(Line{Kind: LineKernel, Op: op, Depth: depth}))
		lw.emitFrees(lw.kernels[*next].pos, depth)
		*next++
	}
}

// inplace is the in-place pairs of the kernel op at index ki: the declared
// ones, then those the planner chose.
func (lw *lowering) inplace(ki int) []graph.Inplace {
	op := lw.kernels[ki].op
	if lw.chosen == nil || len(lw.chosen[ki]) == 0 {
		return op.Inplace
	}
	return append(op.Inplace[:len(op.Inplace):len(op.Inplace)], lw.chosen[ki]...)
}

func (lw *lowering) emitFrees(pos, depth int) {
	for _, b := range lw.freesAt[pos] {
		lw.lines = append(lw.lines, lw.line(Line{Kind: lineFree, Buffer: b, Tensor: b.Tensors[len(b.Tensors)-1], Depth: depth}))
	}
}

// computeLiveRanges numbers the timesteps exactly as Inductor's planner's
// compute_live_ranges: each run of consecutive memory lines is one step; a
// buffer lives from its allocation's step to its free's step, outputs one
// step past the last. It returns the last step.
func computeLiveRanges(lines []*Line, buffers []*Buffer) int {
	step := 0
	inRun := false
	seen := make([]bool, len(buffers))
	for _, l := range lines {
		if !l.Kind.isMemory() {
			inRun = false
			l.Step = 0
			continue
		}
		if !inRun {
			step++
			inRun = true
		}
		l.Step = step
		if l.Kind == LineReuse || l.Buffer == nil {
			continue
		}
		b := l.Buffer
		if !seen[b.ID] {
			seen[b.ID] = true
			b.Begin, b.End = step, step
		}
		b.Begin, b.End = min(b.Begin, step), max(b.End, step)
	}
	step++
	for _, b := range buffers {
		if b.Output {
			b.End = max(b.End, step)
		}
	}
	return step - 1
}
