package wgrt

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Program is a generated wrapper's plan as data: Code computes every
// integer the plan needs from the symbols, Tensors and Dims give each
// tensor's layout in those values, and Steps acquire and release pools,
// point tensors into them and call the ops. Generated code declares one
// Program and a frame that calls its kernels; Frame interprets the rest.
// The numbering is wrapgen's (package emit) and must not be edited by hand.
type Program struct {
	Graph string
	// SymbolNames names the symbols, in the numbering of Frame.Sym.
	SymbolNames []string
	// Code is triples (opcode, a, b); value i is instruction i.
	Code []int
	// Tensors are the layouts, graph order, as quadruples: dtype, device
	// (an index into Devices), rank, and where the shape starts in Dims
	// (the strides follow), whose entries are value numbers.
	Tensors []int32
	Devices []string
	Dims    []int32
	// Lists are the int list attributes: each its length, then values.
	Lists []int32
	// Inputs and Outputs are the graph's, as tensor numbers and names;
	// Params are bound once for many calls; Constants are the tensors
	// whose contents ConstData holds.
	Inputs, Outputs, Params, Constants  []int32
	InputNames, OutputNames, ParamNames []string
	ConstData                           [][]byte
	// InputViews are quadruples (tensor, source, start value, end value):
	// tensors that view the bytes of an input, a param or a constant
	// (sources number them in that order).
	InputViews []int32
	Ops        []Op
	// Plans are the memory plans, one per size bucket: a frame runs the
	// first whose ranges hold its symbols.
	Plans    []Plan
	Align    int
	NumLoops int
	// Guards are values that must not be negative at the symbols bound:
	// facts of the plan wrapgen could not prove for every value in range,
	// with their texts for the error.
	Guards     []int32
	GuardTexts []string
	// RunTimeSizes are pairs (symbol, bound value): sizes ops set when they
	// run (format v1 "sets"), at their bounds until then.
	RunTimeSizes []int32
	// KeepPlan keeps the plan's placement at every size (place.go): set
	// only in wrappers of a plan with a planted fault (wrapgen selftest).
	KeepPlan bool
}

// Plan is where a Program's tensors live for the symbol values in its
// ranges: the steps that acquire pools, view tensors into them and call
// the ops.
type Plan struct {
	// Ranges are triples (symbol, min, max; max -1 when there is none):
	// the values the plan was made and proven for. None: every value.
	Ranges []int
	Steps  []int32
	// PoolDevices is each pool's device; OutputPools the pools handed to
	// the caller with the outputs.
	PoolDevices []string
	OutputPools []int32
	// Storages are quintuples (pool, size value, offset value, begin, end):
	// each storage's pool, bytes and offset there, and its live range in
	// timesteps [begin, end). View steps name them; see place.go.
	Storages []int32
}

// holds reports whether the plan's ranges hold the symbol values sym.
func (pl *Plan) holds(sym []int) bool {
	r := pl.Ranges
	for i := 0; i+2 < len(r); i += 3 {
		if v := sym[r[i]]; v < r[i+1] || (r[i+2] >= 0 && v > r[i+2]) {
			return false
		}
	}
	return true
}

// TableVersion is the version of the tables and API this runtime runs
// (package emit's TableVersion). Generated code checks it at compile time:
//
//	const _ = wgrt.EnforceVersion(wgrt.TableVersion - 5)
//	const _ = wgrt.EnforceVersion(5 - wgrt.TableVersion)
//
// one of which overflows unless the versions are equal.
const TableVersion = 7

// EnforceVersion is the type of those checks.
type EnforceVersion uint

// Opcodes of Program.Code.
const (
	intConst = iota
	intSym
	intAdd
	intMul
	intFloorDiv
	intMod
	intMax
	intMin
)

// Step kinds of Program.Steps; the operands that follow each are in
// parentheses.
const (
	stepAcquire   = iota // (pool, size value, output number or -1, that output's bytes value)
	stepRelease          // (pool)
	stepView             // (tensor, pool, storage, start value, end value: bytes into the storage)
	stepUnview           // (tensor)
	stepCall             // (op)
	stepLoop             // (loop, count value, index after its end)
	stepEndLoop          // (loop, index of its first body step)
	stepCapacity         // (symbol, bound value, count tensor)
	stepSetSymbol        // (symbol, count tensor, bound value)
)

// How many operands follow each step kind: constants, so that Exec steps
// over them at no cost; stepWidth lists them for the test that holds them
// to package emit's.
const (
	acquireWidth = 4
	releaseWidth = 1
	viewWidth    = 5
	unviewWidth  = 1
	callWidth    = 1
	loopWidth    = 3
	endLoopWidth = 2
	sizeWidth    = 3
)

