package golang

import (
	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/wrapper/emit"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
)

// missingRefKernels names every kernel of g that the reference kernels do
// not implement, at its first op (the check the C++ backend makes too).
func missingRefKernels(g *graph.Graph, kernels []*graph.Kernel) graph.ErrorList {
	return emit.MissingRefKernels(g, kernels, wgref.Has)
}
