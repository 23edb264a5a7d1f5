// Package plan turns a validated graph into a memory plan: wrapper lines,
// buffers with live ranges, and a placement of every buffer in a pool at a
// symbolic offset. It knows nothing of any backend.
package plan

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

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

// Options select how a plan is made.
type Options struct {
	Strategy   string     // a name from Strategies; "" means the default
	MemoryPool MemoryPool // "" means intermediates
	Align      int64      // 0 means DefaultAlign
	Hints      expr.Env   // symbol values to plan for; missing ones use the graph's hints
	// NoAlias turns off the in-place reuse the planner chooses from the
	// kernels' may_alias traits (declared inplace pairs are always kept).
	NoAlias bool
}

// Request is what a strategy places: buffers with live ranges and sizes.
type Request struct {
	Buffers []*Buffer
	Mode    MemoryPool
	Align   int64
	Bounds  expr.Bounds // symbol ranges: placements must hold for all of them
	Hints   expr.Env

	groups []poolGroup // poolGroups' result, made once for every strategy
}

// Strategy places every buffer of a request in a pool at an offset and
// returns the placement, leaving the request as it was. Offsets and sizes
// must be correct for every symbol value within Bounds.
type Strategy interface {
	Name() string
	Place(req *Request) (*Placement, error)
}

// Plan is a placed program.
type Plan struct {
	Graph    *graph.Graph
	Strategy string
	Winner   string // for "best": the strategy whose placement was kept
	Mode     MemoryPool
	Align    int64
	Hints    expr.Env // the symbol values planned for
	Lines    []*Line  // with AllocFromPool / DeallocFromPool and pool lines
	Buffers  []*Buffer
	Pools    []*Pool
	LastStep int // outputs live to LastStep+1
	// AliasedOps counts the ops the planner made in place from kernel
	// traits; declared holds the buffers' live ranges without those
	// choices (nil when there are none), for the bound before aliasing.
	AliasedOps int
	declared   []*Buffer
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
	hints := g.Hints()
	for name, v := range o.Hints {
		s := g.Symbol(name)
		if s == nil {
			return o, fmt.Errorf("graph %s has no symbol %q", g.Name, name)
		}
		if v < s.Min || (s.HasMax && v > s.Max) {
			return o, fmt.Errorf("%s=%d is outside the symbol's range [%d, %s]", name, v, s.Min, rangeMax(s))
		}
		hints[name] = v
	}
	o.Hints = hints
	return o, nil
}

func rangeMax(s *graph.Symbol) string {
	if s.HasMax {
		return fmt.Sprint(s.Max)
	}
	return "∞"
}

// Make lowers g, places its buffers with the chosen strategy, rewrites the
// lines to pool lines and verifies the result. A plan that fails
// verification is an error, never returned.
func Make(g *graph.Graph, opts Options) (*Plan, error) {
	opts, err := opts.withDefaults(g)
	if err != nil {
		return nil, err
	}
	strat, err := StrategyByName(opts.Strategy)
	if err != nil {
		return nil, err
	}
	prog, err := Lower(g, opts.Hints, !opts.NoAlias)
	if err != nil {
		return nil, err
	}
	var declared []*Buffer
	if prog.AliasedOps > 0 {
		plain, err := Lower(g, opts.Hints, false)
		if err != nil {
			return nil, err
		}
		declared = plain.Buffers
	}
	req := &Request{Buffers: prog.Buffers, Mode: opts.MemoryPool, Align: opts.Align, Bounds: g.Bounds(), Hints: opts.Hints}
	placed, err := strat.Place(req)
	if err != nil {
		return nil, fmt.Errorf("strategy %s: %w", strat.Name(), err)
	}
	placed.apply(prog.Buffers)
	pools := placed.Pools
	p := &Plan{Graph: g, Strategy: strat.Name(), Winner: placed.Winner, Mode: opts.MemoryPool, Align: opts.Align, Hints: opts.Hints,
		Buffers: prog.Buffers, Pools: pools, LastStep: prog.LastStep, AliasedOps: prog.AliasedOps, declared: declared}
	p.finishPools()
	if err := checkCountable(p); err != nil {
		return nil, err
	}
	p.Lines = rewriteToPoolLines(prog.Lines, p.Pools)
	if err := Verify(p); err != nil {
		return nil, fmt.Errorf("strategy %s made a plan that fails verification (a bug in wrapgen; try another -strategy): %w", strat.Name(), err)
	}
	return p, nil
}

// finishPools names the pools in order and sorts their buffers by id.
func (p *Plan) finishPools() {
	for i, pool := range p.Pools {
		pool.Name = fmt.Sprintf("pool%d", i)
		sort.Slice(pool.Buffers, func(a, b int) bool { return pool.Buffers[a].ID < pool.Buffers[b].ID })
		pool.updateRange()
	}
}

// DefaultStrategy is used when Options.Strategy is empty.
const DefaultStrategy = "best"

// Strategies lists the strategy names, sorted.
func Strategies() []string {
	var out []string
	for _, s := range strategyTable {
		out = append(out, s.Name())
	}
	sort.Strings(out)
	return out
}

// StrategyByName finds a strategy; "" is the default.
func StrategyByName(name string) (Strategy, error) {
	if name == "" {
		name = DefaultStrategy
	}
	for _, s := range strategyTable {
		if s.Name() == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("unknown strategy %q (one of %s)", name, strings.Join(Strategies(), ", "))
}

// StrategyText names the strategy for people: "best (search won)".
func (p *Plan) StrategyText() string {
	if p.Winner != "" {
		return fmt.Sprintf("%s (%s won)", p.Strategy, p.Winner)
	}
	return p.Strategy
}
