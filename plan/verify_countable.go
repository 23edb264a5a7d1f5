package plan

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// checkCountable refuses a plan whose pool sizes or buffer ends overflow
// int64 at the symbols' maximums: each storage fits (the graph checks that),
// but several side by side in one pool may not, and the generated wrapper
// would then compute a wrapped-around size and hand kernels memory that
// overlaps. Sizes grow with the symbols, so the maximums are where they
// are largest; each symbol is also tried alone at its maximum. Only the
// symbols the sizes use are tried: run-time sizes are planned at their
// bounds, and a graph may have thousands of them.
func checkCountable(p *Plan) error {
	g := p.Graph
	used := map[string]bool{}
	for _, name := range sizeSymbols(p.Buffers) {
		used[name] = true
	}
	for _, pool := range p.Pools {
		for _, name := range pool.Size.Symbols() {
			used[name] = true
		}
	}
	all := p.WithHints(nil)
	var envs []expr.Env
	for _, s := range g.Symbols {
		if !s.HasMax || !used[s.Name] {
			continue
		}
		all[s.Name] = s.Max
		one := p.WithHints(nil)
		one[s.Name] = s.Max
		envs = append(envs, one)
	}
	if len(envs) == 0 {
		return nil
	}
	envs = append([]expr.Env{all}, envs...)
	for _, env := range envs {
		for _, pool := range p.Pools {
			if _, err := pool.Size.Eval(env); err != nil {
				return fmt.Errorf("%s: at %s, pool %s on %s would hold %s bytes, more than int64 counts; lower the symbols' max",
					g.Name, EnvText(env), pool.Name, pool.Device, pool.Size)
			}
			for _, b := range pool.Buffers {
				// Evaluated apart and added with a check: building the sum
				// as an expression for every buffer cost more than planning.
				off, err1 := b.Offset.Eval(env)
				size, err2 := b.Size.Eval(env)
				if err1 != nil || err2 != nil || b.Offset.Overflowed() || b.Size.Overflowed() || off > math.MaxInt64-size {
					return fmt.Errorf("%s: at %s, tensor %q in pool %s would end at byte %s, more than int64 counts; lower the symbols' max",
						g.Name, EnvText(env), b.Owner().Name, pool.Name, expr.Add(b.Offset, b.Size))
				}
			}
		}
	}
	return nil
}
