package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// WithHints is env completed with the plan's hints for the symbols it
// does not give, and the run-time sizes at their bounds there.
func (p *Plan) WithHints(env expr.Env) expr.Env {
	out := expr.Env{}
	for k, v := range p.Hints {
		out[k] = v
	}
	for k, v := range env {
		out[k] = v
	}
	// Run-time sizes env does not give are at their bounds at env's
	// values, not at the hints'.
	p.Graph.AtBounds(out)
	for k, v := range env {
		out[k] = v
	}
	return out
}

// EnvText is symbol values as "a=1, b=2", sorted, for messages and
// reports.
func EnvText(env expr.Env) string {
	var parts []string
	for k, val := range env {
		parts = append(parts, fmt.Sprintf("%s=%d", k, val))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "no symbols"
	}
	return strings.Join(parts, ", ")
}
