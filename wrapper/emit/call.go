package emit

import "github.com/wrapgen/wrapgen/graph"

// The language-neutral model of a kernel call and of symbol binding: what
// every backend spells in its own syntax and nothing decides again. An
// op's row in the tables is written (Tables) and read (each backend's
// CallOp, and package interp) from one CallLayout.

// OperandRole says what an operand of a kernel call is.
type OperandRole uint8

const (
	RoleOutput  OperandRole = iota // output Index
	RoleScratch                    // the op's scratch memory
	RoleInputs                     // a variadic kernel's inputs, as one list
	RoleInput                      // input Index
	RoleAttr                       // attribute Index (its kind in Kind)
)

// Operand is one argument of a kernel's method, in the method's order.
type Operand struct {
	Role  OperandRole
	Index int            // which output, input or attribute
	Kind  graph.AttrKind // an attribute's kind
	// At is where the operand's value sits in the op's row (after the
	// kernel number); AfterList is set when At counts from the end of the
	// variadic input list (row position n + At, n the list's end).
	At        int
	AfterList bool
}

// CallLayout is a kernel's call: its method's operands, and where a
// variadic kernel's input count sits in the row (ListAt; -1 otherwise;
// the list's tensor numbers follow it).
type CallLayout struct {
	Operands []Operand
	ListAt   int
}

// CallOf is kernel k's layout. Rows are: kernel number, output tensors, the
// scratch tensor (kernels with scratch), the input count (variadic
// kernels) then input tensors, then one value per attribute (a value
// number, an index into the float or string tables, 0/1, or an index into
// the int lists).
func CallOf(k *graph.Kernel) CallLayout {
	l := CallLayout{ListAt: -1}
	at := 1
	for i := 0; i < k.Outputs; i++ {
		l.Operands = append(l.Operands, Operand{Role: RoleOutput, Index: i, At: at})
		at++
	}
	if k.Scratch {
		l.Operands = append(l.Operands, Operand{Role: RoleScratch, At: at})
		at++
	}
	after := false
	if k.Variadic {
		l.ListAt = at
		l.Operands = append(l.Operands, Operand{Role: RoleInputs, At: at})
		at, after = 0, true // attributes follow the list: n + j
	} else {
		for i := 0; i < k.Inputs; i++ {
			l.Operands = append(l.Operands, Operand{Role: RoleInput, Index: i, At: at})
			at++
		}
	}
	for j, a := range k.Attrs {
		l.Operands = append(l.Operands, Operand{Role: RoleAttr, Index: j, Kind: a.Kind, At: at + j, AfterList: after})
	}
	return l
}

// SymbolBind is how a wrapper sets symbol number Index when it binds an
// input: read from an input's shape (From, the Slot-th symbol so read), or
// given by the caller; then checked to lie in [Symbol.Min, Max] (Max -1:
// none).
type SymbolBind struct {
	Index  int
	Symbol *graph.Symbol
	From   *Binding
	Slot   int
	Max    int64
}

// CallerGives reports whether the caller gives symbol s (a field of the
// generated Inputs): no input's shape gives it, and no op sets it.
func (m *Model) CallerGives(s *graph.Symbol) bool {
	_, bound := m.Bound[s.Name]
	return !bound && !s.RunTime()
}

// SymbolBinds are the graph's symbols as a wrapper binds them, in order,
// and how many inputs give.
func (m *Model) SymbolBinds() (binds []SymbolBind, fromInputs int) {
	for i, s := range m.Graph.Symbols {
		if s.RunTime() {
			continue // set by an op, not by the caller
		}
		sb := SymbolBind{Index: i, Symbol: s, Max: -1}
		if s.HasMax {
			sb.Max = s.Max
		}
		if b, ok := m.Bound[s.Name]; ok {
			sb.From, sb.Slot = &b, fromInputs
			fromInputs++
		}
		binds = append(binds, sb)
	}
	return binds, fromInputs
}
