package golang

import (
	"fmt"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
)

// missingRefKernels names every kernel of g that the reference kernels do
// not implement, at its first op.
func missingRefKernels(g *graph.Graph, kernels []*graph.Kernel) graph.ErrorList {
	var probs graph.ErrorList
	for _, k := range kernels {
		if !wgref.Has(k.Name) {
			probs = append(probs, &graph.Problem{File: g.File, Place: k.First.Label(),
				Msg: fmt.Sprintf("-kernels ref: the reference kernels have no kernel %q (write it, or generate without -kernels ref)", k.Name)})
		}
	}
	return probs
}
