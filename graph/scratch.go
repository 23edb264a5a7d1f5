package graph

import (
	"fmt"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// ScratchRule says how many bytes of scratch memory (workspace: packing
// buffers, accumulators) a kernel implementation needs for op, as an
// expression of the op's operand shapes and attributes; ok is false when
// the kernel needs none. A rule must give the same answer for every op of
// one kernel on whether it needs scratch (the kernel's signature has a
// scratch operand or not).
type ScratchRule func(op *Op) (bytes expr.Expr, ok bool)

// AddScratch gives every kernel op that rule says needs scratch a tensor
// of its own, a u8 [bytes] storage that the op may write and read during
// its call and nothing else touches: planned like any storage (allocated
// right before the call and freed right after it, so scratch of different
// ops shares memory). Call it once, on a graph just read, before planning.
func (g *Graph) AddScratch(rule ScratchRule) error {
	needs := map[string]bool{}
	var err error
	Walk(g.Ops, func(op *Op, _ []*Op) {
		if err != nil {
			return
		}
		if op.Scratch != nil {
			err = fmt.Errorf("%s: %s already has scratch", g.File, op.Label())
			return
		}
		bytes, ok := rule(op)
		if prev, seen := needs[op.Kernel]; seen && prev != ok {
			err = fmt.Errorf("%s: %s: kernel %q needs scratch at some ops and not at others", g.File, op.Label(), op.Kernel)
			return
		}
		needs[op.Kernel] = ok
		if !ok {
			return
		}
		t := &Tensor{Index: len(g.Tensors), Name: g.freshName("scratch " + op.Place), DType: "u8",
			Shape: []expr.Expr{bytes}, Strides: []expr.Expr{expr.Const(1)}, Device: scratchDevice(op),
			ExtentElems: bytes}
		t.Root = t
		t.mayBeEmpty = true // a size the rule computes may be 0
		if capacity := g.atCapacity(bytes); !expr.Equal(capacity, bytes) {
			// Planned at the run-time sizes' bounds, as their tensors are,
			// and checked whenever one is set.
			t.bytes, t.hasBytes = capacity, true
			g.Guards = append(g.Guards, Guard{Fact: expr.Sub(capacity, bytes), Place: op.Place,
				What: fmt.Sprintf("the scratch of %s fits the storage planned at its run-time sizes' bounds", op.Label())})
		}
		g.Tensors = append(g.Tensors, t)
		g.byName[t.Name] = t
		op.Scratch = t
	})
	return err
}

// scratchDevice is where op's scratch lives: with its first output.
func scratchDevice(op *Op) string {
	for _, t := range op.Outputs {
		return t.Device
	}
	for _, t := range op.Inputs {
		return t.Device
	}
	return "cpu"
}

// freshName is base, or base with a number appended, that no tensor of g
// has.
func (g *Graph) freshName(base string) string {
	name := base
	for i := 2; g.byName[name] != nil; i++ {
		name = fmt.Sprintf("%s #%d", base, i)
	}
	return name
}
