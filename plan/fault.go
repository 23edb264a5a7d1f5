package plan

import (
	"errors"
	"fmt"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// ErrNothingToInject is returned by InjectOverlap when no two storages of a
// pool are live together: the plan cannot be broken that way.
var ErrNothingToInject = errors.New("no two storages of one pool are live together with room to overlap; nothing to inject")

// InjectOverlap breaks p on purpose, as a negative control for selftests:
// it moves one storage onto another of the same pool that is still live
// (and read) after the moved one is first written. Checks that cannot
// catch this plan cannot be trusted. The plan no longer verifies. It
// returns a description of what it did.
func InjectOverlap(p *Plan, env expr.Env) (string, error) {
	var bestA, bestB *Buffer
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
		return "", ErrNothingToInject
	}
	bestB.Offset = bestA.Offset
	return fmt.Sprintf("fault injected: storage of %q moved onto %q at %s[%s] (both live in steps [%d, %d))",
		bestB.Owner().Name, bestA.Owner().Name, bestA.Pool.Name, bestA.Offset, bestB.Begin, bestA.End), nil
}
