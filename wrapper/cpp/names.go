package cpp

import (
	"fmt"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/ident"
)

// names are the C++ identifiers of one graph. Kernel methods use the same
// CamelCase names as the Go backend; struct fields and locals use
// lowerCamel. Names that are C++ keywords where the user sees them (fields
// of Inputs and Outputs, the namespace) are reported, not renamed, so the
// API matches the graph.
type names struct {
	namespace string
	kernel    map[string]string
	field     map[*graph.Tensor]string // Inputs / Outputs field
	symbol    map[string]string        // local variable
	symField  map[string]string        // Inputs field for a symbol no input gives
	attr      map[string][]string
	probs     graph.ErrorList
}

// frameMembers are the identifiers generated code declares in Frame, its
// functions and the selftest's main; symbol locals must not shadow them.
var frameMembers = ident.Set("k", "in", "out", "f", "s", "a", "j", "n", "vals", "lists", "pools", "rt_", "k_", "args_", "inputs", "outputs",
	"bound", "wrapgen", "kOps", "kAlign", "kNumPools", "kPoolDevices", "kProgram", "kCode", "kTensors", "kDevices", "kDims", "kLists",
	"kInputs", "kInputNames", "kOutputs", "kOutputNames", "kInputFields", "kOutputFields", "kInputViews", "kSteps", "kOutputPools", "kOutputOwners", "kPlans",
	"kArrayEnd", "kOpArgs", "kOpStart", "kFloatAttrs", "kStringAttrs", "CallOp", "Frame", "Bind", "Run", "ReleaseAll",
	"c", "at", "argc", "argv", "r", "i", "pass", "Arg", "Fail", "Checker", "kStorages", "kViews", "kForget", "main",
	"State", "Runner", "Kernels", "Inputs", "Outputs", "Options", "SentinelKernels", "p", "t", "std", "idle", "done", "Done",
	"kOpTable", "kCallOperands", "kCallAttrNames", "kCallLayouts", "RefPreparer", "PrepareFunc", "prepared_", "tRefPrepared")

// kernelReserved are the names a Kernels method cannot take (the class,
// its observer hook): a kernel that would take one gets a "_" appended.
var kernelReserved = ident.Merge(ident.CppKeywords, ident.CMacros, ident.Set("BeginOp", "Kernels"))

// nameGraph names what g declares; kernels are g.Kernels() and
// callerGives says which symbols are fields of Inputs (from emit.Model,
// computed once).
func nameGraph(g *graph.Graph, kernels []*graph.Kernel, callerGives func(*graph.Symbol) bool) *names {
	n := &names{kernel: map[string]string{}, field: map[*graph.Tensor]string{},
		symbol: map[string]string{}, symField: map[string]string{}, attr: map[string][]string{}}
	// The namespace is at global scope, beside the C library's names.
	ns := &ident.Namer{Lang: "C++", Kind: "graph", Lower: true, Reserved: ident.Merge(ident.CppKeywords, ident.CGlobals, ident.CMacros, ident.Set("wrapgen"))}
	n.namespace = ns.Name(g.File, "name", g.Name)
	kernelNames := &ident.Namer{Lang: "C++", Kind: "kernel", Reserved: kernelReserved, Suffix: "_"}
	for _, k := range kernels {
		n.kernel[k.Name] = kernelNames.Name(g.File, k.First.Label(), k.Name)
		params := &ident.Namer{Lang: "C++", Kind: "attribute", Lower: true, Suffix: "_",
			Reserved: ident.Merge(ident.CppKeywords, ident.CMacros, ident.KernelParams(k))}
		for _, a := range k.Attrs {
			n.attr[k.Name] = append(n.attr[k.Name], params.Name(g.File, k.First.Label(), a.Name))
		}
		n.probs = append(n.probs, params.Problems()...)
	}
	// Params also has a member "storage" keeping loaded memory alive.
	fields := &ident.Namer{Lang: "C++", Kind: "tensor or symbol", Lower: true, Reserved: ident.Merge(ident.CppKeywords, ident.CMacros, ident.Set("storage"))}
	for _, t := range g.Tensors {
		place := fmt.Sprintf("tensors[%q]", t.Name)
		if t.Input || t.Output || t.Param {
			n.field[t] = fields.Name(g.File, place, t.Name)
		}
	}
	locals := &ident.Namer{Lang: "C++", Kind: "symbol", Lower: true, Suffix: "_", Reserved: ident.Merge(ident.CppKeywords, ident.CMacros, frameMembers)}
	for _, s := range g.Symbols {
		place := fmt.Sprintf("symbols[%q]", s.Name)
		n.symbol[s.Name] = locals.Name(g.File, place, s.Name)
		if callerGives(s) {
			// A symbol an input gives is no field: its name may be the
			// input's, as a PyTorch export names a dynamic axis "past"
			// after the input "past".
			n.symField[s.Name] = fields.Name(g.File, place, s.Name)
		}
	}
	for _, p := range []*ident.Namer{ns, kernelNames, fields, locals} {
		n.probs = append(n.probs, p.Problems()...)
	}
	return n
}
