package emit

import "github.com/wrapgen/wrapgen/graph"

// AliasPermit says that at op Op (an index into Model.Ops), output Out
// may occupy the same memory as input In: a declared inplace pair or a
// may_alias trait of the op's kernel. Checkers flag any other overlap of an
// output with an input.
type AliasPermit struct{ Op, Out, In int }

// AliasPermits lists every permitted output/input overlap, by op then
// output then input.
func (m *Model) AliasPermits() []AliasPermit {
	var out []AliasPermit
	for i, op := range m.Ops {
		for o, ot := range op.Outputs {
			for in, it := range op.Inputs {
				if m.Graph.MayAlias(op.Kernel, o, in) || declaredInplace(op.Inplace, ot, it) {
					out = append(out, AliasPermit{i, o, in})
				}
			}
		}
	}
	return out
}

func declaredInplace(ips []graph.Inplace, out, in *graph.Tensor) bool {
	for _, ip := range ips {
		if ip.Out == out && ip.In == in {
			return true
		}
	}
	return false
}
