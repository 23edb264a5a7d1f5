package emit

import (
	"fmt"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
)

// MissingRefKernels names every kernel of g that wrapgen's reference
// kernels do not implement, at its first op: what gen -kernels ref refuses,
// for Go and C++ alike (the C++ kernels have the Go kernels' names).
func MissingRefKernels(g *graph.Graph, kernels []*graph.Kernel) graph.ErrorList {
	var probs graph.ErrorList
	for _, k := range kernels {
		if !wgref.Has(k.Name) {
			probs = append(probs, &graph.Problem{File: g.File, Place: k.First.Label(),
				Msg: fmt.Sprintf("-kernels ref: the reference kernels have no kernel %q (write it, or generate without -kernels ref)", k.Name)})
		}
	}
	return probs
}
