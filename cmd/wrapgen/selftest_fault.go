package main

import (
	"errors"
	"fmt"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/plan"
)

// errNothingToInject is returned by injectOverlap when no two storages of a
// pool are live together: the plan cannot be broken that way.
var errNothingToInject = errors.New("no two storages of one pool are live together with room to overlap; nothing to inject")

// injectOverlap breaks p on purpose, as a negative control for selftests:
// it moves one storage onto another of the same pool that is still live
// (and read) after the moved one is first written. Checks that cannot
// catch this plan cannot be trusted. The plan no longer verifies. It
// returns a description of what it did.
func injectOverlap(p *plan.Plan, env expr.Env) (string, error) {
	var bestA, bestB *plan.Buffer
	bestGap := 1
	for _, pool := range p.Pools {
		size, err := pool.Size.Eval(env)
		if err != nil {
			return "", err
		}
		for _, a := range pool.Buffers {
			for _, b := range pool.Buffers {
				// b is first written while a is live, and a is used at
				// least one step later.
				if a == b || a.Begin >= b.Begin || a.End-b.Begin <= bestGap {
					continue
				}
				aOff, err1 := a.Offset.Eval(env)
				bSize, err2 := b.Size.Eval(env)
				aSize, err3 := a.Size.Eval(env)
				if err1 != nil || err2 != nil || err3 != nil || aSize == 0 || bSize == 0 || aOff+bSize > size {
					continue
				}
				bestA, bestB, bestGap = a, b, a.End-b.Begin
			}
		}
	}
	if bestA == nil {
		return "", errNothingToInject
	}
	bestB.Offset = bestA.Offset
	p.KeepPlacement = true
	return fmt.Sprintf("fault injected: storage of %q moved onto %q at %s[%s] (both live in steps [%d, %d))",
		bestB.Owner().Name, bestA.Owner().Name, bestA.Pool.Name, bestA.Offset, bestB.Begin, bestA.End), nil
}

// injectAlias breaks p on purpose, as the negative control of in-place
// reuse: at an op, it moves a fresh output onto an input of the same pool
// that dies there, a pair the kernel does not allow (no inplace
// declaration, no may_alias). Every input is read intact before the output
// is written, so only a check of which pairs may share memory can catch it.
// The plan no longer verifies. It returns a description of what it did.
func injectAlias(p *plan.Plan, env expr.Env) (string, error) {
	bufOf := map[*graph.Tensor]*plan.Buffer{}
	for _, b := range p.Buffers {
		for _, t := range b.Tensors {
			bufOf[t] = b
		}
	}
	var op *graph.Op
	var out, in *plan.Buffer
	var outName, inName string
	graph.Walk(p.Graph.Ops, func(o *graph.Op, _ []*graph.Op) {
		if op != nil {
			return
		}
		for oi, ot := range o.Outputs {
			ob := bufOf[ot]
			if ob == nil || ob.Owner() != ot || ot.IsView() {
				continue
			}
			for ii, it := range o.Inputs {
				ib := bufOf[it]
				if ib == nil || ib == ob || ib.Pool != ob.Pool || it.IsView() || p.Graph.MayAlias(o.Kernel, oi, ii) ||
					ib.End != ob.Begin+1 { // the input is freed right after the op that allocates the output
					continue
				}
				pool, err1 := ib.Pool.Size.Eval(env)
				off, err2 := ib.Offset.Eval(env)
				size, err3 := ob.Size.Eval(env)
				if err1 != nil || err2 != nil || err3 != nil || size == 0 || off+size > pool {
					continue
				}
				op, out, in, outName, inName = o, ob, ib, ot.Name, it.Name
				return
			}
		}
	})
	if op == nil {
		return "", fmt.Errorf("no op has a fresh output and a dying input in one pool to alias; nothing to inject")
	}
	out.Offset = in.Offset
	p.KeepPlacement = true
	return fmt.Sprintf("fault injected: at %s, output %q moved onto input %q at %s[%s], a pair the kernel does not allow",
		op.Label(), outName, inName, in.Pool.Name, in.Offset), nil
}