var stepWidth = [...]int{stepAcquire: acquireWidth, stepRelease: releaseWidth, stepView: viewWidth, stepUnview: unviewWidth,
	stepCall: callWidth, stepLoop: loopWidth, stepEndLoop: endLoopWidth, stepCapacity: sizeWidth, stepSetSymbol: sizeWidth}

// OpCaller calls op number i of a Program with its typed kernel: what
// generated code provides.
type OpCaller interface {
	CallOp(i int) error
}

// Frame is the state of one call of a Program: symbol values, the values
// computed from them, a view per tensor, the pools.
type Frame struct {
	Sym []int
	T   []Tensor
	// In is each input's data, Out each output's caller buffer (nil when
	// the caller gave none), set before Bind and Exec.
	In, Out [][]byte
	// Vals are the values of Code; Lists the int list attributes.
	Vals  []int
	Lists [][]int

	dims, listVals []int
	pool           [][]byte
	callerPool     []bool
	loops          []int
	laidOut        []int // the symbols Vals were computed for
	valid          bool
	plan           int // the plan the symbols picked (an index into Program.Plans)
	place          placement
	// prepared is what the calls get per op (prepare.go), maybe shared.
	prepared *PreparedOps // nil: none
}

// NewFrame returns a frame for p with numSymbols symbols: everything a
// call needs, allocated once, and the constants in place.
func NewFrame(p *Program, numSymbols int) *Frame {
	numLists, numListVals := 0, 0
	for i := 0; i < len(p.Lists); i += 1 + int(p.Lists[i]) {
		numLists++
		numListVals += int(p.Lists[i])
	}
	numPools := len(p.Devices) // an arena per device (place.go) after the plan's pools
	for i := range p.Plans {
		numPools = max(numPools, len(p.Plans[i].PoolDevices)+len(p.Devices))
	}
	f := &Frame{
		Sym: make([]int, numSymbols), T: make([]Tensor, len(p.Tensors)/4),
		In: make([][]byte, len(p.Inputs)+len(p.Params)+len(p.Constants)), Out: make([][]byte, len(p.Outputs)),
		Vals: make([]int, len(p.Code)/3), Lists: make([][]int, numLists),
		dims: make([]int, len(p.Dims)), listVals: make([]int, numListVals),
		pool: make([][]byte, numPools), callerPool: make([]bool, numPools),
		loops: make([]int, p.NumLoops), laidOut: make([]int, numSymbols),
		place: newPlacement(p),
	}
	copy(f.In[len(p.Inputs)+len(p.Params):], p.ConstData)
	return f
}

// Layout computes the values at f.Sym and gives every tensor its dtype,
// device, shape and strides, and no data. All is kept while the symbols
// stay the same (a Runner called again and again): kernels must not
// modify the shapes and strides they are given. Values that overflow an
// int, or divide by zero, at these symbols are an error. Run-time sizes
// start at their bounds.
func (f *Frame) Layout(p *Program) error {
	for i := 0; i < len(p.RunTimeSizes); i += 2 {
		f.Sym[p.RunTimeSizes[i]] = 0
	}
	if f.valid && equalInts(f.laidOut, f.Sym) {
		return nil
	}
	f.valid = false
	if err := f.pickPlan(p); err != nil {
		return err
	}
	if err := f.eval(p); err != nil {
		return err
	}
	copy(f.laidOut, f.Sym)
	if len(p.RunTimeSizes) > 0 {
		for i := 0; i < len(p.RunTimeSizes); i += 2 {
			f.Sym[p.RunTimeSizes[i]] = f.Vals[p.RunTimeSizes[i+1]]
		}
		if err := f.eval(p); err != nil {
			return err
		}
	}
	if err := f.checkGuards(p); err != nil {
		return err
	}
	if err := f.placeAtSizes(p); err != nil {
		return err
	}
	f.valid = true
	f.lay(p)
	for i := range f.T {
		f.T[i].Data = nil
	}
	return nil
}

// pickPlan picks the first plan whose ranges hold the symbols.
func (f *Frame) pickPlan(p *Program) error {
	for i := range p.Plans {
		if p.Plans[i].holds(f.Sym) {
			f.plan = i
			return nil
		}
	}
	return fmt.Errorf("%s: no plan holds %s (the generated tables were edited)", p.Graph, p.symbolText(f.Sym))
}

// Plan is the index of the plan (size bucket) the symbols of the last
// Layout picked.
func (f *Frame) Plan() int { return f.plan }

