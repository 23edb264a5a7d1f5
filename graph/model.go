// Package graph reads and validates graph descriptions (format v1): the
// tensors, symbols and ops of a model, independent of any planner or backend.
package graph

import "github.com/wrapgen/wrapgen/graph/expr"

// Graph is a validated graph description.
type Graph struct {
	File    string // path as given, used in messages
	Name    string
	Symbols []*Symbol // in file order
	Tensors []*Tensor // in file order
	Inputs  []*Tensor
	// Params are bound once, when a runner is made, and read by every call;
	// Constants are the tensors whose contents the graph gives ("data").
	Params    []*Tensor
	Constants []*Tensor
	Outputs   []*Tensor
	Ops       []*Op
	// Traits is what the "kernels" object declares, by kernel name.
	Traits map[string]Traits
	// Guards are the facts the wrapper checks at run time: those wrapgen
	// could neither prove nor refute for every symbol value in range.
	Guards []Guard

	byName map[string]*Tensor
	// symbolByName indexes Symbols (nil: look them up one by one): a graph
	// may have thousands of run-time sizes, each looked up per tensor.
	symbolByName map[string]*Symbol
}

// Tensor looks a tensor up by name.
func (g *Graph) Tensor(name string) *Tensor { return g.byName[name] }

// Symbol looks a symbol up by name.
func (g *Graph) Symbol(name string) *Symbol {
	if g.symbolByName != nil {
		return g.symbolByName[name]
	}
	for _, s := range g.Symbols {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Bounds gives the range of every symbol, for proofs over all values.
func (g *Graph) Bounds() expr.Bounds {
	b := expr.Bounds{}
	for _, s := range g.Symbols {
		r := expr.Range{Min: s.Min, Max: -1}
		if s.HasMax {
			r.Max = s.Max
		}
		b[s.Name] = r
	}
	return b
}

// Hints binds every symbol to its hint.
func (g *Graph) Hints() expr.Env {
	env := expr.Env{}
	for _, s := range g.Symbols {
		env[s.Name] = s.Hint
	}
	return env
}

// AtBounds sets every run-time size in env to its bound there, where
// storages are planned.
func (g *Graph) AtBounds(env expr.Env) {
	for _, s := range g.Symbols {
		if s.RunTime() {
			if v, err := s.Bound.Eval(env); err == nil {
				env[s.Name] = v
			}
		}
	}
}

// atCapacity is e with every run-time size replaced by its bound: what a
// storage is planned at.
func (g *Graph) atCapacity(e expr.Expr) expr.Expr {
	for _, name := range e.Symbols() {
		if s := g.Symbol(name); s != nil && s.RunTime() {
			e = expr.Substitute(e, name, *s.Bound)
		}
	}
	return e
}

// Symbol is a dynamic size.
type Symbol struct {
	Name   string
	Hint   int64
	Min    int64
	Max    int64 // meaningful when HasMax
	HasMax bool
	// Doc says what the symbol stands for when the graph's maker says so
	// (format v1 "doc"): the importer's height_div4 is "height/4: height
	// must be a multiple of 4 (node ...)". Binding errors and the
	// generated wrappers quote it.
	Doc string
	// Bound is set for a run-time size: a symbol the op SetBy sets when it
	// runs (the number of nonzeros, of unique values...), between 0 and
	// Bound, an expression of the other symbols. Storages are planned at
	// the bound; Min is 0, Max the bound's largest value, Hint its value at
	// the hints.
	Bound *expr.Expr
	SetBy *Op
}

// RunTime reports whether s is a run-time size (set by an op, not given).
func (s *Symbol) RunTime() bool { return s.Bound != nil }

// Tensor is a named tensor: either the owner of a storage or a view into
// another tensor's storage.
type Tensor struct {
	Index   int // position in Graph.Tensors: lets passes keep per-tensor data in slices
	Name    string
	DType   DType
	Shape   []expr.Expr
	Strides []expr.Expr // in elements; filled in as row-major when absent
	Device  string
	ViewOf  *Tensor   // nil for a tensor with its own storage
	Offset  expr.Expr // elements into the base; views only
	Input   bool      // listed in the graph's inputs
	Param   bool      // listed in the graph's params
	// Data is an inline constant's contents, little-endian and row-major;
	// nil for every other tensor.
	Data   []byte
	Output bool // listed in the graph's outputs

	// Root is the tensor owning the storage (itself for a non-view).
	Root *Tensor
	// ExtentElems is 1 + sum((size_i-1)*stride_i), or 0 when a size is 0:
	// how many elements the tensor spans from its start.
	ExtentElems expr.Expr

	bytes    expr.Expr // StorageBytes, computed once when the tensor is read
	hasBytes bool
	// mayBeEmpty is set when some symbol value makes a size 0.
	mayBeEmpty bool
}

// External reports whether t's memory is not the wrapper's to plan or
// write: a graph input, a param or a constant.
func (t *Tensor) External() bool { return t.Input || t.Param || t.Data != nil }

// Role says what an external tensor is, for messages: "graph input",
// "param" or "constant".
func (t *Tensor) Role() string {
	switch {
	case t.Param:
		return "param"
	case t.Data != nil:
		return "constant"
	}
	return "graph input"
}

// IsView reports whether t aliases another tensor's storage.
func (t *Tensor) IsView() bool { return t.ViewOf != nil }

// StorageBytes is the byte size of a non-view tensor's storage.
func (t *Tensor) StorageBytes() expr.Expr {
	if t.hasBytes {
		return t.bytes
	}
	return expr.Scale(t.ExtentElems, t.DType.Size())
}

// RootOffset is the view's start in elements from the start of its root.
// A view that spans nothing starts at 0: its offset may lie beyond an empty
// base (a view [n] at offset 1 of a base [n], at n = 0), and where nothing
// is touched no position is wrong, but a pointer or slice past the end is.
func (t *Tensor) RootOffset() expr.Expr {
	off := expr.Const(0)
	for v := t; v.ViewOf != nil; v = v.ViewOf {
		off = expr.Add(off, v.Offset)
	}
	if t.mayBeEmpty {
		off = expr.Mul(off, expr.Min(t.ExtentElems, expr.Const(1)))
	}
	return off
}

// Counts are the outputs in which op reports the run-time sizes it sets.
func (op *Op) Counts() []*Tensor {
	var ts []*Tensor
	for _, s := range op.Sets {
		ts = append(ts, s.Count)
	}
	return ts
}

// SymbolSet is a run-time size an op sets, and the output it reports it in.
type SymbolSet struct {
	Symbol *Symbol
	Count  *Tensor
}

// Op is one step of the program: a kernel call or a loop.
type Op struct {
	Place  string // e.g. `ops[3]` or `ops[7].loop.body[1]`
	Kernel string // empty for a loop
	Inputs []*Tensor
	// Params are bound once, when a runner is made, and read by every call;
	// Constants are the tensors whose contents the graph gives ("data").
	Params    []*Tensor
	Constants []*Tensor
	Outputs   []*Tensor
	Attrs     []Attr
	Inplace   []Inplace
	Mutates   []*Tensor
	// Sets are the run-time sizes the op sets (format v1 "sets"), each
	// read, after the call, from one of its outputs (an i64 scalar).
	Sets []SymbolSet
	// Scratch is memory the kernel may use during the call and nothing
	// else touches (see AddScratch); nil for most ops.
	Scratch *Tensor
	Loop    *Loop
}

// Inplace says Out takes over In's storage.
type Inplace struct{ Out, In *Tensor }

// Loop runs Body Count times.
type Loop struct {
	Count expr.Expr
	Body  []*Op
}

// AttrKind is the kind of a kernel attribute.
type AttrKind uint8

const (
	AttrInt    AttrKind = iota // an integer, constant or symbolic
	AttrFloat                  // a float64
	AttrBool                   // a bool
	AttrString                 // a string
	AttrInts                   // a list of integers, each constant or symbolic
)

func (k AttrKind) String() string {
	return [...]string{"int", "float", "bool", "string", "int list"}[k]
}

// Attr is one named kernel attribute.
type Attr struct {
	Name  string
	Kind  AttrKind
	Int   expr.Expr
	Float float64
	Bool  bool
	Str   string
	Ints  []expr.Expr
}

// Walk calls f for every kernel op in program order, loops entered, with the
// loops enclosing it (outermost first).
func Walk(ops []*Op, f func(op *Op, loops []*Op)) {
	var rec func([]*Op, []*Op)
	rec = func(ops []*Op, loops []*Op) {
		for _, op := range ops {
			if op.Loop != nil {
				rec(op.Loop.Body, append(loops, op))
				continue
			}
			f(op, loops)
		}
	}
	rec(ops, nil)
}
