// Package interp runs a plan in process: the tables a generated Go wrapper
// holds (package emit makes them once for every backend), interpreted by
// the same runtime (wgrt), each kernel called by name through a
// wgrt.KernelFunc. `wrapgen run` is built on it.
package interp

import (
	"fmt"
	"time"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/emit"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Model is a plan ready to run again and again.
type Model struct {
	Graph *graph.Graph
	model *emit.Model
	t     *emit.Tables
	prog  wgrt.Program
	f     *wgrt.Frame
	pools wgrt.KeptPools
	bound []bool
	calls []wgrt.Call // one per op, reused call after call
	k     wgrt.KernelFunc
	// layouts are the kernels' rows, by name.
	layouts map[string]emit.CallLayout
	// opTimes sums each op's kernel time once TimeOps is called; ownTime,
	// when set, says what a call took (TimeOpsBy).
	opTimes []time.Duration
	ownTime func() time.Duration
}

// New prepares p to run; memory comes from the Go heap, kept between runs.
func New(p *plan.Plan) *Model {
	model := emit.New(p)
	t := model.Tables()
	g := p.Graph
	m := &Model{Graph: g, model: model, t: t}
	prog := wgrt.Program{Graph: g.Name, Align: int(p.Align), NumLoops: t.NumLoops, Devices: t.Devices}
	for _, s := range g.Symbols {
		prog.SymbolNames = append(prog.SymbolNames, s.Name)
	}
	for _, in := range t.Code {
		prog.Code = append(prog.Code, in.Op, int(in.A), int(in.B))
	}
	for _, x := range t.Tensors {
		prog.Tensors = append(prog.Tensors, int32(x.DType), int32(x.Device), int32(len(x.Tensor.Shape)), int32(x.Dims))
	}
	prog.Dims = int32s(t.Dims)
	for _, l := range t.Lists {
		prog.Lists = append(prog.Lists, int32(len(l)))
		prog.Lists = append(prog.Lists, int32s(l)...)
	}
	prog.Inputs, prog.Outputs = int32s(t.Inputs), int32s(t.Outputs)
	for _, x := range g.Inputs {
		prog.InputNames = append(prog.InputNames, x.Name)
	}
	for _, x := range g.Outputs {
		prog.OutputNames = append(prog.OutputNames, x.Name)
	}
	prog.Params, prog.Constants = int32s(t.Params), int32s(t.Constants)
	for _, x := range g.Params {
		prog.ParamNames = append(prog.ParamNames, x.Name)
	}
	for _, x := range g.Constants {
		prog.ConstData = append(prog.ConstData, x.Data)
	}
	for _, v := range t.InputViews {
		prog.InputViews = append(prog.InputViews, int32(v.Tensor), int32(v.Input), int32(v.Start), int32(v.End))
	}
	for _, pt := range t.Plans {
		pl := wgrt.Plan{PoolDevices: pt.PoolDevices, OutputPools: int32s(pt.OutputPools)}
		for _, r := range pt.Ranges {
			pl.Ranges = append(pl.Ranges, int(r))
		}
		for _, s := range pt.Steps {
			pl.Steps = append(pl.Steps, int32(s.Kind))
			pl.Steps = append(pl.Steps, int32s(s.Args)...)
		}
		for _, st := range pt.Storages {
			pl.Storages = append(pl.Storages, int32s(st.Args())...)
		}
		prog.Plans = append(prog.Plans, pl)
	}
	for i, op := range model.Ops {
		o := wgrt.Op{Index: i, Place: op.Place, Kernel: op.Kernel}
		for _, x := range op.Args() {
			o.Inputs = append(o.Inputs, x.Name)
		}
		for _, x := range op.Outputs {
			o.Outputs = append(o.Outputs, x.Name)
		}
		for _, x := range op.Mutates {
			o.Mutates = append(o.Mutates, x.Name)
		}
		for _, x := range op.Counts() {
			o.Sets = append(o.Sets, x.Name)
		}
		prog.Ops = append(prog.Ops, o)
	}
	prog.Guards, prog.GuardTexts = int32s(t.Guards), t.GuardTexts
	prog.RunTimeSizes = int32s(t.RunTimeSizes)
	prog.KeepPlan = t.KeepPlan
	m.prog = prog
	m.f = wgrt.NewFrame(&m.prog, len(g.Symbols))
	m.bound = make([]bool, len(g.Symbols))
	m.calls = make([]wgrt.Call, len(model.Ops))
	m.layouts = map[string]emit.CallLayout{}
	for _, k := range model.Kernels {
		m.layouts[k.Name] = emit.CallOf(k)
	}
	for i, op := range model.Ops {
		c := &m.calls[i]
		c.Kernel, c.Op = op.Kernel, &m.prog.Ops[i]
		c.Outputs = make([]wgrt.Tensor, len(op.Outputs))
		c.Inputs = make([]wgrt.Tensor, len(op.Args()))
		c.Attrs = make([]wgrt.Attr, len(op.Attrs))
		for j, a := range op.Attrs {
			c.Attrs[j].Name = a.Name
		}
	}
	return m
}

// BindParams takes the params from tensors by name, checks them all
// (reporting every problem at once), and keeps them for every Run.
func (m *Model) BindParams(tensors map[string]wgrt.Tensor) error {
	ps := make([]wgrt.Tensor, len(m.Graph.Params))
	ptrs := make([]*wgrt.Tensor, len(ps))
	for i := range ps {
		ptrs[i] = &ps[i]
	}
	if err := wgrt.CollectParams(&m.prog, tensors, ptrs); err != nil {
		return err
	}
	return m.f.BindParams(&m.prog, ptrs)
}

func int32s(xs []int) []int32 {
	out := make([]int32, len(xs))
	for i, x := range xs {
		out[i] = int32(x)
	}
	return out
}

// Run binds the symbols (from the inputs' shapes, else from at), checks
// the inputs (the data inputs, in the graph's order; params are bound once
// by BindParams), runs every op through k and returns the outputs, in the
// graph's order. The outputs view memory the model keeps: they stay valid
// until the next Run.
func (m *Model) Run(k wgrt.KernelFunc, at map[string]int, inputs []wgrt.Tensor) ([]wgrt.Tensor, error) {
	g := m.Graph
	if len(inputs) != len(g.Inputs) {
		return nil, fmt.Errorf("%s: %d inputs given, the graph has %d", g.Name, len(inputs), len(g.Inputs))
	}
	f := m.f
	for i := range m.bound {
		m.bound[i] = false
	}
	index := map[*graph.Tensor]int{}
	for i, x := range g.Inputs {
		index[x] = i
	}
	binds, _ := m.model.SymbolBinds()
	for _, sb := range binds {
		s, i := sb.Symbol, sb.Index
		if b := sb.From; b != nil {
			in := inputs[index[b.Input]]
			if err := wgrt.BindSymbol(&f.Sym[i], &m.bound[sb.Slot], s.Name, b.Input.Name, in.Shape, len(b.Input.Shape), b.Dim, int(b.Scale), int(b.Bias)); err != nil {
				return nil, fmt.Errorf("%s: input %w%s", g.Name, err, emit.BindingDoc(s))
			}
			if v, ok := at[s.Name]; ok && v != f.Sym[i] {
				return nil, fmt.Errorf("%s: symbol %s is %d by input %q, not %d as given", g.Name, s.Name, f.Sym[i], b.Input.Name, v)
			}
		} else if v, ok := at[s.Name]; ok {
			f.Sym[i] = v // a symbol no input gives: -at, else its hint
		} else {
			f.Sym[i] = int(s.Hint)
		}
		if err := wgrt.CheckRange(s.Name, f.Sym[i], int(s.Min), int(sb.Max)); err != nil {
			return nil, fmt.Errorf("%s: %w", g.Name, err)
		}
	}
	if err := f.Layout(&m.prog); err != nil {
		return nil, err
	}
	ins := make([]*wgrt.Tensor, len(inputs))
	for i := range inputs {
		ins[i] = &inputs[i]
	}
	if err := f.BindInputs(&m.prog, ins); err != nil {
		return nil, err
	}
	outs := make([]wgrt.Tensor, len(g.Outputs))
	outPtrs := make([]*wgrt.Tensor, len(outs))
	for i := range outs {
		outPtrs[i] = &outs[i]
	}
	if err := f.BindOutputs(&m.prog, outPtrs); err != nil {
		return nil, err
	}
	m.k = k
	defer func() { m.k = nil }()
	defer f.ReleaseAll(&m.prog, &m.pools)
	if err := f.Exec(&m.prog, &m.pools, m, nil); err != nil {
		return nil, err
	}
	for i, x := range m.t.Outputs {
		wgrt.Deliver(&outs[i], f.T[x])
	}
	return outs, nil
}

// LayoutAt lays the model out at the symbol values at (a symbol it lacks
// at its hint) without running it: what PeakBytes then reports is what a
// call at those values holds.
func (m *Model) LayoutAt(at map[string]int) error {
	for i, s := range m.Graph.Symbols {
		v, ok := at[s.Name]
		if !ok {
			v = int(s.Hint)
		}
		m.f.Sym[i] = v
	}
	return m.f.Layout(&m.prog)
}

// PeakBytes is the largest total of pool bytes the last Run held at once,
// its storages placed at its sizes where that needed less than the plan's
// placement; StaticPeakBytes is the plan's own (see wgrt.Frame.PeakBytes).
func (m *Model) PeakBytes() (peak, static int) { return m.f.PeakBytes(), m.f.StaticPeakBytes() }

// Close frees the memory the model keeps: its pools and the weights
// PrepareWeights packed.
func (m *Model) Close() {
	m.pools.Close()
	for i := range m.calls {
		m.calls[i].Prepared = nil
	}
	m.f.DropPrepared()
}

// CallOp calls op i's kernel by name, reading its row as emit.CallOf lays
// it out (the generated CallOp reads it the same way, with types).
func (m *Model) CallOp(i int) error {
	row, c, f := m.t.OpArgs[i], &m.calls[i], m.f
	l := m.layouts[c.Kernel]
	n := 0 // the end of a variadic input list
	for _, o := range l.Operands {
		at := o.At
		if o.AfterList {
			at += n
		}
		switch o.Role {
		case emit.RoleOutput:
			c.Outputs[o.Index] = f.T[row[at]]
		case emit.RoleScratch:
			c.Scratch = f.T[row[at]].Data
		case emit.RoleInput:
			c.Inputs[o.Index] = f.T[row[at]]
		case emit.RoleInputs:
			n = l.ListAt + 1 + row[l.ListAt]
			for j := range c.Inputs {
				c.Inputs[j] = f.T[row[l.ListAt+1+j]]
			}
		case emit.RoleAttr:
			v, attr := row[at], &c.Attrs[o.Index]
			attr.Kind = wgrt.AttrKind(o.Kind)
			switch o.Kind {
			case graph.AttrInt:
				attr.Int = f.Vals[v]
			case graph.AttrFloat:
				attr.Float = m.t.Floats[v]
			case graph.AttrBool:
				attr.Bool = v != 0
			case graph.AttrString:
				attr.Str = m.t.Strings[v]
			case graph.AttrInts:
				attr.Ints = f.Lists[v]
			}
		}
	}
	if m.opTimes == nil {
		return m.k(c)
	}
	t0 := time.Now()
	err := m.k(c)
	if m.ownTime != nil {
		m.opTimes[i] += m.ownTime()
	} else {
		m.opTimes[i] += time.Since(t0)
	}
	return err
}

// Symbols are the symbol values of the last Run, by name.
func (m *Model) Symbols() map[string]int {
	out := make(map[string]int, len(m.Graph.Symbols))
	for i, s := range m.Graph.Symbols {
		out[s.Name] = m.f.Sym[i]
	}
	return out
}
