package emit

import (
	"fmt"
	"math"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// The lowered program as data. A generated wrapper is mostly tables that
// its runtime (wgrt, wrapgen_runtime.cc) interprets: every integer it needs
// is a value computed once per symbol binding by Code; tensors, steps and
// op arguments are rows of small integers naming those values. Source then
// grows by table rows, not statements, and compiles in seconds at any size.
// The numbers below are shared with both runtimes; TestOpcodesMatchRuntimes
// holds them together.

// TableVersion numbers the layout of these tables and the API generated
// code calls; both runtimes say which version they run, and generated code
// does not compile against a runtime of another version.
const TableVersion = 7

// Opcodes of Code: value i is Op applied to earlier values A and B (or to
// the constant A, or to symbol number A).
const (
	IntConst = iota
	IntSym
	IntAdd
	IntMul
	IntFloorDiv
	IntMod
	IntMax
	IntMin
)

// Instr is one value of Code.
type Instr struct {
	Op   int
	A, B int64
}

// TensorRow is a tensor's layout: its dtype and device, and where its
// shape then strides start in Tables.Dims (rank values each).
type TensorRow struct {
	Tensor *graph.Tensor
	DType  int // index into graph.DTypes, the runtimes' numbering
	Device int // index into Tables.Devices
	Dims   int
}

// DTypeCode is d's number in both runtimes: its index in graph.DTypes.
func DTypeCode(d graph.DType) int {
	for i, x := range graph.DTypes {
		if x == d {
			return i
		}
	}
	panic("emit: unknown dtype " + string(d)) // validated at parse
}

// InputView makes tensor Tensor a view of the memory of external tensor
// number Input (inputs, then params, then constants), bytes [Start, End)
// by value.
type InputView struct{ Tensor, Input, Start, End int }

// StepRow is one step: its kind, operands, and what it does in words (for
// a comment beside the row): Doc with each %s standing for one of Names,
// graph-derived text that each backend quotes its own way.
type StepRow struct {
	Kind  StepKind
	Args  []int
	Doc   string
	Names []string
}

// Comment is the row's description with its names quoted by quote.
func (s StepRow) Comment(quote func(string) string) string {
	args := make([]any, len(s.Names))
	for i, n := range s.Names {
		args[i] = quote(n)
	}
	return fmt.Sprintf(s.Doc, args...)
}

// Tables is a Model as data.
type Tables struct {
	Code    []Instr
	Devices []string
	Tensors []TensorRow
	// Dims are value numbers: every tensor's shape then strides.
	Dims []int
	// Lists are the int list attributes, distinct, as value numbers.
	Lists   [][]int
	Floats  []float64
	Strings []string
	// InputViews are the tensors that view an input's memory.
	InputViews []InputView
	// OpArgs is each op's row: kernel number, output tensors, then (with
	// the count first when the kernel is variadic) input tensors, then
	// one operand per attribute: a value (int), an index into Floats or
	// Strings, 0 or 1 (bool), an index into Lists (int list).
	OpArgs   [][]int
	NumLoops int
	// Plans are the buckets' plans, in the order of Model.Buckets.
	Plans []PlanTables
	// Inputs, Params, Constants and Outputs are the graph's, as tensor
	// numbers; InputViews number their sources in the order inputs,
	// params, constants.
	Inputs, Params, Constants, Outputs []int
	// TensorIndex numbers the graph's tensors (graph order).
	TensorIndex map[*graph.Tensor]int
	// Guards are the values that must not be negative (the graph's
	// guards: facts wrapgen could not prove for every symbol value), each
	// with its text for the error a runtime returns.
	Guards     []int
	GuardTexts []string
	// RunTimeSizes are pairs (symbol, bound value): the symbols ops set,
	// which a runtime starts at their bounds.
	RunTimeSizes []int
	// KeepPlan says the runtime must keep the plan's placement at every
	// size (plan.Plan.KeepPlacement).
	KeepPlan bool
}

// PlanTables are one bucket's plan as data.
type PlanTables struct {
	// Ranges are triples (symbol number, min, max; max -1 when there is
	// none): the values the plan holds for; none for every value.
	Ranges []int64
	Steps  []StepRow
	// PoolSize is each pool's size value, PoolDevices its device;
	// OutputPools are the pools handed to the caller with the outputs.
	PoolSize    []int
	PoolDevices []string
	OutputPools []int
	// OutputOwners is, for each output, the pool holding it (-1 when it is
	// a view of an input).
	OutputOwners []int
	// Storages are the plan's storages (buffers, by id) as rows: pool, size
	// value, offset value (in the pool, as planned), first and end
	// timestep of its live range. Views name them; a runtime places the
	// storages of the pools it may move anew at the sizes of a call
	// (wgrt's place.go) and keeps whichever placement needs less memory.
	Storages []StorageRow
}

// StorageRow is one storage of a plan: see PlanTables.Storages.
type StorageRow struct {
	Pool, Size, Offset, Begin, End int
	Owner                          *graph.Tensor
}

// Args is the row's numbers.
func (s StorageRow) Args() []int { return []int{s.Pool, s.Size, s.Offset, s.Begin, s.End} }

// StepPC is the index in the flattened steps of each row: a row is its
// kind then its operands.
func StepPC(steps []StepRow) []int {
	pcs := make([]int, len(steps)+1)
	for i, s := range steps {
		pcs[i+1] = pcs[i] + 1 + len(s.Args)
	}
	return pcs
}

// Tables lowers the program to data, once for every backend.
func (m *Model) Tables() *Tables {
	if m.tables != nil {
		return m.tables
	}
	g := m.Graph
	t := &Tables{TensorIndex: map[*graph.Tensor]int{}, KeepPlan: m.Plan.KeepPlacement}
	b := newCodeBuilder(t, g)
	devices := map[string]int{}
	for i, x := range g.Tensors {
		t.TensorIndex[x] = i
		row := TensorRow{Tensor: x, DType: DTypeCode(x.DType), Device: intern(devices, &t.Devices, x.Device, x.Device), Dims: len(t.Dims)}
		for _, s := range x.Shape {
			t.Dims = append(t.Dims, s.Lower(b))
		}
		for _, s := range x.Strides {
			t.Dims = append(t.Dims, s.Lower(b))
		}
		t.Tensors = append(t.Tensors, row)
	}
	for i, s := range g.Symbols {
		if s.RunTime() {
			t.RunTimeSizes = append(t.RunTimeSizes, i, s.Bound.Lower(b))
		}
	}
	for _, gd := range g.Guards {
		t.Guards = append(t.Guards, gd.Fact.Lower(b))
		t.GuardTexts = append(t.GuardTexts, gd.String())
	}
	inputNumber := map[*graph.Tensor]int{}
	for _, in := range g.Inputs {
		inputNumber[in] = len(inputNumber)
		t.Inputs = append(t.Inputs, t.TensorIndex[in])
	}
	for _, x := range g.Params {
		inputNumber[x] = len(inputNumber)
		t.Params = append(t.Params, t.TensorIndex[x])
	}
	for _, x := range g.Constants {
		inputNumber[x] = len(inputNumber)
		t.Constants = append(t.Constants, t.TensorIndex[x])
	}
	outputNumber := map[*graph.Tensor]int{}
	for i, out := range g.Outputs {
		outputNumber[out] = i
		t.Outputs = append(t.Outputs, t.TensorIndex[out])
	}
	for _, x := range g.Tensors {
		if x.Root == nil || !x.Root.External() {
			continue
		}
		start, end := ViewBytes(x, expr.Const(0))
		t.InputViews = append(t.InputViews, InputView{t.TensorIndex[x], inputNumber[x.Root], start.Lower(b), end.Lower(b)})
	}
	kernelNumber := map[string]int{}
	for i, k := range m.Kernels {
		kernelNumber[k.Name] = i
	}
	lists := map[string]int{}
	floats := map[uint64]int{}
	strs := map[string]int{}
	// attrValue is an attribute's entry in a row.
	attrValue := func(a graph.Attr) int {
		switch a.Kind {
		case graph.AttrInt:
			return a.Int.Lower(b)
		case graph.AttrFloat:
			return intern(floats, &t.Floats, math.Float64bits(a.Float), a.Float)
		case graph.AttrBool:
			if a.Bool {
				return 1
			}
			return 0
		case graph.AttrString:
			return intern(strs, &t.Strings, a.Str, a.Str)
		}
		vals := make([]int, len(a.Ints))
		for j, x := range a.Ints {
			vals[j] = x.Lower(b)
		}
		return intern(lists, &t.Lists, fmt.Sprint(vals), vals)
	}
	for _, op := range m.Ops {
		row := []int{kernelNumber[op.Kernel]}
		args := op.Args()
		for _, o := range CallOf(m.Kernel[op.Kernel]).Operands {
			switch o.Role {
			case RoleOutput:
				row = append(row, t.TensorIndex[op.Outputs[o.Index]])
			case RoleScratch:
				row = append(row, t.TensorIndex[op.Scratch])
			case RoleInputs:
				row = append(row, len(args))
				for _, x := range args {
					row = append(row, t.TensorIndex[x])
				}
			case RoleInput:
				row = append(row, t.TensorIndex[args[o.Index]])
			case RoleAttr:
				row = append(row, attrValue(op.Attrs[o.Index]))
			}
		}
		t.OpArgs = append(t.OpArgs, row)
	}
	symbolIndex := map[string]int{}
	for i, s := range g.Symbols {
		symbolIndex[s.Name] = i
	}
	for _, bk := range m.Buckets {
		pt := PlanTables{}
		for _, pool := range bk.Plan.Pools {
			pt.PoolSize = append(pt.PoolSize, pool.Size.Lower(b))
			pt.PoolDevices = append(pt.PoolDevices, pool.Device)
			if IsOutputPool(pool) {
				pt.OutputPools = append(pt.OutputPools, bk.PoolIndex[pool])
			}
		}
		for _, out := range g.Outputs {
			pt.OutputOwners = append(pt.OutputOwners, bk.OutputPool(out))
		}
		for _, buf := range bk.Plan.Buffers {
			pt.Storages = append(pt.Storages, StorageRow{bk.PoolIndex[buf.Pool], buf.Size.Lower(b), buf.Offset.Lower(b), buf.Begin, buf.End, buf.Owner()})
		}
		pt.Steps, t.NumLoops = t.lowerSteps(bk, &pt, b, symbolIndex, outputNumber)
		t.Plans = append(t.Plans, pt)
	}
	m.tables = t
	return t
}

// intern is the number of key in seen, adding v to list under a new number
// the first time key is seen.
func intern[K comparable, V any](seen map[K]int, list *[]V, key K, v V) int {
	i, ok := seen[key]
	if !ok {
		i = len(*list)
		seen[key] = i
		*list = append(*list, v)
	}
	return i
}

// lowerSteps turns a bucket's steps into rows; loops get their numbers
// (how many there are is returned) and jump targets. Symbols are numbered
// by name: a bucket's plan is of a copy of the graph.
func (t *Tables) lowerSteps(m *Bucket, pt *PlanTables, b *codeBuilder, symbolIndex map[string]int, outputNumber map[*graph.Tensor]int) (steps []StepRow, numLoops int) {
	type open struct{ row, loop int }
	var stack []open
	var reuses []Step // noted on the call that follows them
	for _, s := range m.Steps {
		switch s.Kind {
		case Acquire:
			direct, bytes := -1, -1
			if out := m.Direct[s.Pool]; out != nil {
				direct, bytes = outputNumber[out], s.Pool.Buffers[0].Size.Lower(b)
			}
			steps = append(steps, StepRow{Acquire, []int{s.PoolIndex, pt.PoolSize[s.PoolIndex], direct, bytes},
				fmt.Sprintf("acquire pool %d on %%s", s.PoolIndex), []string{s.Pool.Device}})
		case Release:
			steps = append(steps, StepRow{Release, []int{s.PoolIndex}, fmt.Sprintf("release pool %d", s.PoolIndex), nil})
		case View:
			steps = append(steps, StepRow{View, []int{t.TensorIndex[s.Tensor], s.PoolIndex, s.Buffer.ID, s.Start.Lower(b), expr.Add(s.Start, s.Bytes).Lower(b)},
				fmt.Sprintf("view %%s: storage %d at %s, %s bytes", s.Buffer.ID, exprDoc(s.Start), exprDoc(s.Bytes)), []string{s.Tensor.Name}})
		case Unview:
			steps = append(steps, StepRow{Unview, []int{t.TensorIndex[s.Tensor]}, "unview %s", []string{s.Tensor.Name}})
		case Reuse:
			// Nothing to do at run time: the output is viewed where the
			// input is. Noted on the call.
			reuses = append(reuses, s)
		case Call:
			row := StepRow{Call, []int{s.OpIndex}, s.Op.Place + ": %s", []string{s.Op.Kernel}}
			for _, r := range reuses {
				row.Doc += "; %s takes over the storage of %s in place"
				row.Names = append(row.Names, r.Tensor.Name, r.From.Name)
			}
			reuses = nil
			steps = append(steps, row)
		case Loop:
			stack = append(stack, open{len(steps), numLoops})
			steps = append(steps, StepRow{Loop, []int{numLoops, s.Count.Lower(b), 0}, fmt.Sprintf("%s: loop %s times", s.Op.Place, exprDoc(s.Count)), nil})
			numLoops++
		case Capacity:
			steps = append(steps, StepRow{Capacity, []int{symbolIndex[s.Set.Symbol.Name], s.Set.Symbol.Bound.Lower(b), t.TensorIndex[s.Set.Count]},
				fmt.Sprintf("%s: %s at its bound %s", s.Op.Place, s.Set.Symbol.Name, exprDoc(*s.Set.Symbol.Bound)), nil})
		case SetSymbol:
			steps = append(steps, StepRow{SetSymbol, []int{symbolIndex[s.Set.Symbol.Name], t.TensorIndex[s.Set.Count], s.Set.Symbol.Bound.Lower(b)},
				fmt.Sprintf("%s: %s from %%s", s.Op.Place, s.Set.Symbol.Name), []string{s.Set.Count.Name}})
		case EndLoop:
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			steps = append(steps, StepRow{EndLoop, []int{o.loop, o.row + 1}, s.Op.Place + ": end of loop", nil})
			steps[o.row].Args[2] = len(steps)
		}
	}
	// Jump targets so far are row numbers; the runtimes index the
	// flattened array.
	pcs := StepPC(steps)
	for i := range steps {
		switch steps[i].Kind {
		case Loop:
			steps[i].Args[2] = pcs[steps[i].Args[2]]
		case EndLoop:
			steps[i].Args[1] = pcs[steps[i].Args[1]]
		}
	}
	return steps, numLoops
}

// exprDoc is e for a step's Doc, a format string: cut when long, its %
// (modulo) doubled.
func exprDoc(e expr.Expr) string { return strings.ReplaceAll(ShortExpr(e), "%", "%%") }

// codeBuilder lowers expressions into Tables.Code, computing each distinct
// operation once.
type codeBuilder struct {
	t    *Tables
	syms map[string]int
	seen map[Instr]int
}

func newCodeBuilder(t *Tables, g *graph.Graph) *codeBuilder {
	b := &codeBuilder{t: t, syms: map[string]int{}, seen: map[Instr]int{}}
	for i, s := range g.Symbols {
		b.syms[s.Name] = i
	}
	return b
}

func (b *codeBuilder) add(in Instr) int {
	if v, ok := b.seen[in]; ok {
		return v
	}
	v := len(b.t.Code)
	b.t.Code = append(b.t.Code, in)
	b.seen[in] = v
	return v
}

func (b *codeBuilder) Const(c int64) int     { return b.add(Instr{IntConst, c, 0}) }
func (b *codeBuilder) Sym(name string) int   { return b.add(Instr{IntSym, int64(b.syms[name]), 0}) }
func (b *codeBuilder) Add(x, y int) int      { return b.add(Instr{IntAdd, int64(x), int64(y)}) }
func (b *codeBuilder) Mul(x, y int) int      { return b.add(Instr{IntMul, int64(x), int64(y)}) }
func (b *codeBuilder) FloorDiv(x, y int) int { return b.add(Instr{IntFloorDiv, int64(x), int64(y)}) }
func (b *codeBuilder) Mod(x, y int) int      { return b.add(Instr{IntMod, int64(x), int64(y)}) }
func (b *codeBuilder) Max(x, y int) int      { return b.add(Instr{IntMax, int64(x), int64(y)}) }
func (b *codeBuilder) Min(x, y int) int      { return b.add(Instr{IntMin, int64(x), int64(y)}) }
