package golang

import (
	"fmt"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/ident"
	"github.com/wrapgen/wrapgen/wrapper/emit"
)

// names are the Go identifiers of one graph's kernels, tensors, symbols and
// attributes. Problems (names that cannot become identifiers, or that
// collide) are collected for the user rather than emitted as broken code.
type names struct {
	kernel map[string]string        // kernel name → method
	tensor map[*graph.Tensor]string // input, param or output → field of Inputs, Params or Outputs
	symbol map[string]string        // symbol no input gives → field of Inputs
	attr   map[string][]string      // kernel → attribute parameter names
	probs  graph.ErrorList
}

// generatedLocals are the fixed identifiers the generated file declares or
// imports (locals, package-level names); attribute parameters must not
// shadow them.
var generatedLocals = ident.Set("f", "k", "a", "t", "n", "x", "obs", "pools", "err", "in", "out", "opts", "wgrt", "fmt", "errors", "atomic", "ok", "bound",
	"frame", "newFrame", "kernelsFunc", "program", "wgref", "signature", "ts", "v", "symbols", "tensors", "p", "kf", "at", "opArgs", "opStart", "opTable", "floatAttrs", "stringAttrs", "i", "c", "r", "pass", "fail", "main", "sentinel", "os", "threads")

// kernelReserved are the method names the generated code gives kernelsFunc
// besides the kernels, and those go vet holds to another signature: a
// kernel that would take one gets a "_" appended (read_byte: ReadByte_).
var kernelReserved = ident.Merge(ident.Set("BeginOp", "preparedOf"), ident.GoVetMethods)

// nameGraph names what g declares; kernels are g.Kernels() and bound the
// symbols inputs give (from emit.Model, computed once). Other tensors and
// symbols are numbers in the program's tables and need no names.
func nameGraph(g *graph.Graph, kernels []*graph.Kernel, bound map[string]emit.Binding) *names {
	n := &names{kernel: map[string]string{}, tensor: map[*graph.Tensor]string{}, symbol: map[string]string{},
		attr: map[string][]string{}}
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
	// Inputs, params, outputs and unbound symbols are fields of Inputs,
	// Params and Outputs; one namer keeps every field name distinct.
	// Map is a method of Outputs.
	fields := &ident.Namer{Lang: "Go", Kind: "tensor or symbol", Reserved: ident.Set("Map"), Suffix: "_"}
	for _, t := range g.Tensors {
		if t.Input || t.Output || t.Param {
			n.tensor[t] = fields.Name(g.File, fmt.Sprintf("tensors[%q]", t.Name), t.Name)
		}
	}
	for _, s := range g.Symbols {
		if _, ok := bound[s.Name]; !ok && !s.RunTime() {
			n.symbol[s.Name] = fields.Name(g.File, fmt.Sprintf("symbols[%q]", s.Name), s.Name)
		}
	}
	n.probs = append(n.probs, kernelNames.Problems()...)
	n.probs = append(n.probs, fields.Problems()...)
	return n
}