// checkGuards checks the facts wrapgen could not prove at the current
// symbol values.
func (f *Frame) checkGuards(p *Program) error {
	for i, v := range p.Guards {
		if f.Vals[v] < 0 {
			return fmt.Errorf("%s: at %s, %s does not hold (wrapgen could not prove it for every symbol value in range, so the wrapper checks it)",
				p.Graph, p.symbolText(f.Sym), p.GuardTexts[i])
		}
	}
	return nil
}

// lay gives every tensor its layout and every int list attribute its
// values from f.Vals. Shapes and strides are windows into f.dims, so a
// tensor handed out keeps seeing its layout when a run-time size changes.
func (f *Frame) lay(p *Program) {
	for i := range f.T {
		l := p.Tensors[4*i : 4*i+4]
		r, d := int(l[2]), int(l[3])
		for j := d; j < d+2*r; j++ {
			f.dims[j] = f.Vals[p.Dims[j]]
		}
		f.T[i].DType, f.T[i].Device = DType(l[0]), p.Devices[l[1]]
		f.T[i].Shape, f.T[i].Strides = f.dims[d:d+r:d+r], f.dims[d+r:d+2*r:d+2*r]
	}
	at, list := 0, 0
	for i := 0; i < len(p.Lists); i += 1 + int(p.Lists[i]) {
		n := int(p.Lists[i])
		for j := 0; j < n; j++ {
			f.listVals[at+j] = f.Vals[p.Lists[i+1+j]]
		}
		f.Lists[list] = f.listVals[at : at+n : at+n]
		at += n
		list++
	}
}

// setSize sets run-time size sym to n and lays the tensors out again, the
// plan's guards (storages hold their tensors) checked at the new value.
func (f *Frame) setSize(p *Program, sym int32, n int) error {
	if f.Sym[sym] == n {
		return nil
	}
	f.Sym[sym], f.valid = n, false
	if err := f.eval(p); err != nil {
		return err
	}
	if err := f.checkGuards(p); err != nil {
		return err
	}
	f.setBases(p)
	f.lay(p)
	return nil
}

// eval computes every value with checked arithmetic: a size, stride or
// offset that does not fit an int is an error naming the symbol values,
// never a wrapped number handed to a kernel.
func (f *Frame) eval(p *Program) error {
	v := f.Vals
	for i := range v {
		a, b := p.Code[3*i+1], p.Code[3*i+2]
		ok := true
		switch p.Code[3*i] {
		case intConst:
			v[i] = a
		case intSym:
			v[i] = f.Sym[a]
		case intAdd:
			v[i], ok = addOK(v[a], v[b])
		case intMul:
			v[i], ok = mulOK(v[a], v[b])
		case intFloorDiv, intMod:
			if v[b] == 0 || (v[b] == -1 && v[a] == math.MinInt) {
				ok = false
			} else if p.Code[3*i] == intFloorDiv {
				v[i] = FloorDiv(v[a], v[b])
			} else {
				v[i] = Mod(v[a], v[b])
			}
		case intMax:
			v[i] = max(v[a], v[b])
		case intMin:
			v[i] = min(v[a], v[b])
		}
		if !ok {
			return fmt.Errorf("%s: at %s the sizes do not fit an int (value %d of the plan overflows or divides by zero)", p.Graph, p.symbolText(f.Sym), i)
		}
	}
	return nil
}

// symbolText is "name=value, ..." of the symbols.
func (p *Program) symbolText(sym []int) string {
	var parts []string
	for i, v := range sym {
		name := fmt.Sprintf("symbol %d", i)
		if i < len(p.SymbolNames) {
			name = p.SymbolNames[i]
		}
		parts = append(parts, fmt.Sprintf("%s=%d", name, v))
	}
	return strings.Join(parts, ", ")
}

