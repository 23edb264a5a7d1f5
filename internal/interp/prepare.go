package interp

import (
	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/wrapper/emit"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// PrepareWeights gives every op whose kernel prepares its constant inputs
// (prep: wgref.Prepare packs GEMM weights into panels) what it prepared,
// once: each later Run hands it to the op's kernel as Call.Prepared. It
// runs after BindParams, and only for ops whose attributes are constants
// (an attribute that depends on a symbol is known only per call: such an
// op's kernel works from its operands). The prepared memory is the
// model's; PreparedBytes reports it.
func (m *Model) PrepareWeights(prep wgrt.PrepareFunc) error {
	m.preparedBytes = 0
	for i := range m.calls {
		c := &m.calls[i]
		c.Prepared = nil
		pc, ok := m.constantCall(i)
		if !ok {
			continue
		}
		v, n, err := prep(&pc)
		if err != nil {
			return &wgrt.OpError{Graph: m.Graph.Name, Op: c.Op, Err: err}
		}
		c.Prepared = v
		m.preparedBytes += n
	}
	return nil
}

// PreparedBytes is the memory PrepareWeights allocated for the kernels.
func (m *Model) PreparedBytes() int { return m.preparedBytes }

// constantCall is op i's call as known before any symbol: its kernel, its
// attributes (ok is false when one is not a constant), the inputs that
// view params or constants with their data, the others with their shape
// when constant.
func (m *Model) constantCall(i int) (wgrt.Call, bool) {
	c0 := &m.calls[i]
	c := wgrt.Call{Kernel: c0.Kernel, Op: c0.Op, Inputs: make([]wgrt.Tensor, len(c0.Inputs)), Attrs: make([]wgrt.Attr, len(c0.Attrs))}
	row, l := m.t.OpArgs[i], m.layouts[c0.Kernel]
	n := 0
	for _, o := range l.Operands {
		at := o.At
		if o.AfterList {
			at += n
		}
		switch o.Role {
		case emit.RoleInput:
			c.Inputs[o.Index] = m.constantTensor(row[at])
		case emit.RoleInputs:
			n = l.ListAt + 1 + row[l.ListAt]
			for j := range c.Inputs {
				c.Inputs[j] = m.constantTensor(row[l.ListAt+1+j])
			}
		case emit.RoleAttr:
			v, attr := row[at], &c.Attrs[o.Index]
			attr.Name, attr.Kind = c0.Attrs[o.Index].Name, wgrt.AttrKind(o.Kind)
			ok := true
			switch o.Kind {
			case graph.AttrInt:
				attr.Int, ok = m.constValue(v)
			case graph.AttrFloat:
				attr.Float = m.t.Floats[v]
			case graph.AttrBool:
				attr.Bool = v != 0
			case graph.AttrString:
				attr.Str = m.t.Strings[v]
			case graph.AttrInts:
				attr.Ints, ok = m.constValues(m.t.Lists[v])
			}
			if !ok {
				return wgrt.Call{}, false
			}
		}
	}
	return c, true
}

// constantTensor is tensor x with its layout when that is constant, and
// its data when it views a param or a constant (bound: after
// BindParams); the zero Tensor when its layout depends on a symbol.
func (m *Model) constantTensor(x int) wgrt.Tensor {
	l := m.prog.Tensors[4*x : 4*x+4]
	r, d := int(l[2]), int(l[3])
	dims, ok := m.constValues(m.t.Dims[d : d+2*r])
	if !ok {
		return wgrt.Tensor{}
	}
	t := wgrt.Tensor{DType: wgrt.DType(l[0]), Device: m.prog.Devices[l[1]], Shape: dims[:r:r], Strides: dims[r:]}
	for _, v := range m.t.InputViews {
		if v.Tensor != x || v.Input < len(m.t.Inputs) {
			continue
		}
		s, ok1 := m.constValue(v.Start)
		e, ok2 := m.constValue(v.End)
		if src := m.f.In[v.Input]; ok1 && ok2 && src != nil && 0 <= s && s <= e && e <= len(src) {
			t.Data = src[s:e:e]
		}
	}
	return t
}

// constValues is constValue of each of vs.
func (m *Model) constValues(vs []int) ([]int, bool) {
	out := make([]int, len(vs))
	for i, v := range vs {
		var ok bool
		if out[i], ok = m.constValue(v); !ok {
			return nil, false
		}
	}
	return out, true
}

// constValue is value v of the plan's code when no symbol decides it.
func (m *Model) constValue(v int) (int, bool) {
	if m.consts == nil {
		m.evalConstants()
	}
	return m.consts[v], m.isConst[v]
}

// evalConstants computes every value of the plan's code that no symbol
// decides (each reads earlier values only: one pass).
func (m *Model) evalConstants() {
	code := m.prog.Code
	n := len(code) / 3
	m.consts, m.isConst = make([]int, n), make([]bool, n)
	for i := 0; i < n; i++ {
		op, a, b := code[3*i], code[3*i+1], code[3*i+2]
		switch op {
		case emit.IntConst:
			m.consts[i], m.isConst[i] = a, true
			continue
		case emit.IntSym:
			continue
		}
		if !m.isConst[a] || !m.isConst[b] {
			continue
		}
		x, y := m.consts[a], m.consts[b]
		v, ok := 0, true
		switch op {
		case emit.IntAdd:
			v = x + y
		case emit.IntMul:
			v = x * y
		case emit.IntFloorDiv, emit.IntMod:
			switch {
			case y == 0:
				ok = false
			case op == emit.IntFloorDiv:
				v = wgrt.FloorDiv(x, y)
			default:
				v = wgrt.Mod(x, y)
			}
		case emit.IntMax:
			v = max(x, y)
		case emit.IntMin:
			v = min(x, y)
		default:
			ok = false
		}
		m.consts[i], m.isConst[i] = v, ok
	}
}
