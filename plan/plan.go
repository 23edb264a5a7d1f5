package plan

import (
	"fmt"
	"sort"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// Plan is a placed program.
type Plan struct {
	Graph    *graph.Graph
	Strategy string
	Winner   string // for "best": the strategy whose placement was kept
	Mode     MemoryPool
	Align    int64
	Hints    expr.Env // the symbol values planned for
	Horizon  int64    // how far the range figures sample a symbol without a max
	Lines    []*Line  // with AllocFromPool / DeallocFromPool and pool lines
	Buffers  []*Buffer
	Pools    []*Pool
	LastStep int // outputs live to LastStep+1
	// AliasedOps counts the ops the planner made in place from kernel
	// traits; declared holds the buffers' live ranges without those
	// choices (nil when there are none), for the bound before aliasing.
	AliasedOps int
	declared   []*Buffer
	// KeepPlacement says a wrapper must run this plan's placement at
	// every size, never place the storages anew at a call's: set on a
	// plan with a fault planted in it (wrapgen selftest -fault), so that
	// the fault is what runs.
	KeepPlacement bool
}

// Make lowers g, places its buffers with the chosen strategy, rewrites the
// lines to pool lines and verifies the result. A plan that fails
// verification is an error, never returned. It is what every wrapper of g
// holds (package emit prints it; the runtimes place its storages anew at a
// call's sizes where that needs less).
func Make(g *graph.Graph, opts Options) (*Plan, error) {
	opts, err := opts.withDefaults(g)
	if err != nil {
		return nil, err
	}
	strat, err := strategyByName(opts.Strategy)
	if err != nil {
		return nil, err
	}
	return makeWith(g, opts, strat)
}

// makeWith is Make with strat and opts with their defaults: the stages
// plan/doc.go names, in order.
func makeWith(g *graph.Graph, opts Options, strat strategy) (*Plan, error) {
	prep, err := prepare(g, opts)
	if err != nil {
		return nil, err
	}
	placed, err := strat.place(prep.req)
	if err != nil {
		return nil, fmt.Errorf("strategy %s: %w", strat.name(), err)
	}
	return finish(g, opts, strat, prep, placed)
}

// prepared is what placement starts from: the lowered program, its
// buffers without the planner's in-place choices (for the bound before
// aliasing), and the request a strategy answers.
type prepared struct {
	prog     *lowered
	declared []*Buffer
	req      *request
}

// prepare lowers g to lines and buffers with live ranges (in-place pairs
// chosen unless NoAlias) and states the placement problem.
func prepare(g *graph.Graph, opts Options) (*prepared, error) {
	prog, err := lower(g, opts.Hints, opts.Hints, !opts.NoAlias)
	if err != nil {
		return nil, err
	}
	pr := &prepared{prog: prog}
	if prog.aliasedOps > 0 {
		plain, err := lower(g, opts.Hints, nil, false)
		if err != nil {
			return nil, err
		}
		pr.declared = plain.buffers
	}
	pr.req = &request{buffers: prog.buffers, mode: opts.MemoryPool, align: opts.Align, bounds: g.Bounds(), hints: opts.Hints}
	if len(prog.buffers) <= MaxRangeBuffers {
		pr.req.points = (&Plan{Graph: g, Hints: opts.Hints, Horizon: opts.Horizon}).samplePoints()
	}
	return pr, nil
}

// finish applies a placement: names the pools, checks every size fits an
// int64 at the symbols' maximums, rewrites the lines to pool lines, and
// verifies the plan.
func finish(g *graph.Graph, opts Options, strat strategy, prep *prepared, placed *placement) (*Plan, error) {
	prog := prep.prog
	placed.apply(prog.buffers)
	p := &Plan{Graph: g, Strategy: strat.name(), Winner: placed.winner, Mode: opts.MemoryPool, Align: opts.Align, Hints: opts.Hints, Horizon: opts.Horizon,
		Buffers: prog.buffers, Pools: placed.pools, LastStep: prog.lastStep, AliasedOps: prog.aliasedOps, declared: prep.declared}
	p.finishPools()
	if err := checkCountable(p); err != nil {
		return nil, err
	}
	p.Lines = rewriteToPoolLines(prog.lines, p.Pools)
	if err := verify(p); err != nil {
		return nil, fmt.Errorf("strategy %s made a plan that fails verification (a bug in wrapgen; try another -strategy): %w", strat.name(), err)
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

// StrategyText names the strategy for people: "best (search won)".
func (p *Plan) StrategyText() string {
	if p.Winner != "" {
		return fmt.Sprintf("%s (%s won)", p.Strategy, p.Winner)
	}
	return p.Strategy
}
