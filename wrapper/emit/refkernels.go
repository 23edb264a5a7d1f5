package emit

import (
	"fmt"

	"github.com/wrapgen/wrapgen/graph"
)

// MissingRefKernels names every kernel of g that wrapgen's reference
// kernels do not implement (has says which they do: wgref.Has, for Go and
// C++ alike, whose kernels have the same names), at its first op: what
// gen -kernels ref refuses.
func MissingRefKernels(g *graph.Graph, kernels []*graph.Kernel, has func(kernel string) bool) graph.ErrorList {
	var probs graph.ErrorList
	for _, k := range kernels {
		if !has(k.Name) {
			probs = append(probs, &graph.Problem{File: g.File, Place: k.First.Label(),
				Msg: fmt.Sprintf("-kernels ref: the reference kernels have no kernel %q (write it, or generate without -kernels ref)", k.Name)})
		}
	}
	return probs
}
