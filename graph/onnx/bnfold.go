package onnx

import (
	"encoding/binary"
	"math"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// Folding a BatchNormalization into the convolution it follows, as ONNX
// Runtime's ConvBNFusion does at session creation: with Options.FoldWeights,
// when a Conv's weight and bias are constants (initializers, or weights
// folded from them) and its output is read only by an inference
// BatchNormalization whose statistics are constants too, the convolution
// computes the normalized output itself,
//
//	alpha = scale / sqrt(var + epsilon)    per output channel k
//	W'[k] = W[k] * alpha[k]
//	b'[k] = (b[k] - mean[k]) * alpha[k] + B[k]
//
// and the BatchNormalization node goes: one pass over memory less, and the
// Conv is then followed by what graph/fuse fuses into it (a residual Add,
// a Relu). The rounding differs from normalizing after the convolution
// (within float32's precision of the product), as ONNX Runtime's does.

// foldBatchNorm rewrites c, a Conv being imported, to compute the output
// of the BatchNormalization that alone reads its output, when it can (see
// above): c reads the folded weight and bias, and the BatchNormalization
// node is recorded in im.absorbed so that its output names c's.
func (im *importer) foldBatchNorm(c *nodeCtx) {
	if !im.opts.FoldWeights || c.kernel != "Conv" || len(im.outer) > 0 || c.index >= len(im.m.graph.nodes) || im.m.graph.nodes[c.index] != c.n {
		return
	}
	if len(c.outs) != 1 || c.outs[0] == nil || c.outs[0].dtype != "f32" || c.ins[0].known {
		return
	}
	out := c.n.outputs[0]
	if im.isOutput[out] || im.readers()[out] != 1 {
		return
	}
	bn := im.readerOf(out)
	if bn == nil || bn.domain != "" || bn.opType != "BatchNormalization" || len(bn.inputs) != 5 || bn.inputs[0] != out {
		return
	}
	for k, o := range bn.outputs {
		if k > 0 && o != "" {
			return // training outputs
		}
	}
	if im.isOutput[bn.outputs[0]] || len(bn.outputs) == 0 {
		return
	}
	eps := 1e-5
	for _, a := range bn.attrs {
		switch {
		case a.name == "training_mode" && a.i != 0:
			return
		case a.name == "epsilon" && a.typ == attrFloat:
			eps = a.f
		case a.name == "epsilon" || a.name == "training_mode" || a.name == "momentum":
		default:
			return // an attribute of an older opset (spatial, is_test...)
		}
	}
	w := c.ins[1]
	shape, ok := concrete(w.shape)
	if !ok || len(shape) < 3 || shape[0] == 0 {
		return
	}
	m := shape[0]
	weight, ok := constFloats(w, numel(shape))
	if !ok {
		return
	}
	var bias []float32
	if len(c.ins) > 2 && c.ins[2] != nil {
		if bias, ok = constFloats(c.ins[2], m); !ok {
			return
		}
	}
	var stats [4][]float32 // scale, B, mean, var
	for k := range stats {
		v := im.vals[bn.inputs[1+k]]
		if v == nil {
			return
		}
		if stats[k], ok = constFloats(v, m); !ok {
			return
		}
	}
	scale, shift, mean, variance := stats[0], stats[1], stats[2], stats[3]
	per := int(numel(shape) / m)
	folded := make([]byte, 4*len(weight))
	foldedBias := make([]byte, 4*m)
	for k := range int(m) {
		alpha := float64(scale[k]) / math.Sqrt(float64(variance[k])+eps)
		for i := k * per; i < (k+1)*per; i++ {
			binary.LittleEndian.PutUint32(folded[4*i:], math.Float32bits(float32(float64(weight[i])*alpha)))
		}
		b := 0.0
		if bias != nil {
			b = float64(bias[k])
		}
		binary.LittleEndian.PutUint32(foldedBias[4*k:], math.Float32bits(float32((b-float64(mean[k]))*alpha+float64(shift[k]))))
	}
	base := bn.outputs[0]
	newW := &value{name: im.fresh(base + ".weight"), dtype: "f32", shape: w.shape, known: true, raw: folded, node: -1, stored: true}
	newB := &value{name: im.fresh(base + ".bias"), dtype: "f32", shape: []expr.Expr{expr.Const(m)}, known: true, raw: foldedBias, node: -1, stored: true}
	c.ins[1] = newW
	if len(c.ins) > 2 {
		c.ins[2] = newB
	} else {
		c.ins = append(c.ins, newB)
	}
	if im.absorbed == nil {
		im.absorbed = map[*nodeProto]string{}
	}
	im.absorbed[bn] = out
}

// constFloats is the contents of v as float32s when v is an f32 constant of
// n elements that no caller may override.
func constFloats(v *value, n int64) ([]float32, bool) {
	if !v.known || v.overridable || v.dtype != "f32" {
		return nil, false
	}
	b, ok := bytesOf(v)
	if !ok || int64(len(b)) != 4*n {
		return nil, false
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, true
}

// readers counts, per value name, the node inputs that read it, in the
// model's graph and the graphs nested in it.
func (im *importer) readers() map[string]int {
	if im.readCount == nil {
		im.readCount = map[string]int{}
		eachNode(im.m.graph, func(n *nodeProto) {
			for _, in := range n.inputs {
				if in != "" {
					im.readCount[in]++
				}
			}
		})
	}
	return im.readCount
}

// readerOf is the node of the model's graph that reads name, nil when none.
func (im *importer) readerOf(name string) *nodeProto {
	for _, n := range im.m.graph.nodes {
		for _, in := range n.inputs {
			if in == name {
				return n
			}
		}
	}
	return nil
}