func equalInts(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// BindParams checks every param against its tensor's layout (fixed, known
// before any symbol) and keeps their data for every call that follows.
// It reports every param that does not fit, not only the first.
func (f *Frame) BindParams(p *Program, params []*Tensor) error {
	var errs []error
	for j, x := range p.Params {
		dtype, device, shape, strides := p.fixedLayout(x)
		t := params[j]
		if t.Data == nil && t.Shape == nil {
			errs = append(errs, fmt.Errorf("param %s is not set", p.ParamNames[j]))
			continue
		}
		if err := CheckTensor(p.ParamNames[j], *t, dtype, device, shape, strides); err != nil {
			errs = append(errs, fmt.Errorf("param %w", err))
			continue
		}
		f.In[len(p.Inputs)+j] = t.Data
	}
	return joinErrors(p.Graph, errs)
}

// fixedLayout is the layout of a tensor whose sizes are constants (a
// param's), read from the code without evaluating it.
func (p *Program) fixedLayout(x int32) (dtype DType, device string, shape, strides []int) {
	l := p.Tensors[4*x : 4*x+4]
	r, d := int(l[2]), int(l[3])
	dims := make([]int, 2*r)
	for j := range dims {
		v := p.Dims[d+j]
		dims[j] = p.Code[3*v+1] // an intConst: validation made every param size a constant
	}
	return DType(l[0]), p.Devices[l[1]], dims[:r:r], dims[r:]
}

// BindInputs checks each input against its tensor's layout (after Layout)
// and points the tensors that view inputs, params and constants into them.
func (f *Frame) BindInputs(p *Program, in []*Tensor) error {
	for j, x := range p.Inputs {
		want := f.T[x]
		if in[j].Data == nil && in[j].Shape == nil {
			return fmt.Errorf("%s: input %s is not set", p.Graph, p.InputNames[j])
		}
		if err := CheckTensor(p.InputNames[j], *in[j], want.DType, want.Device, want.Shape, want.Strides); err != nil {
			return fmt.Errorf("%s: input %w", p.Graph, err)
		}
		f.In[j] = in[j].Data
	}
	for i := 0; i+3 < len(p.InputViews); i += 4 {
		t, v := p.InputViews[i], p.InputViews[i+1]
		s, e := f.Vals[p.InputViews[i+2]], f.Vals[p.InputViews[i+3]]
		f.T[t].Data = f.In[v][s:e:e]
	}
	return nil
}

// BindOutputs checks the output buffers the caller gave (those with data)
// against their tensors' layouts.
func (f *Frame) BindOutputs(p *Program, out []*Tensor) error {
	for j, x := range p.Outputs {
		f.Out[j] = out[j].Data
		if out[j].Data == nil {
			continue
		}
		want := f.T[x]
		if err := CheckTensor(p.OutputNames[j], *out[j], want.DType, want.Device, want.Shape, want.Strides); err != nil {
			return fmt.Errorf("%s: output buffer %w", p.Graph, err)
		}
	}
	return nil
}

// Exec runs p's steps: each pool acquired at its first use (from the
// caller's output buffer when it is one) and released after its last,
// tensors viewed into the pools, the ops called through calls, obs told
// of each first when not nil. After an error, ReleaseAll gives back what
// is held.
func (f *Frame) Exec(p *Program, pools Pools, calls OpCaller, obs Observer) error {
	return f.exec(nil, p, pools, calls, obs)
}

// ExecContext is Exec that stops before the next op once ctx is done,
// returning an error that wraps ctx.Err() (errors.Is finds
// context.Canceled or context.DeadlineExceeded) and names the op it
// stopped before. A kernel already running finishes first: ops are not
// interrupted. The frame stays usable: after ReleaseAll, the next call
// runs from the start. A nil ctx, or one never done
// (context.Background()), costs nothing over Exec.
func (f *Frame) ExecContext(ctx context.Context, p *Program, pools Pools, calls OpCaller, obs Observer) error {
	return f.exec(ctx, p, pools, calls, obs)
}

func (f *Frame) exec(ctx context.Context, p *Program, pools Pools, calls OpCaller, obs Observer) error {
	// A nil done channel is never checked: the plain path pays one
	// comparison per op.
	var done <-chan struct{}
	if ctx != nil {
		done = ctx.Done()
	}
	pl := &p.Plans[f.plan]
	if k, ok := pools.(planKeeper); ok {
		// Pools kept for the plan's placement are not the arenas'.
		placed := 0
		if f.Placed() {
			placed = 1
		}
		k.usePlan(2*f.plan + placed)
	}
	pm := &f.place
	s, v := pl.Steps, f.Vals
	for pc := 0; pc < len(s); {
		switch s[pc] {
		case stepAcquire:
			i, size, out := s[pc+1], v[s[pc+2]], s[pc+3]
			if pm.moved[i] {
				d := pm.poolDevice[i]
				if pm.arenaLive[d] == 0 {
					a := f.arenaSlot(d)
					buf, err := pools.Acquire(a, p.Devices[d], pm.arena[d], p.Align)
					if err != nil {
						return fmt.Errorf("%s: the arena of %s (%d bytes): %w", p.Graph, p.Devices[d], pm.arena[d], err)
					}
					f.pool[a] = buf
				}
				pm.arenaLive[d]++
				f.pool[i] = f.pool[f.arenaSlot(d)]
				pc += 1 + acquireWidth
				continue
			}
			if out >= 0 {
				if n := v[s[pc+4]]; len(f.Out[out]) >= n {
					f.pool[i], f.callerPool[i] = f.Out[out][:n:n], true
					pc += 1 + acquireWidth
					continue
				}
			}
			buf, err := pools.Acquire(int(i), pl.PoolDevices[i], size, p.Align)
			if err != nil {
				return fmt.Errorf("%s: pool %d (%d bytes on %s): %w", p.Graph, i, size, pl.PoolDevices[i], err)
			}
			f.pool[i] = buf
			pc += 1 + acquireWidth
		case stepRelease:
			i := s[pc+1]
			if pm.moved[i] {
				d := pm.poolDevice[i]
				if pm.arenaLive[d]--; pm.arenaLive[d] == 0 {
					a := f.arenaSlot(d)
					pools.Release(a, p.Devices[d], f.pool[a])
					f.pool[a] = nil
				}
			} else {
				pools.Release(int(i), pl.PoolDevices[i], f.pool[i])
			}
			f.pool[i] = nil
			pc += 1 + releaseWidth
		case stepView:
			base := pm.base[s[pc+3]]
			st, e := base+v[s[pc+4]], base+v[s[pc+5]]
			f.T[s[pc+1]].Data = f.pool[s[pc+2]][st:e:e]
			pc += 1 + viewWidth
		case stepUnview:
			f.T[s[pc+1]].Data = nil
			pc += 1 + unviewWidth
		case stepCall:
			i := int(s[pc+1])
			if done != nil {
				select {
				case <-done:
					return fmt.Errorf("%s: stopped before %s: %w", p.Graph, p.Ops[i].String(), ctx.Err())
				default:
				}
			}
			if obs != nil {
				obs.BeginOp(&p.Ops[i])
			}
			if err := calls.CallOp(i); err != nil {
				return &OpError{Graph: p.Graph, Op: &p.Ops[i], Err: err}
			}
			pc += 1 + callWidth
		case stepLoop:
			n := v[s[pc+2]]
			if n <= 0 {
				pc = int(s[pc+3])
				continue
			}
			f.loops[s[pc+1]] = n
			pc += 1 + loopWidth
		case stepCapacity:
			sym, bound, t := s[pc+1], v[s[pc+2]], s[pc+3]
			if err := f.setSize(p, sym, bound); err != nil {
				return err
			}
			if c := f.T[t].Data; len(c) >= 8 {
				binary.LittleEndian.PutUint64(c, uint64(bound))
			}
			pc += 1 + sizeWidth
		case stepSetSymbol:
			sym, t, bound := s[pc+1], s[pc+2], v[s[pc+3]]
			c := f.T[t].Data
			if len(c) < 8 {
				return fmt.Errorf("%s: run-time size %s: its count has no data", p.Graph, p.SymbolNames[sym])
			}
			n := int64(binary.LittleEndian.Uint64(c))
			if n < 0 || n > int64(bound) {
				return fmt.Errorf("%s: the kernel reported run-time size %s = %d, outside [0, %d]", p.Graph, p.SymbolNames[sym], n, bound)
			}
			if err := f.setSize(p, sym, int(n)); err != nil {
				return err
			}
			pc += 1 + sizeWidth
		case stepEndLoop:
			l := s[pc+1]
			if f.loops[l]--; f.loops[l] > 0 {
				pc = int(s[pc+2])
			} else {
				pc += 1 + endLoopWidth
			}
		default:
			return fmt.Errorf("%s: step %d has unknown kind %d (the generated tables were edited)", p.Graph, pc, s[pc])
		}
	}
	for _, i := range pl.OutputPools {
		// Handed to the caller with the outputs.
		f.pool[i], f.callerPool[i] = nil, false
	}
	for d := range pm.arena {
		// An arena still held holds an output: handed over too.
		f.pool[f.arenaSlot(d)], pm.arenaLive[d] = nil, 0
	}
	return nil
}

// ReleaseAll releases the pools still held: after a failure, every pool;
// after success, none (output pools went to the caller).
func (f *Frame) ReleaseAll(p *Program, pools Pools) {
	devices, pm := p.Plans[f.plan].PoolDevices, &f.place
	for i := range devices {
		if f.pool[i] != nil && !f.callerPool[i] && !pm.moved[i] {
			pools.Release(i, devices[i], f.pool[i])
		}
		f.pool[i], f.callerPool[i] = nil, false
	}
	for d := range pm.arena {
		if a := f.arenaSlot(d); f.pool[a] != nil {
			pools.Release(a, p.Devices[d], f.pool[a])
			f.pool[a] = nil
		}
		pm.arenaLive[d] = 0
	}
}
