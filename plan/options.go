package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// Options select how a plan is made.
type Options struct {
	Strategy   string     // a name from Strategies; "" means the default
	MemoryPool MemoryPool // "" means intermediates
	Align      int64      // 0 means DefaultAlign
	Hints      expr.Env   // symbol values to plan for; missing ones use the graph's hints
	// NoAlias turns off the in-place reuse the planner chooses from the
	// kernels' may_alias traits (declared inplace pairs are always kept).
	NoAlias bool
	// Horizon is how far the range figures sample a symbol without a max
	// (0: DefaultHorizon).
	Horizon int64
}

// MemoryPool says which buffers may share a pool, as Inductor's planner's
// config.memory_pool.
type MemoryPool string

const (
	PoolNone          MemoryPool = "none"          // pools never grow: a buffer that fits nowhere gets its own
	PoolIntermediates MemoryPool = "intermediates" // intermediates share pools; each output has its own
	PoolOutputs       MemoryPool = "outputs"       // outputs share one pool, intermediates others
	PoolCombined      MemoryPool = "combined"      // outputs and intermediates share pools
)

// MemoryPools lists the modes.
var MemoryPools = []MemoryPool{PoolNone, PoolIntermediates, PoolOutputs, PoolCombined}

// DefaultAlign is the byte alignment of every offset, as Inductor's planner's.
const DefaultAlign = 64

// AlignUp is n rounded up to a multiple of align (n itself when align is
// 0 or 1).
func AlignUp(n, align int64) int64 {
	if align <= 1 {
		return n
	}
	return (n + align - 1) / align * align
}

// OptionError is an option no graph can be planned with; Option is named
// as the commands' flag is.
type OptionError struct {
	Option string // "strategy", "memory-pool" or "align"
	Value  any
	Want   string
}

func (e *OptionError) Error() string { return fmt.Sprintf("%s %v: want %s", e.Option, e.Value, e.Want) }

// Check refuses options no graph can be planned with (zero values stand
// for the defaults): the one place they are checked, by Make and by the
// commands before they read a file.
func (o Options) Check() error {
	if o.Strategy != "" && !slices.Contains(Strategies(), o.Strategy) {
		return &OptionError{"strategy", fmt.Sprintf("%q", o.Strategy), "one of " + strings.Join(Strategies(), ", ")}
	}
	if o.MemoryPool != "" && !slices.Contains(MemoryPools, o.MemoryPool) {
		return &OptionError{"memory-pool", fmt.Sprintf("%q", o.MemoryPool), "none, intermediates, outputs or combined"}
	}
	if o.Horizon < 0 {
		return &OptionError{"range-horizon", o.Horizon, "a positive number"}
	}
	if o.Align != 0 && (o.Align < 1 || o.Align&(o.Align-1) != 0) {
		return &OptionError{"align", o.Align, "a positive power of two"}
	}
	return nil
}

func (o Options) withDefaults(g *graph.Graph) (Options, error) {
	if err := o.Check(); err != nil {
		return o, err
	}
	if o.MemoryPool == "" {
		o.MemoryPool = PoolIntermediates
	}
	if o.Align == 0 {
		o.Align = DefaultAlign
	}
	if o.Horizon == 0 {
		o.Horizon = DefaultHorizon
	}
	hints := g.Hints()
	for name, v := range o.Hints {
		s := g.Symbol(name)
		if s == nil {
			return o, fmt.Errorf("graph %s has no symbol %q", g.Name, name)
		}
		if v < s.Min || (s.HasMax && v > s.Max) {
			return o, fmt.Errorf("%s=%d is outside the symbol's range [%d, %s]", name, v, s.Min, rangeMax(s))
		}
		if s.RunTime() {
			return o, fmt.Errorf("%s is a size set at run time: it has no hint (storages are planned at its bound, %s)", name, *s.Bound)
		}
		hints[name] = v
	}
	g.AtBounds(hints)
	o.Hints = hints
	return o, nil
}

func rangeMax(s *graph.Symbol) string {
	if s.HasMax {
		return fmt.Sprint(s.Max)
	}
	return "∞"
}
