package report

import (
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/plan"
)

// Plan is the -json form of a plan (wrapgen plan -json). Byte figures are
// evaluated at Symbols.
type Plan struct {
	Graph      string   `json:"graph"`
	Strategy   string   `json:"strategy"`
	Winner     string   `json:"winner,omitempty"`
	MemoryPool string   `json:"memory_pool"`
	Align      int64    `json:"align"`
	Symbols    expr.Env `json:"symbols"`
	Hints      expr.Env `json:"hints"`
	LoadBytes  int64    `json:"load_bytes"`
	// DeclaredLoad is the lower bound with declared inplace pairs only,
	// before the planner's aliasing; AliasedOps the ops it made in place.
	DeclaredLoad int64   `json:"declared_load_bytes"`
	AliasedOps   int     `json:"aliased_ops"`
	ModeBound    int64   `json:"mode_bound_bytes"`
	PeakBytes    int64   `json:"peak_bytes"`
	NaiveBytes   int64   `json:"naive_bytes"`
	Ratio        float64 `json:"peak_over_load"`
	// RunTimePeak is what a wrapper holds at these values, its storages
	// placed at these sizes where that needs less than the plan's
	// placement; RunTimeRatio that over the lower bound.
	RunTimePeak  int64   `json:"run_time_peak_bytes,omitempty"`
	RunTimeRatio float64 `json:"run_time_over_load,omitempty"`
	// ParamBytes and ConstantBytes are memory outside the pools: the
	// params (weights, bound once) and the inline constants.
	ParamBytes    int64 `json:"param_bytes"`
	ConstantBytes int64 `json:"constant_bytes"`
	// PackedParamBytes is the params packed once for the reference
	// kernels by wrapgen run (with -kernels ref; 0 otherwise).
	PackedParamBytes int64 `json:"packed_param_bytes,omitempty"`
	// RangeWorst and RangeGeomean are peak_over_load across the symbols'
	// ranges (the sample points of Plan.Range), the worst at RangeWorstAt.
	RangeWorst   float64  `json:"range_worst"`
	RangeWorstAt expr.Env `json:"range_worst_at"`
	RangeGeomean float64  `json:"range_geomean"`
	RangePoints  int      `json:"range_points"`
	// Guards are the facts the wrapper checks when it binds symbols (those
	// wrapgen could not prove for every value in range).
	Guards  []string `json:"guards"`
	Steps   int      `json:"steps"`
	Pools   []Pool   `json:"pools"`
	Buffers []Buffer `json:"buffers"`
}

// Pool is one pool of a Plan.
type Pool struct {
	Name     string `json:"name"`
	Device   string `json:"device"`
	Bytes    int64  `json:"bytes"`
	SizeExpr string `json:"size_expr"`
	Begin    int    `json:"begin"`
	End      int    `json:"end"`
}

// Buffer is one storage of a Plan; Names lists every tensor sharing it.
type Buffer struct {
	Tensor     string   `json:"tensor"`
	Names      []string `json:"names"`
	Pool       string   `json:"pool"`
	Offset     int64    `json:"offset"`
	Bytes      int64    `json:"bytes"`
	OffsetExpr string   `json:"offset_expr"`
	SizeExpr   string   `json:"size_expr"`
	Begin      int      `json:"begin"`
	End        int      `json:"end"`
	Output     bool     `json:"output"`
}

// JSON is p's -json form with its figures f.
func JSON(p *plan.Plan, f *plan.Figures) Plan {
	out := Plan{
		Graph: p.Graph.Name, Strategy: p.Strategy, Winner: p.Winner, MemoryPool: string(p.Mode), Align: p.Align,
		Symbols: f.Symbols, Hints: p.Hints, LoadBytes: f.LoadBytes, DeclaredLoad: f.DeclaredLoadBytes, AliasedOps: p.AliasedOps, ModeBound: f.ModeBoundBytes, PeakBytes: f.PeakBytes,
		NaiveBytes: f.NaiveBytes, Ratio: f.Ratio(), Steps: p.LastStep, ParamBytes: f.ParamBytes, ConstantBytes: f.ConstantBytes, PackedParamBytes: f.PackedBytes,
		Pools: []Pool{}, Buffers: []Buffer{}, Guards: []string{},
	}
	if f.RunTimeBytes > 0 {
		out.RunTimePeak, out.RunTimeRatio = f.RunTimeBytes, 1
		if f.LoadBytes > 0 {
			out.RunTimeRatio = float64(f.RunTimeBytes) / float64(f.LoadBytes)
		}
	}
	for _, g := range p.Graph.Guards {
		out.Guards = append(out.Guards, g.String())
	}
	out.RangeWorst, out.RangeGeomean, out.RangeWorstAt = out.Ratio, out.Ratio, expr.Env(f.Symbols)
	if r, err := p.Range(); err == nil && r.Points > 0 {
		out.RangeWorst, out.RangeWorstAt, out.RangeGeomean, out.RangePoints = r.Worst, r.WorstAt, r.Geomean, r.Points
	}
	for i, pool := range p.Pools {
		out.Pools = append(out.Pools, Pool{pool.Name, pool.Device, f.PoolBytes[i], pool.Size.String(), pool.Begin, pool.End})
	}
	for _, b := range p.Buffers {
		var names []string
		for _, t := range b.Tensors {
			names = append(names, t.Name)
		}
		out.Buffers = append(out.Buffers, Buffer{
			Tensor: b.Owner().Name, Names: names, Pool: b.Pool.Name,
			Offset: f.Offsets[b.ID], Bytes: f.BufferBytes[b.ID],
			OffsetExpr: b.Offset.String(), SizeExpr: b.Size.String(),
			Begin: b.Begin, End: b.End, Output: b.Output,
		})
	}
	return out
}
