package plan

import (
	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// checkOpOverlaps checks, at each symbol assignment, that no op writes an
// output over bytes of one of its own inputs in the same storage (through
// views, a declared inplace or a chosen takeover), but at a pair the op
// declares inplace or its kernel's may_alias allows: the kernel would read
// what it has already written. It is the rule the sentinel kernels of
// `wrapgen selftest` check as the wrapper runs, decided here before any
// number is computed.
func (v *verifier) checkOpOverlaps(envs []expr.Env) {
	bufOf := make([]*Buffer, len(v.p.Graph.Tensors))
	for _, b := range v.p.Buffers {
		for _, t := range b.Tensors {
			bufOf[t.Index] = b
		}
	}
	g := v.p.Graph
	graph.Walk(g.Ops, func(op *graph.Op, _ []*graph.Op) {
		if op.Loop != nil {
			return
		}
		for oi, out := range op.Outputs {
			ob := bufOf[out.Root.Index]
			if ob == nil {
				continue
			}
			for ii, in := range op.Inputs {
				if bufOf[in.Root.Index] != ob || g.MayAlias(op.Kernel, oi, ii) || declaredInplace(op, out, in) {
					continue
				}
				if env, ok := v.overlapAt(out, in, envs); ok {
					v.fail("%s: output %s shares memory with its input %s, which neither an inplace declaration nor the kernel's may_alias allows (at %s)",
						op.Label(), out.Name, in.Name, EnvText(env))
					return
				}
			}
		}
	})
}

// overlapAt is the first symbol assignment at which a and b, in one
// storage, share a byte (their spans from first to last element).
func (v *verifier) overlapAt(a, b *graph.Tensor, envs []expr.Env) (expr.Env, bool) {
	for _, env := range envs {
		as, ae, ok1 := byteSpan(a, env)
		bs, be, ok2 := byteSpan(b, env)
		if ok1 && ok2 && as < be && bs < ae {
			return env, true
		}
	}
	return nil, false
}

// byteSpan is [first, end) of t's bytes in its storage at env; false when
// it is empty or cannot be evaluated (the placement checks report that).
func byteSpan(t *graph.Tensor, env expr.Env) (int64, int64, bool) {
	elems, err := t.ExtentElems.Eval(env)
	if err != nil || elems <= 0 {
		return 0, 0, false
	}
	off := int64(0)
	for u := t; u.ViewOf != nil; u = u.ViewOf {
		o, err := u.Offset.Eval(env)
		if err != nil {
			return 0, 0, false
		}
		off += o
	}
	size := int64(t.DType.Size())
	return off * size, (off + elems) * size, true
}

// declaredInplace reports whether op declares out to take over in.
func declaredInplace(op *graph.Op, out, in *graph.Tensor) bool {
	for _, ip := range op.Inplace {
		if ip.Out == out && ip.In == in {
			return true
		}
	}
	return false
}
