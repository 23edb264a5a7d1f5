package onnx

import (
	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// FoldCall is one kernel call whose inputs are all known at import time:
// what Options.Fold evaluates, filling each output's Data (row-major,
// little-endian) so that the value becomes a constant, as ONNX Runtime's
// constant folding does, and what depends on it can be known too (a Pad's
// pads computed from shapes through Cast, a Range's bounds through float
// arithmetic).
type FoldCall struct {
	Kernel  string
	Attrs   []graph.Attr // every integer a constant
	Inputs  []Weight
	Outputs []Weight // DType and Shape set; Data to fill
}

// maxFoldElems bounds the outputs folded: shape and index computations,
// not the model's arithmetic on its weights (but see weightOps).
const maxFoldElems = 1 << 16

// weightOps are the ops that prepare weights in exported models (a
// quantized weight's QuantizeLinear→DequantizeLinear pair, a transposed
// or reshaped matrix, a cast, a scale), which Options.FoldWeights folds
// whatever the size of their outputs: evaluated once at import rather
// than on every call, their outputs become params in place of the nodes'
// inputs. Reshape, Squeeze, Unsqueeze, Flatten and Identity of a constant
// are constants already (reshaped).
var weightOps = map[string]bool{
	"QuantizeLinear": true, "DequantizeLinear": true, "Transpose": true, "Cast": true,
	"Mul": true, "Add": true, "Sub": true, "Div": true, "Neg": true, "Sqrt": true,
	"Reciprocal": true, "Concat": true,
}

// fold evaluates c's kernel call at import time when every input is known
// and Options.Fold is set; true when it did (the outputs are then known).
// A node that sets a run-time size is left to run time: the size it finds
// is a symbol of the document, which only the kernel call sets.
func (im *importer) fold(c *nodeCtx) bool {
	if im.opts.Fold == nil || unseededRandom(c) || len(c.runTime) > 0 {
		return false
	}
	limit := int64(maxFoldElems)
	if im.opts.FoldWeights && weightOps[c.kernel] && !readsOverridable(c) {
		// A weight's preparation makes no more elements than it reads:
		// a broadcast of constants to a large output stays a kernel call.
		limit = max(limit, knownElems(c))
	}
	call := &FoldCall{Kernel: c.kernel}
	for _, a := range c.attrs {
		ga := graph.Attr{Name: a.name, Kind: a.kind, Int: a.i, Float: a.f, Bool: a.b, Str: a.s, Ints: a.ints}
		if a.kind == graph.AttrInt {
			if _, ok := a.i.IsConst(); !ok {
				return false
			}
		}
		for _, e := range a.ints {
			if _, ok := e.IsConst(); !ok {
				return false
			}
		}
		call.Attrs = append(call.Attrs, ga)
	}
	for k, v := range c.ins {
		if v == nil || c.attrInputs[k] {
			continue
		}
		shape, ok := concrete(v.shape)
		if !v.known || !ok {
			return false
		}
		data, ok := bytesOf(v)
		if !ok || int64(len(data)) != numel(shape)*v.dtype.Size() {
			return false
		}
		call.Inputs = append(call.Inputs, Weight{Name: v.name, DType: v.dtype, Shape: shape, Data: data})
	}
	for _, v := range c.outs {
		if v == nil {
			continue
		}
		shape, ok := concrete(v.shape)
		if !ok || numel(shape) > limit {
			return false
		}
		call.Outputs = append(call.Outputs, Weight{DType: v.dtype, Shape: shape, Data: make([]byte, numel(shape)*v.dtype.Size())})
	}
	if len(call.Outputs) == 0 || im.opts.Fold(call) != nil {
		return false // left to the kernel at run time, which will say what is wrong
	}
	i := 0
	for _, v := range c.outs {
		if v == nil {
			continue
		}
		v.known, v.raw, v.ints, v.floats = true, call.Outputs[i].Data, nil, nil
		n := numel(call.Outputs[i].Shape)
		if n > maxKnownElems {
			i++
			continue // a weight: its raw bytes only, as tensorValue keeps a large initializer
		}
		decodeRaw(v, n)
		if v.ints == nil && v.floats == nil && isIntDType(v.dtype) {
			v.ints = []expr.Expr{}
		}
		i++
	}
	return true
}

// readsOverridable reports whether one of c's inputs is a value the caller
// may override (see value.overridable).
func readsOverridable(c *nodeCtx) bool {
	for _, v := range c.ins {
		if v != nil && v.overridable {
			return true
		}
	}
	return false
}

// knownElems is how many elements c's data inputs hold.
func knownElems(c *nodeCtx) int64 {
	n := int64(0)
	for k, v := range c.ins {
		if v != nil && !c.attrInputs[k] {
			if e := numelOf(v); e > 0 {
				n += e
			}
		}
	}
	return n
}
