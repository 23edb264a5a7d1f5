package wgrt

import "math"

// Preparing once. A runner whose kernels prepare their constant operands
// (a PrepareFunc: the reference kernels pack GEMM weights into panels)
// calls it once per op when the params are bound, and every later call
// of that op gets the result as Call.Prepared. This file is the one
// implementation: generated wrappers (NewRunner with Options.Prepare,
// PrepareParams for Runners that share the result) and `wrapgen run`
// (package interp) all call Frame.PrepareOps.

// OperandRole says what an operand of a kernel call is (numbered as
// package emit's).
type OperandRole uint8

// The roles of operands.
const (
	RoleOutput  OperandRole = iota // output Index
	RoleScratch                    // the op's scratch memory
	RoleInputs                     // a variadic kernel's inputs, as one list
	RoleInput                      // input Index
	RoleAttr                       // attribute Index (its kind in Kind)
)

// Operand is one operand of a kernel's call and where it sits in an op's
// row (after the kernel number); AfterList: At counts from the end of the
// variadic input list.
type Operand struct {
	Role      OperandRole
	Index     int
	Kind      AttrKind
	At        int
	AfterList bool
}

// CallLayout is one kernel's call as its ops' rows lay it out: its name,
// operands, attribute names, and where a variadic kernel's input count
// sits (ListAt; -1 otherwise).
type CallLayout struct {
	Kernel    string
	Operands  []Operand
	AttrNames []string
	ListAt    int
}

// OpTable is the ops' rows as the generated CallOp reads them: op i's row
// is Args[Start[i]:Start[i+1]], its first entry the kernel's number in
// Kernels; float and string attributes are indices into Floats and
// Strings, int list attributes into Program.Lists.
type OpTable struct {
	Kernels []CallLayout
	Args    []int32
	Start   []int32
	Floats  []float64
	Strings []string
}

// PreparedOps is what a PrepareFunc made of a program's constant
// operands, by op, and the bytes it allocated. Kernels only read it, so
// any number of frames bound to the same params (the same memory) may use
// one PreparedOps at once, from any goroutines: N Runners then hold one
// copy of the packed weights. It lives as long as something refers to it
// (the garbage collector frees it); no frame frees it.
type PreparedOps struct {
	ops   []any
	bytes int
}

// Bytes is the memory the PrepareFunc allocated (0 for a nil s).
func (s *PreparedOps) Bytes() int {
	if s == nil {
		return 0
	}
	return s.bytes
}

// PrepareOps runs prep once for every op whose attributes are constants
// (an attribute that depends on a symbol is known only per call: such an
// op's kernel works from its operands), with the op's param and constant
// inputs bound in f (after BindParams), and returns what it made, for
// UsePrepared on f and on any frame bound to the same params. An error is
// the op's, as Exec reports a kernel's.
func (f *Frame) PrepareOps(p *Program, ops *OpTable, prep PrepareFunc) (*PreparedOps, error) {
	s := &PreparedOps{ops: make([]any, len(p.Ops))}
	consts, isConst := p.constantValues()
	for i := range p.Ops {
		c, ok := f.constantCall(p, ops, consts, isConst, i)
		if !ok {
			continue
		}
		v, n, err := prep(&c)
		if err != nil {
			return nil, &OpError{Graph: p.Graph, Op: &p.Ops[i], Err: err}
		}
		s.ops[i] = v
		s.bytes += n
	}
	return s, nil
}

// Prepare is PrepareOps, then UsePrepared of the result.
func (f *Frame) Prepare(p *Program, ops *OpTable, prep PrepareFunc) error {
	f.DropPrepared()
	s, err := f.PrepareOps(p, ops, prep)
	if err != nil {
		return err
	}
	f.UsePrepared(s)
	return nil
}

// UsePrepared makes later calls hand each op its part of s as
// Call.Prepared (nil: none). s must have been made for the same program
// from the same params as f is bound to (the kernels read a prepared
// operand only when its source is the very memory of the call's input,
// and work from the operands otherwise).
func (f *Frame) UsePrepared(s *PreparedOps) { f.prepared = s }

// Prepared is what the frame's calls get for each op (nil for an op
// nothing was prepared for), by op number; nil before Prepare or
// UsePrepared. Callers must not change it: it may be shared.
func (f *Frame) Prepared() []any {
	if f.prepared == nil {
		return nil
	}
	return f.prepared.ops
}

// PreparedBytes is the memory the PrepareFunc allocated for what the
// frame uses (shared with every frame that uses the same PreparedOps).
func (f *Frame) PreparedBytes() int { return f.prepared.Bytes() }

// DropPrepared forgets what the frame used: later calls work from their
// operands alone. A shared PreparedOps stays valid for its other users.
func (f *Frame) DropPrepared() { f.prepared = nil }

