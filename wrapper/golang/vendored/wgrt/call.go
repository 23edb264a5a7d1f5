package wgrt

// AttrKind is the kind of an attribute's value (numbered as graph
// format v1's).
type AttrKind uint8

// The kinds of attribute values.
const (
	AttrInt AttrKind = iota
	AttrFloat
	AttrBool
	AttrString
	AttrInts
)

// Attr is one kernel attribute as the generic adapter passes it: the field
// Kind names holds the value. Typed fields, not an interface, so that
// passing attributes allocates nothing.
type Attr struct {
	Name  string
	Kind  AttrKind
	Int   int
	Float float64
	Bool  bool
	Str   string
	Ints  []int // the caller's: do not modify
}

// Value is the attribute's value as an int, float64, bool, string or []int.
func (a Attr) Value() any {
	switch a.Kind {
	case AttrInt:
		return a.Int
	case AttrFloat:
		return a.Float
	case AttrBool:
		return a.Bool
	case AttrString:
		return a.Str
	}
	return a.Ints
}

// Call describes one kernel call to a generic kernel function: the kernel
// name, the op (where it is in the graph, the tensors' graph names), the
// tensors, and the attributes in the order the graph gives them.
type Call struct {
	Kernel  string
	Op      *Op
	Outputs []Tensor
	Inputs  []Tensor
	Attrs   []Attr
	// Scratch is memory the kernel may use during this call (and must not
	// keep), as the plan sized it from the kernel's declared need; nil for
	// a kernel that declares none.
	Scratch []byte
	// Prepared is what the kernel made of the op's constant operands
	// (params, constants) once, when the runner bound them (a PrepareFunc:
	// the reference kernels' weights packed into their GEMM panels); nil
	// when nothing was, and the kernel then works from the operands alone.
	// It belongs to the runner: the kernel reads it and never keeps it.
	Prepared any
	// Threads is how many goroutines the kernel may use for this call
	// (the wrapper's Options.Threads); 0 leaves it to the kernel (the
	// reference kernels: wgref.SetThreads' count, at first the CPUs the
	// process may use).
	Threads int
}

// PrepareFunc prepares one op's constant operands for its kernel, once,
// when params are bound: c has the op's kernel and attributes, and those
// inputs that are params or constants with their data (the others with
// their shape where it is constant, else none). It returns what the
// kernel's Call.Prepared will then hold and the bytes it allocated for
// it, or nil when the kernel prepares nothing for this op.
type PrepareFunc func(c *Call) (prepared any, bytes int, err error)

// KernelFunc serves every kernel of a graph by name: for tracing, testing,
// or dispatch to a table of implementations.
type KernelFunc func(c *Call) error

// Op describes one kernel call site of a graph, for observers and errors.
type Op struct {
	Index   int    // position among the graph's kernel ops, in program order
	Place   string // where the op is in the graph file, e.g. "ops[3]"
	Kernel  string
	Inputs  []string // tensor names, as the graph gives them
	Outputs []string
	Mutates []string // inputs the kernel writes in place
	// Sets are the outputs in which the kernel reports run-time sizes
	// (format v1 "sets"): each holds the size's bound when the kernel is
	// called.
	Sets []string
}

func (op *Op) String() string { return op.Place + " (kernel \"" + op.Kernel + "\")" }

// Observer is implemented by kernels that want to know which op each call
// is for (tracing, profiling, checking). A wrapper calls BeginOp right
// before each kernel call.
type Observer interface {
	BeginOp(op *Op)
}

// OpError is an error a kernel returned, with the op it came from.
type OpError struct {
	Graph string
	Op    *Op
	Err   error
}

func (e *OpError) Error() string { return e.Graph + ": " + e.Op.String() + ": " + e.Err.Error() }

func (e *OpError) Unwrap() error { return e.Err }
