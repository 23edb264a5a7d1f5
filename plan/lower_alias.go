package plan

import (
	"cmp"
	"slices"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// Planner-chosen in-place reuse (nvFuser's "inner aliasing"): at an op whose
// kernel declares may_alias pairs, an output may take over the storage of an
// input that dies there, exactly as a declared inplace would. The choice is
// made once, before buffers are formed, from the graph alone; it never
// changes the graph.

// chooseAliases returns, per kernel op (in lw.kernels order), the in-place
// pairs the planner takes, and how many ops got at least one.
func (lw *lowering) chooseAliases() (chosen [][]graph.Inplace, ops int) {
	g := lw.g
	if len(g.Traits) == 0 {
		return nil, 0
	}
	n := len(g.Tensors)
	// storage numbers the storages as declared inplace pairs group them:
	// views of a tensor taken over in place may still be read after the
	// takeover, so the group, not the name, must die at the op.
	storage := make([]int, n)
	for i := range storage {
		storage[i] = i
	}
	// lastUse is, per storage, the position of its last use through any
	// name or view, extended to the end of a loop it is touched in from
	// outside; defLoops the loops around its first touch.
	lastUse := make([]int, n)
	defLoops := make([][]*graph.Op, n)
	seen := make([]bool, n)
	born := make([]int, n) // position of the first touch of the storage a tensor is in
	for _, k := range lw.kernels {
		for _, ip := range k.op.Inplace {
			storage[ip.Out.Index] = storage[ip.In.Root.Index]
			born[ip.Out.Index] = born[ip.In.Index]
		}
		for t := range touched(k.op) {
			s := storage[t.Root.Index]
			if !seen[s] {
				seen[s] = true
				defLoops[s] = k.loops
				born[s] = k.pos
			}
			lastUse[s] = max(lastUse[s], lw.loopExit(k.pos, k.loops, defLoops[s]))
		}
	}
	// outputStorage marks storages that an output is or views: never taken.
	outputStorage := make([]bool, n)
	for _, t := range g.Outputs {
		outputStorage[storage[t.Root.Index]] = true
	}
	taken := make([]bool, n) // inputs already taken over, declared or chosen
	for _, k := range lw.kernels {
		for _, ip := range k.op.Inplace {
			taken[ip.In.Index] = true
		}
	}
	chosen = make([][]graph.Inplace, len(lw.kernels))
	for ki, k := range lw.kernels {
		pairs := g.Traits[k.op.Kernel].MayAlias
		if len(pairs) == 0 {
			continue
		}
		var cands []aliasCandidate
		for _, pr := range pairs {
			if pr.In >= len(k.op.Inputs) {
				continue // a fused kernel's optional input this call lacks
			}
			out, in := k.op.Outputs[pr.Out], k.op.Inputs[pr.In]
			if taken[in.Index] || in.IsView() || in.Root.External() {
				continue
			}
			s := storage[in.Index]
			inStorage := func(t *graph.Tensor) bool { return storage[t.Root.Index] == s }
			if outputStorage[s] || lastUse[s] != k.pos || defLoopsDiffer(defLoops[s], k.loops) ||
				!ownStorageHere(k.op, out) || !sameLayout(out, in) || !onlyAllowedReads(g, k.op, pr.Out, in, inStorage) {
				continue
			}
			hint, err := out.StorageBytes().Eval(lw.aliasHints)
			if err != nil {
				continue
			}
			cands = append(cands, aliasCandidate{out: out, in: in, bytes: hint, born: born[s]})
		}
		if len(cands) == 0 {
			continue
		}
		matched := bestMatching(cands)
		slices.SortFunc(matched, func(a, b aliasCandidate) int { return cmp.Compare(a.out.Index, b.out.Index) })
		for _, c := range matched {
			taken[c.in.Index] = true
			born[storage[c.out.Index]] = born[storage[c.in.Index]]
			chosen[ki] = append(chosen[ki], graph.Inplace{Out: c.out, In: c.in})
		}
		ops++
	}
	return chosen, ops
}

// loopExit is where a use at pos (inside loops) ends for a storage first
// touched inside defLoops: the op, or the end of the outermost enclosing
// loop the storage was defined outside of.
func (lw *lowering) loopExit(pos int, loops, defLoops []*graph.Op) int {
	for _, l := range loops {
		inside := false
		for _, dl := range defLoops {
			inside = inside || dl == l
		}
		if !inside {
			return lw.loopEnd[l]
		}
	}
	return pos
}

// defLoopsDiffer reports whether a storage first touched inside a was
// touched in a different loop nest than b: its memory then belongs to
// another iteration scope and cannot be handed to the op's output.
func defLoopsDiffer(a, b []*graph.Op) bool {
	if len(a) != len(b) {
		return true
	}
	for i := range a {
		if a[i] != b[i] {
			return true
		}
	}
	return false
}

// ownStorageHere reports whether out is a fresh storage born at op: not a
// view, not already taking over an input by a declared inplace.
func ownStorageHere(op *graph.Op, out *graph.Tensor) bool {
	if out.IsView() {
		return false
	}
	for _, ip := range op.Inplace {
		if ip.Out == out {
			return false
		}
	}
	return true
}

// sameLayout reports whether out can live in in's memory element for
// element: same dtype, device, shape and strides.
func sameLayout(out, in *graph.Tensor) bool {
	if out.DType != in.DType || out.Device != in.Device || len(out.Shape) != len(in.Shape) {
		return false
	}
	for i := range out.Shape {
		if !expr.Equal(out.Shape[i], in.Shape[i]) || !expr.Equal(out.Strides[i], in.Strides[i]) {
			return false
		}
	}
	return true
}

// onlyAllowedReads reports whether the op touches in's storage (the
// tensors inStorage accepts) only as in itself, at input positions the
// kernel lets output outIdx alias: a second read through another name or a
// view, a mutation or another output there would see the output's writes.
func onlyAllowedReads(g *graph.Graph, op *graph.Op, outIdx int, in *graph.Tensor, inStorage func(*graph.Tensor) bool) bool {
	for i, t := range op.Inputs {
		if !inStorage(t) {
			continue
		}
		if t != in || !g.MayAlias(op.Kernel, outIdx, i) {
			return false
		}
	}
	for _, t := range op.Mutates {
		if inStorage(t) {
			return false
		}
	}
	for _, t := range op.Outputs {
		if inStorage(t) {
			return false
		}
	}
	return true
}

type aliasCandidate struct {
	out, in *graph.Tensor
	bytes   int64 // the output's storage at the hints: what taking it saves at the op
	born    int
}

// bestMatching picks pairs with no output and no input used twice,
// maximising the bytes saved at the op (the only step where a joined pair
// lowers the live total, so the choice that lowers the peak); ties go to
// the youngest inputs, whose joined storage spans the fewest steps. An op
// has a handful of pairs, so the search is exhaustive up to
// maxExactCandidates and greedy in order of preference beyond.
func bestMatching(cands []aliasCandidate) []aliasCandidate {
	slices.SortStableFunc(cands, func(a, b aliasCandidate) int {
		if c := cmp.Compare(b.bytes, a.bytes); c != 0 {
			return c
		}
		return cmp.Compare(b.born, a.born)
	})
	var best, cur []aliasCandidate
	var bestTotal int64 = -1
	var search func(i int, total int64)
	search = func(i int, total int64) {
		if i == len(cands) || len(cands) > maxExactCandidates {
			if len(cands) > maxExactCandidates {
				cur, total = greedyMatching(cands)
			}
			if total > bestTotal {
				best, bestTotal = slices.Clone(cur), total
			}
			return
		}
		c := cands[i]
		if !slices.ContainsFunc(cur, func(x aliasCandidate) bool { return x.out == c.out || x.in == c.in }) {
			cur = append(cur, c)
			search(i+1, total+c.bytes)
			cur = cur[:len(cur)-1]
		}
		search(i+1, total)
	}
	search(0, 0)
	return best
}

const maxExactCandidates = 12

// greedyMatching takes candidates in order, skipping any that reuse an
// output or input already taken.
func greedyMatching(cands []aliasCandidate) (sel []aliasCandidate, total int64) {
	for _, c := range cands {
		if !slices.ContainsFunc(sel, func(x aliasCandidate) bool { return x.out == c.out || x.in == c.in }) {
			sel = append(sel, c)
			total += c.bytes
		}
	}
	return sel, total
}

// AliasedBuffers are the storages in which the planner joined an output to
// an input by may_alias (reports mark them).
func (p *Plan) AliasedBuffers() map[*Buffer]bool {
	out := map[*Buffer]bool{}
	for _, l := range p.Lines {
		if l.Kind == LineReuse && l.chosen {
			out[l.Buffer] = true
		}
	}
	return out
}
