// Package fold evaluates imported ONNX nodes whose inputs are all known at
// import time with wrapgen's reference kernels (onnx.Options.Fold), so that
// what depends on them — shapes, pads, ranges — is known too.
package fold

import (
	"fmt"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/onnx"
	"github.com/wrapgen/wrapgen/wrapper/emit"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Call evaluates c with the reference kernel of its name, filling its
// outputs' data; an error when there is none or it fails.
func Call(c *onnx.FoldCall) error {
	if !wgref.Has(c.Kernel) {
		return fmt.Errorf("no reference kernel %q", c.Kernel)
	}
	call := &wgrt.Call{Kernel: c.Kernel}
	for _, w := range c.Inputs {
		call.Inputs = append(call.Inputs, tensor(w))
	}
	for _, w := range c.Outputs {
		call.Outputs = append(call.Outputs, tensor(w))
	}
	for _, a := range c.Attrs {
		at := wgrt.Attr{Name: a.Name, Kind: wgrt.AttrKind(a.Kind), Float: a.Float, Bool: a.Bool, Str: a.Str}
		switch a.Kind {
		case graph.AttrInt:
			v, _ := a.Int.IsConst()
			at.Int = int(v)
		case graph.AttrInts:
			at.Ints = make([]int, len(a.Ints))
			for i, e := range a.Ints {
				v, _ := e.IsConst()
				at.Ints[i] = int(v)
			}
		}
		call.Attrs = append(call.Attrs, at)
	}
	return wgref.Call(call)
}

// tensor views w's data as a row-major wgrt tensor (outputs write into it).
func tensor(w onnx.Weight) wgrt.Tensor {
	shape := make([]int, len(w.Shape))
	for i, d := range w.Shape {
		shape[i] = int(d)
	}
	return wgrt.FromBytes(wgrt.DType(emit.DTypeCode(w.DType)), w.Data, shape...)
}
