package emit

import (
	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/plan"
)

// StepKind is what one step of the lowered program does. Every kind but
// Reuse is also a row of Tables.Steps, numbered as the runtimes number
// them (StepWidth gives each its operands).
type StepKind int

const (
	// Acquire creates pool Pool (from the caller's output buffer when
	// Direct says so). Row: pool, size value, output number whose buffer
	// may be the pool (-1: none), that output's bytes value.
	Acquire StepKind = iota
	// Release gives pool Pool back. Row: pool.
	Release
	// View points Tensor at Bytes bytes starting Start bytes into storage
	// Buffer, in pool Pool. Row: tensor, pool, storage, start value, end
	// value (bytes into the storage: where the storage lies is the
	// runtime's, see PlanTables.Storages).
	View
	// Unview forgets Tensor's memory. Row: tensor.
	Unview
	// Call calls Op's kernel. Row: op.
	Call
	// Loop starts a loop of Count iterations; EndLoop closes the innermost
	// one. Rows: loop, count value, index of the row after its EndLoop;
	// loop, index of the loop's first body row.
	Loop
	EndLoop
	// Capacity gives run-time size Symbol its bound before the op that
	// sets it, so that the op's outputs are laid out at their capacity,
	// and writes the bound to its count output Tensor. Row: symbol, bound
	// value, count tensor.
	Capacity
	// SetSymbol, after that op, sets Symbol to the count its output Tensor
	// holds (checked to lie in [0, bound]) and lays the tensors out again.
	// Row: symbol, count tensor, bound value.
	SetSymbol
	// Reuse notes that Tensor takes over From's storage in place: no row,
	// a note on the call that follows.
	Reuse
)

// StepWidth is how many operands follow each row kind.
var StepWidth = [...]int{Acquire: 4, Release: 1, View: 5, Unview: 1, Call: 1, Loop: 3, EndLoop: 2, Capacity: 3, SetSymbol: 3}

// Step is one statement of the lowered program. Which fields are set
// depends on Kind.
type Step struct {
	Kind      StepKind
	Pool      *plan.Pool
	Buffer    *plan.Buffer // View
	Tensor    *graph.Tensor
	From      *graph.Tensor
	Start     expr.Expr
	Bytes     expr.Expr
	Op        *graph.Op
	Count     expr.Expr
	Set       graph.SymbolSet // Capacity and SetSymbol
	PoolIndex int
	OpIndex   int
}

// lower turns the plan's lines into steps, once for every backend: views
// for each member of an allocated or freed storage.
func (m *Bucket) lower() {
	for _, l := range m.Plan.Lines {
		switch l.Kind {
		case plan.LinePoolCreate:
			m.Steps = append(m.Steps, Step{Kind: Acquire, Pool: l.Pool, PoolIndex: m.PoolIndex[l.Pool]})
		case plan.LinePoolRelease:
			m.Steps = append(m.Steps, Step{Kind: Release, Pool: l.Pool, PoolIndex: m.PoolIndex[l.Pool]})
		case plan.LineAllocFromPool:
			for _, t := range m.Members[l.Buffer] {
				start, _ := ViewBytes(t, expr.Const(0))
				m.Steps = append(m.Steps, Step{Kind: View, Pool: l.Pool, Buffer: l.Buffer, PoolIndex: m.PoolIndex[l.Pool], Tensor: t, Start: start, Bytes: t.StorageBytes()})
			}
		case plan.LineDeallocFromPool:
			for _, t := range m.Members[l.Buffer] {
				m.Steps = append(m.Steps, Step{Kind: Unview, Tensor: t})
			}
		case plan.LineReuse:
			m.Steps = append(m.Steps, Step{Kind: Reuse, Tensor: l.Tensor, From: l.From})
		case plan.LineKernel:
			for _, ss := range l.Op.Sets {
				m.Steps = append(m.Steps, Step{Kind: Capacity, Op: l.Op, Set: ss})
			}
			m.Steps = append(m.Steps, Step{Kind: Call, Op: l.Op, OpIndex: m.opIndex[l.Op]})
			for _, ss := range l.Op.Sets {
				m.Steps = append(m.Steps, Step{Kind: SetSymbol, Op: l.Op, Set: ss})
			}
		case plan.LineLoopBegin:
			m.Steps = append(m.Steps, Step{Kind: Loop, Op: l.Op, Count: l.Op.Loop.Count})
		case plan.LineLoopEnd:
			m.Steps = append(m.Steps, Step{Kind: EndLoop, Op: l.Op})
		}
	}
}
