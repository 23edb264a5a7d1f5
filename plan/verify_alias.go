package plan

import (
	"github.com/wrapgen/wrapgen/graph"
)

// aliasChecker is the verifier's replay of the in-place takeovers the
// planner chose: each must be a pair the kernel's traits allow, joining a
// fresh output to an input of the same layout that has its own storage, is
// no output's, was defined in the same loop scope as the op, and dies at
// the op: no later kernel touches it, any earlier name of its storage, or a
// view of them.
type aliasChecker struct {
	v       *verifier
	loops   []*graph.Op // enclosing loops at the current line
	defLoop []*graph.Op // by tensor: innermost loop around its definition
	gone    []*Line     // by tensor: the chosen Reuse that took it over
	output  []bool      // by tensor: the storage an output is or views
	pending []*Line     // chosen Reuse lines waiting for their kernel
}

func newAliasChecker(v *verifier) *aliasChecker {
	n := len(v.p.Graph.Tensors)
	ac := &aliasChecker{v: v, defLoop: make([]*graph.Op, n), gone: make([]*Line, n), output: make([]bool, n)}
	for _, t := range v.p.Graph.Outputs {
		ac.output[t.Root.Index] = true
	}
	return ac
}

func (ac *aliasChecker) innermost() *graph.Op {
	if len(ac.loops) == 0 {
		return nil
	}
	return ac.loops[len(ac.loops)-1]
}

func (ac *aliasChecker) line(l *Line) {
	switch l.Kind {
	case LineLoopBegin:
		ac.loops = append(ac.loops, l.Op)
	case LineLoopEnd:
		ac.loops = ac.loops[:len(ac.loops)-1]
	case LineReuse:
		if l.chosen {
			ac.checkPair(l)
			ac.pending = append(ac.pending, l)
		}
	case LineKernel:
		for t := range touched(l.Op) {
			for _, u := range []*graph.Tensor{t, t.Root} {
				if r := ac.gone[u.Index]; r != nil {
					ac.v.fail("%s touches %s after %s took over its storage in place at %s", l.Op.Label(), t.Name, r.Tensor.Name, r.Op.Label())
				}
			}
		}
		for _, r := range ac.pending {
			if r.Op != l.Op {
				ac.v.fail("in-place takeover of %s by %s is not followed by its op %s", r.From.Name, r.Tensor.Name, r.Op.Label())
			}
			for _, t := range earlierNames(r) {
				ac.gone[t.Index] = r
			}
		}
		ac.pending = ac.pending[:0]
		for _, t := range l.Op.Outputs {
			ac.defLoop[t.Index] = ac.innermost()
		}
	}
}

// checkPair checks a chosen Reuse line against the op's kernel traits and
// the tensors' layouts, independently of how the planner chose it.
func (ac *aliasChecker) checkPair(l *Line) {
	op, out, in := l.Op, l.Tensor, l.From
	fail := func(why string) {
		ac.v.fail("%s: %s may not take over %s in place: %s", op.Label(), out.Name, in.Name, why)
	}
	outIdx := -1
	for i, t := range op.Outputs {
		if t == out {
			outIdx = i
		}
	}
	inStorage := map[*graph.Tensor]bool{}
	for _, t := range earlierNames(l) {
		inStorage[t] = true
	}
	allowed, read := true, false
	for i, t := range op.Inputs {
		if !inStorage[t.Root] {
			continue
		}
		read = true
		if t != in || !ac.v.p.Graph.MayAlias(op.Kernel, outIdx, i) {
			allowed = false
		}
	}
	for _, t := range op.Mutates {
		allowed = allowed && !inStorage[t.Root]
	}
	for _, t := range op.Outputs {
		allowed = allowed && (t == out || !inStorage[t.Root])
	}
	switch {
	case outIdx < 0 || out.IsView():
		fail("it is not a fresh output of the op")
	case !read:
		fail("it is not an input of the op")
	case !allowed:
		fail("the kernel's may_alias does not allow it at every position the op reads it")
	case in.IsView() || in.Root.External():
		fail("the input has no storage of its own")
	case ac.outputStorage(l):
		fail("the input's storage is an output's")
	case ac.defLoop[in.Index] != ac.innermost():
		fail("the input was defined in another loop scope")
	case !sameLayout(out, in):
		fail("dtype, device, shape or strides differ")
	}
}

// earlierNames are the names the storage had before r's takeover: the
// buffer's names up to r's new one.
func earlierNames(r *Line) []*graph.Tensor {
	for i, t := range r.Buffer.Tensors {
		if t == r.Tensor {
			return r.Buffer.Tensors[:i]
		}
	}
	return r.Buffer.Tensors
}

// outputStorage reports whether an output is, or views, a name the storage
// had before r's takeover.
func (ac *aliasChecker) outputStorage(r *Line) bool {
	for _, t := range earlierNames(r) {
		if ac.output[t.Index] {
			return true
		}
	}
	return false
}
