package wgrt

// Attr is one kernel attribute as the generic adapter passes it: Value is
// an int, float64, bool, string or []int.
type Attr struct {
	Name  string
	Value any
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
}

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
