// Package emit is what every backend needs to know about a plan beyond the
// plan itself, decided once: op numbering, which tensors live in each
// storage, how each kernel is called and its row laid out (CallOf), how
// symbols are bound (SymbolBinds), which pools a caller's output buffer can
// stand in for, and the tables. The backends only spell it; the one piece
// of syntax here is what Go and C++ share for tables (Rows: integer lists
// and // comments, graph text through the backend's quoting).
package emit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/plan"
)

// Model is a plan prepared for emission: what every backend prints.
type Model struct {
	Plan  *plan.Plan
	Graph *graph.Graph
	// Buckets holds the plan prepared for emission: one, for every symbol
	// value (the tables can carry plans for ranges of the symbols; wrapgen
	// makes one, whose storages a runtime places anew at a call's sizes).
	Buckets []*Bucket
	// Ops are the kernel ops in program order (loops entered); OpIndex is
	// the inverse.
	Ops     []*graph.Op
	OpIndex map[*graph.Op]int
	Kernels []*graph.Kernel
	Kernel  map[string]*graph.Kernel
	// Bound says, for each symbol an input's shape gives, where to read it.
	Bound map[string]Binding
	// MaxRank is the largest rank of any tensor; MaxArgs the most inputs any
	// variadic call passes.
	MaxRank, MaxArgs int

	tables *Tables // Tables, made on first use
}

// Bucket is one plan of a wrapper prepared for emission.
type Bucket struct {
	Plan *plan.Plan
	// PoolIndex numbers the plan's pools.
	PoolIndex map[*plan.Pool]int
	// BufferOf maps each tensor that owns or takes over a storage to it;
	// Members lists every tensor (views included) whose memory is in a
	// buffer, in graph order.
	BufferOf map[*graph.Tensor]*plan.Buffer
	Members  map[*plan.Buffer][]*graph.Tensor
	// Direct maps a pool holding exactly one storage, at offset 0, that an
	// output owns, to that output: a caller's output buffer can be the pool.
	Direct map[*plan.Pool]*graph.Tensor
	// Steps are the plan's lines lowered to what a backend prints.
	Steps []Step
	// OpIndex numbers the ops, as Model.OpIndex.
	opIndex map[*graph.Op]int
}

// File is one generated file, of any backend: a slash-separated path
// relative to where the user asked files to go, and its content.
type File struct {
	Path    string
	Content []byte
}

// Binding reads a symbol from dimension Dim of Input, whose size is
// Scale*symbol + Bias.
type Binding struct {
	Input       *graph.Tensor
	Dim         int
	Scale, Bias int64
}

// New prepares p for emission.
func New(p *plan.Plan) *Model {
	g := p.Graph
	m := &Model{Graph: g, OpIndex: map[*graph.Op]int{}, Kernel: map[string]*graph.Kernel{}, Bound: map[string]Binding{}}
	graph.Walk(g.Ops, func(op *graph.Op, _ []*graph.Op) {
		m.OpIndex[op] = len(m.Ops)
		m.Ops = append(m.Ops, op)
	})
	m.Kernels = g.Kernels()
	for _, k := range m.Kernels {
		m.Kernel[k.Name] = k
	}
	for _, op := range m.Ops {
		if m.Kernel[op.Kernel].Variadic {
			m.MaxArgs = max(m.MaxArgs, len(op.Args()))
		}
	}
	for _, t := range g.Tensors {
		m.MaxRank = max(m.MaxRank, len(t.Shape))
	}
	m.Buckets = []*Bucket{m.newBucket(p)}
	m.Plan = p
	m.findBindings()
	return m
}

func (m *Model) newBucket(p *plan.Plan) *Bucket {
	b := &Bucket{Plan: p, PoolIndex: map[*plan.Pool]int{}, BufferOf: map[*graph.Tensor]*plan.Buffer{},
		Members: map[*plan.Buffer][]*graph.Tensor{}, Direct: map[*plan.Pool]*graph.Tensor{}, opIndex: m.OpIndex}
	for i, pool := range p.Pools {
		b.PoolIndex[pool] = i
	}
	for _, buf := range p.Buffers {
		for _, t := range buf.Tensors {
			b.BufferOf[t] = buf
		}
	}
	for _, t := range m.Graph.Tensors {
		if buf := b.BufferOf[t.Root]; buf != nil {
			b.Members[buf] = append(b.Members[buf], t)
		}
	}
	for _, pool := range p.Pools {
		if len(pool.Buffers) != 1 {
			continue
		}
		buf := pool.Buffers[0]
		if off, ok := buf.Offset.IsConst(); !ok || off != 0 {
			continue
		}
		for _, t := range buf.Tensors {
			if t.Output {
				b.Direct[pool] = t
				break
			}
		}
	}
	b.lower()
	return b
}