// constantCall is op i's call as known before any symbol: its kernel, its
// attributes (ok is false when one is not a constant), the inputs that
// view params or constants with their data, the others with their layout
// when constant. It has no outputs and no scratch.
func (f *Frame) constantCall(p *Program, ops *OpTable, consts []int, isConst []bool, i int) (Call, bool) {
	row := ops.Args[ops.Start[i]:ops.Start[i+1]]
	l := &ops.Kernels[row[0]]
	c := Call{Kernel: l.Kernel, Op: &p.Ops[i], Attrs: make([]Attr, len(l.AttrNames))}
	for _, o := range l.Operands {
		if o.Role == RoleInput {
			c.Inputs = append(c.Inputs, Tensor{})
		}
	}
	value := func(v int32) (int, bool) { return consts[v], isConst[v] }
	n := 0 // the end of a variadic input list
	for _, o := range l.Operands {
		at := o.At
		if o.AfterList {
			at += n
		}
		switch o.Role {
		case RoleInput:
			c.Inputs[o.Index] = f.constantTensor(p, consts, isConst, row[at])
		case RoleInputs:
			count := int(row[l.ListAt])
			n = l.ListAt + 1 + count
			c.Inputs = make([]Tensor, count)
			for j := range c.Inputs {
				c.Inputs[j] = f.constantTensor(p, consts, isConst, row[l.ListAt+1+j])
			}
		case RoleAttr:
			v, attr := row[at], &c.Attrs[o.Index]
			attr.Name, attr.Kind = l.AttrNames[o.Index], o.Kind
			ok := true
			switch o.Kind {
			case AttrInt:
				attr.Int, ok = value(v)
			case AttrFloat:
				attr.Float = ops.Floats[v]
			case AttrBool:
				attr.Bool = v != 0
			case AttrString:
				attr.Str = ops.Strings[v]
			case AttrInts:
				attr.Ints, ok = constantValues(consts, isConst, p.list(int(v)))
			}
			if !ok {
				return Call{}, false
			}
		}
	}
	return c, true
}

// list is the value numbers of int list attribute i.
func (p *Program) list(i int) []int32 {
	at := 0
	for ; i > 0; i-- {
		at += 1 + int(p.Lists[at])
	}
	n := int(p.Lists[at])
	return p.Lists[at+1 : at+1+n]
}

// constantTensor is tensor x with its layout when that is constant, and
// its data when it views a param or a constant (bound: after
// BindParams); the zero Tensor when its layout depends on a symbol.
func (f *Frame) constantTensor(p *Program, consts []int, isConst []bool, x int32) Tensor {
	l := p.Tensors[4*x : 4*x+4]
	r, d := int(l[2]), int(l[3])
	dims, ok := constantValues(consts, isConst, p.Dims[d:d+2*r])
	if !ok {
		return Tensor{}
	}
	t := Tensor{DType: DType(l[0]), Device: p.Devices[l[1]], Shape: dims[:r:r], Strides: dims[r:]}
	for i := 0; i+3 < len(p.InputViews); i += 4 {
		v := p.InputViews[i : i+4]
		if v[0] != x || int(v[1]) < len(p.Inputs) {
			continue
		}
		s, e := consts[v[2]], consts[v[3]]
		if src := f.In[v[1]]; isConst[v[2]] && isConst[v[3]] && src != nil && 0 <= s && s <= e && e <= len(src) {
			t.Data = src[s:e:e]
		}
	}
	return t
}

// constantValues is the values vs number, when every one is a constant.
func constantValues(consts []int, isConst []bool, vs []int32) ([]int, bool) {
	out := make([]int, len(vs))
	for i, v := range vs {
		if !isConst[v] {
			return nil, false
		}
		out[i] = consts[v]
	}
	return out, true
}

// constantValues computes every value of the code that no symbol decides
// (each reads earlier values only: one pass); a value that overflows or
// divides by zero is not one.
func (p *Program) constantValues() (consts []int, isConst []bool) {
	code := p.Code
	n := len(code) / 3
	consts, isConst = make([]int, n), make([]bool, n)
	for i := 0; i < n; i++ {
		op, a, b := code[3*i], code[3*i+1], code[3*i+2]
		switch op {
		case intConst:
			consts[i], isConst[i] = a, true
			continue
		case intSym:
			continue
		}
		if !isConst[a] || !isConst[b] {
			continue
		}
		x, y := consts[a], consts[b]
		v, ok := 0, true
		switch op {
		case intAdd:
			v, ok = addOK(x, y)
		case intMul:
			v, ok = mulOK(x, y)
		case intFloorDiv, intMod:
			switch {
			case y == 0 || (y == -1 && x == math.MinInt):
				ok = false
			case op == intFloorDiv:
				v = FloorDiv(x, y)
			default:
				v = Mod(x, y)
			}
		case intMax:
			v = max(x, y)
		case intMin:
			v = min(x, y)
		default:
			ok = false
		}
		consts[i], isConst[i] = v, ok
	}
	return consts, isConst
}
