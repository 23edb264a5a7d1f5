package golang

import (
	"fmt"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/wrapper/ident"
)

// names are the Go identifiers of one graph's kernels, tensors, symbols and
// attributes. Problems (names that cannot become identifiers, or that
// collide) are collected for the user rather than emitted as broken code.
type names struct {
	kernel map[string]string        // kernel name → method
	tensor map[*graph.Tensor]string // → field of Inputs, Outputs and frame.t
	symbol map[string]string        // symbol → field of frame.sym / Inputs
	local  map[string]string        // symbol → local variable
	attr   map[string][]string      // kernel → attribute parameter names
	probs  graph.ErrorList
}

// generatedLocals are the fixed identifiers the generated file declares or
// imports (locals, package-level names); symbol locals and parameters must
// not shadow them. Numbered families (loop variables, constant lists) are
// ident.Numbered names, which no graph name reaches.
var generatedLocals = ident.Set("f", "k", "a", "obs", "pools", "err", "in", "out", "opts", "wgrt", "fmt", "errors", "atomic", "ok", "bound",
	"frame", "kernelsFunc", "opTable", "poolDevices", "i", "c", "r", "pass", "fail", "main", "sentinel", "os")

// kernelReserved are the method names the generated code gives kernelsFunc
// besides the kernels: a kernel that would take one gets a "_" appended.
var kernelReserved = ident.Set("BeginOp")

// nameGraph names what g declares; kernels are g.Kernels() (from
// emit.Program, computed once).
func nameGraph(g *graph.Graph, kernels []*graph.Kernel) *names {
	n := &names{kernel: map[string]string{}, tensor: map[*graph.Tensor]string{}, symbol: map[string]string{},
		local: map[string]string{}, attr: map[string][]string{}}
	kernelNames := &ident.Namer{Lang: "Go", Kind: "kernel", Reserved: kernelReserved, Suffix: "_"}
	for _, k := range kernels {
		n.kernel[k.Name] = kernelNames.Name(g.File, k.First.Label(), k.Name)
		params := &ident.Namer{Lang: "Go", Kind: "attribute", Lower: true, Suffix: "_",
			Reserved: ident.Merge(ident.GoKeywords, generatedLocals, ident.KernelParams(k))}
		for _, a := range k.Attrs {
			n.attr[k.Name] = append(n.attr[k.Name], params.Name(g.File, k.First.Label(), a.Name))
		}
		n.probs = append(n.probs, params.Problems()...)
	}
	// Tensors and unbound symbols share the Inputs struct, so one namer.
	fields := &ident.Namer{Lang: "Go", Kind: "tensor or symbol"}
	for _, t := range g.Tensors {
		n.tensor[t] = fields.Name(g.File, fmt.Sprintf("tensors[%q]", t.Name), t.Name)
	}
	locals := &ident.Namer{Lang: "Go", Kind: "symbol", Lower: true, Suffix: "_", Reserved: ident.Merge(ident.GoKeywords, generatedLocals)}
	for _, s := range g.Symbols {
		n.symbol[s.Name] = fields.Name(g.File, fmt.Sprintf("symbols[%q]", s.Name), s.Name)
		n.local[s.Name] = locals.Name(g.File, fmt.Sprintf("symbols[%q]", s.Name), s.Name)
	}
	n.probs = append(n.probs, kernelNames.Problems()...)
	n.probs = append(n.probs, fields.Problems()...)
	n.probs = append(n.probs, locals.Problems()...)
	return n
}