// findBindings picks, for each symbol, the first input dimension that is
// an affine function of that symbol alone.
func (m *Model) findBindings() {
	for _, s := range m.Graph.Symbols {
	inputs:
		for _, in := range m.Graph.Inputs {
			for d, size := range in.Shape {
				syms := size.Symbols()
				if len(syms) != 1 || syms[0] != s.Name {
					continue
				}
				coefs, c0, ok := expr.Affine(size, syms)
				if !ok || coefs[0] <= 0 {
					continue
				}
				m.Bound[s.Name] = Binding{in, d, coefs[0], c0}
				break inputs
			}
		}
	}
}

// IsOutputPool reports whether a pool holds an output's storage (it is
// handed to the caller, never released by the wrapper).
func IsOutputPool(p *plan.Pool) bool {
	for _, b := range p.Buffers {
		if b.Output {
			return true
		}
	}
	return false
}

// OutputPool is the number of the pool holding an output's memory, or -1
// when the output is (a view of) an input.
func (b *Bucket) OutputPool(t *graph.Tensor) int {
	if buf := b.BufferOf[t.Root]; buf != nil {
		return b.PoolIndex[buf.Pool]
	}
	return -1
}

// ViewBytes is where t starts, and where it ends, in bytes from the start
// of memory whose first byte is base bytes into t's root storage.
func ViewBytes(t *graph.Tensor, base expr.Expr) (start, end expr.Expr) {
	o := expr.Add(base, expr.Scale(t.RootOffset(), t.DType.Size()))
	return o, expr.Add(o, t.StorageBytes())
}

// ForgetAfter lists, per op index, the buffers whose last use that op is
// (a buffer freed right after it, in a loop body too): what a checker can
// stop tracking. A buffer a loop body allocates is forgotten after its last
// use in each pass, so that the next pass starts it unwritten.
// Every bucket has the same storages and lines, so the first's serve.
func (m *Model) ForgetAfter() map[int][]*plan.Buffer {
	forget := map[int][]*plan.Buffer{}
	last := -1
	for _, l := range m.Plan.Lines {
		switch {
		case l.Kind == plan.LineKernel:
			last = m.OpIndex[l.Op]
		case l.Kind == plan.LineLoopBegin || l.Kind == plan.LineLoopEnd:
			last = -1
		case l.Kind == plan.LineDeallocFromPool && last >= 0:
			forget[last] = append(forget[last], l.Buffer)
		}
	}
	return forget
}

// TensorDoc describes a tensor for a generated comment: name, dtype, shape
// and device, the name and device through the backend's comment quoting.
func TensorDoc(t *graph.Tensor, comment func(string) string) string {
	dims := make([]string, len(t.Shape))
	for i, s := range t.Shape {
		dims[i] = s.String()
	}
	return fmt.Sprintf("%s: %s [%s] on %s", comment(t.Name), t.DType, strings.Join(dims, ", "), comment(t.Device))
}

// SymbolDocs says what the symbols in t's shape that carry a doc stand for
// (an importer's height_div4), as "; height_div4 is " and the doc through
// comment, the backend's quoting; "" for most tensors.
func SymbolDocs(g *graph.Graph, t *graph.Tensor, comment func(string) string) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, d := range t.Shape {
		for _, name := range d.Symbols() {
			if s := g.Symbol(name); s != nil && s.Doc != "" && !seen[name] {
				seen[name] = true
				fmt.Fprintf(&b, "; %s is %s", comment(name), comment(s.Doc))
			}
		}
	}
	return b.String()
}

// BindingDoc ends an error binding symbol s from an input: " (s is its
// doc)", or "" when it has none. It is message text, quoted by the caller.
func BindingDoc(s *graph.Symbol) string {
	if s.Doc == "" {
		return ""
	}
	return " (" + s.Name + " is " + s.Doc + ")"
}

// FloatLiteral spells a float attribute so that Go and C++ both read it as
// a floating-point constant (1 becomes 1.0).
func FloatLiteral(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// KernelDoc is the comment above kernel k's method (called method): what
// it takes, its attributes' names and which outputs may share memory with
// which inputs; graph names go through comment, the backend's quoting.
// Both backends print it, so their kernel docs carry the same facts.
func KernelDoc(k *graph.Kernel, method string, comment func(string) string) string {
	doc := fmt.Sprintf("%s is kernel %s: %s, %s", method, comment(k.Name), countText(k.Outputs, "output"), countText(k.Inputs, "input"))
	if k.Variadic {
		doc = fmt.Sprintf("%s is kernel %s: %s, inputs as one list (ops call it with %d or more)", method, comment(k.Name), countText(k.Outputs, "output"), k.Inputs)
	}
	if len(k.Attrs) > 0 {
		var as []string
		for _, a := range k.Attrs {
			as = append(as, comment(a.Name))
		}
		doc += "; attributes " + strings.Join(as, ", ")
	}
	if k.Scratch {
		doc += "; scratch is memory it may use during the call"
	}
	return doc + k.AliasDoc() + "."
}

func countText(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
