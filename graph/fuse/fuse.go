// Package fuse rewrites a graph so that a convolution or matrix product and
// the elementwise ops after it run as one kernel, as ONNX Runtime's
// FusedConv does: out = act(conv(x, w) + bias + sum). A Conv, Gemm or
// MatMul (MatMul with a following bias Add), then a residual Add of a
// tensor shaped exactly as its output, then one activation (Relu, Clip,
// HardSigmoid, HardSwish, Sigmoid, SiLU as x*Sigmoid(x), LeakyRelu, GELU
// as PyTorch exports it: x*(Erf(x/√2)+1)*0.5) become
// one FusedConv, FusedGemm or FusedMatMul op: no pass over memory for each,
// and no storage for the intermediates. The result is an ordinary
// format-v1 graph, written and read back, so it is validated, planned and
// verified like any other.
package fuse

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// The fused kernels' operands: the producer's own inputs (x and w, or A
// and B), then, each optional, an addend broadcast to the output (Conv's
// bias [M], Gemm's C scaled by beta, MatMul's bias over the last
// dimension) and the residual sum, exactly the output's shape. With three
// inputs the third is the addend, except for FusedConv, where a third
// input of the output's rank is the sum (a bias is 1-D). Attributes: the
// producer's, then "activation" (one of the names below, "" for none),
// "activation_alpha" and "activation_beta" (Clip's min and max,
// HardSigmoid's alpha and beta, LeakyRelu's alpha; 0 when unused).

// Ref is what wgref, wrapgen's reference kernels, implement: every fused
// kernel, whose output may take over its addend or sum where that has the
// output's shape and layout (the kernels start the output from them
// element by element and accumulate the product into it).
var Ref = map[string]graph.Traits{
	"FusedConv":   {Fuse: true, MayAlias: []graph.AliasPair{{Out: 0, In: 2}, {Out: 0, In: 3}}},
	"FusedGemm":   {Fuse: true, MayAlias: []graph.AliasPair{{Out: 0, In: 2}, {Out: 0, In: 3}}},
	"FusedMatMul": {Fuse: true, MayAlias: []graph.AliasPair{{Out: 0, In: 2}, {Out: 0, In: 3}}},
}

// fusedName is the fused kernel of each producer.
var fusedName = map[string]string{"Conv": "FusedConv", "Gemm": "FusedGemm", "MatMul": "FusedMatMul"}

// Apply rewrites g's ops into the fused kernels that kernels declares with
// Fuse (Ref for wgref; a graph's own "kernels" object for a user's kernel
// set), which the new graph declares with those traits. It never changes
// g; when nothing fuses it returns g itself.
func Apply(g *graph.Graph, kernels map[string]graph.Traits) (*graph.Graph, error) {
	r := &rewriter{g: g, kernels: kernels, uses: map[*graph.Tensor]int{}, dropped: map[*graph.Tensor]bool{}, called: map[string]bool{}}
	r.countUses()
	ops := r.list(g.Ops)
	if len(r.called) == 0 {
		return g, nil
	}
	ng := *g
	ng.Ops = ops
	ng.Tensors = nil
	for _, t := range g.Tensors {
		if !r.dropped[t] {
			ng.Tensors = append(ng.Tensors, t)
		}
	}
	// The traits of the kernels still called, and of the fused ones.
	ng.Traits = map[string]graph.Traits{}
	graph.Walk(ops, func(op *graph.Op, _ []*graph.Op) {
		if tr, ok := g.Traits[op.Kernel]; ok {
			ng.Traits[op.Kernel] = tr
		}
	})
	for k, tr := range g.Traits {
		if tr.Fuse {
			ng.Traits[k] = tr
		}
	}
	for k := range r.called {
		ng.Traits[k] = kernels[k]
	}
	data, err := ng.JSON()
	if err != nil {
		return nil, err
	}
	fused, err := graph.Parse(g.File, data)
	if err != nil {
		return nil, fmt.Errorf("%s: the graph with fused kernels is not valid (a wrapgen bug): %w", g.File, err)
	}
	return fused, nil
}

type rewriter struct {
	g       *graph.Graph
	kernels map[string]graph.Traits
	// uses counts each tensor's reads (an op's inputs and mutates, each
	// time listed) and views of it: a tensor fused away has one use.
	uses    map[*graph.Tensor]int
	dropped map[*graph.Tensor]bool // intermediates no longer in the graph
	called  map[string]bool        // fused kernels the new graph calls
}

func (r *rewriter) countUses() {
	graph.Walk(r.g.Ops, func(op *graph.Op, _ []*graph.Op) {
		for _, t := range op.Inputs {
			r.uses[t]++
		}
		for _, t := range op.Mutates {
			r.uses[t]++
		}
	})
	for _, t := range r.g.Tensors {
		if t.ViewOf != nil {
			r.uses[t.ViewOf]++
		}
	}
}

// chain is one fusion: the producer at ops[first], the ops folded into it,
// the fused op that replaces them, placed before ops[at].
type chain struct {
	first, at int
	folded    []int
	op        *graph.Op
}

// list rewrites one op list (a loop's body in turn), never changing ops.
func (r *rewriter) list(ops []*graph.Op) []*graph.Op {
	// readers[t] are the indices in ops of the kernel ops that read t,
	// once per time they list it.
	readers := map[*graph.Tensor][]int{}
	for i, op := range ops {
		if op.Loop != nil {
			continue
		}
		for _, t := range op.Inputs {
			readers[t] = append(readers[t], i)
		}
	}
	taken := make([]bool, len(ops))
	var chains []chain
	for i, op := range ops {
		if taken[i] || op.Loop != nil {
			continue
		}
		if c, ok := r.match(ops, i, readers, taken); ok {
			taken[i] = true
			for _, j := range c.folded {
				taken[j] = true
			}
			chains = append(chains, c)
		}
	}
	if len(chains) == 0 && !hasLoop(ops) {
		return ops
	}
	before := map[int][]*graph.Op{}
	for _, c := range chains {
		before[c.at] = append(before[c.at], c.op)
	}
	var out []*graph.Op
	for i, op := range ops {
		out = append(out, before[i]...)
		switch {
		case taken[i]:
		case op.Loop != nil:
			loop := *op.Loop
			loop.Body = r.list(op.Loop.Body)
			nop := *op
			nop.Loop = &loop
			out = append(out, &nop)
		default:
			out = append(out, op)
		}
	}
	return out
}

func hasLoop(ops []*graph.Op) bool {
	for _, op := range ops {
		if op.Loop != nil {
			return true
		}
	}
	return false
}

// plainOp reports whether op is a kernel call of one output that declares
// nothing beyond its inputs and output (no inplace, mutates or sets).
func plainOp(op *graph.Op) bool {
	return op.Loop == nil && len(op.Outputs) == 1 && len(op.Inplace) == 0 && len(op.Mutates) == 0 && len(op.Sets) == 0
}

// foldable reports whether t, an op's output, can vanish into a fused
// kernel: float32, its own storage, read once and not returned.
func (r *rewriter) foldable(t *graph.Tensor, reads int) bool {
	return t.DType == "f32" && !t.IsView() && !t.Output && !t.External() && r.uses[t] == reads
}

// next is the op of ops that reads t once, when t can be folded into it.
func (r *rewriter) next(ops []*graph.Op, t *graph.Tensor, readers map[*graph.Tensor][]int, taken []bool) (int, *graph.Op, bool) {
	if len(readers[t]) != 1 {
		return 0, nil, false
	}
	i := readers[t][0]
	if taken[i] || !r.foldable(t, 1) || !plainOp(ops[i]) || ops[i].Outputs[0].DType != "f32" {
		return 0, nil, false
	}
	return i, ops[i], true
}

// stage is a fusion cut after one more op folded: what the fused op
// would be if it ended there.
type stage struct {
	folded      []int
	drops       []*graph.Tensor // the intermediates folded away
	cur         *graph.Tensor   // the fused op's output
	addend, sum *graph.Tensor
	at          int
	act         string
	alpha, beta float64
}

// match finds the fusion that starts at ops[i], if any: the longest chain
// of foldable ops whose fused op is sound (its output shares no memory with
// its inputs but in place, as its kernel takes it) and may run where it
// goes.
func (r *rewriter) match(ops []*graph.Op, i int, readers map[*graph.Tensor][]int, taken []bool) (chain, bool) {
	p := ops[i]
	name := fusedName[p.Kernel]
	if name == "" || !r.kernels[name].Fuse || !plainOp(p) || !allF32(p.Inputs) || !producerShapes(p) {
		return chain{}, false
	}
	st := stage{cur: p.Outputs[0], at: i}
	if len(p.Inputs) == 3 {
		st.addend = p.Inputs[2]
	}
	var stages []stage
	fold := func(js []int, out *graph.Tensor, also ...*graph.Tensor) {
		st.folded = append(slices.Clone(st.folded), js...)
		st.drops = append(append(slices.Clone(st.drops), st.cur), also...)
		st.cur = out
		stages = append(stages, st)
	}
	// MatMul's bias: an Add of a vector over the output's last dimension.
	if cur := st.cur; p.Kernel == "MatMul" && len(cur.Shape) >= 2 {
		if j, op, ok := r.next(ops, cur, readers, taken); ok && op.Kernel == "Add" && len(op.Inputs) == 2 {
			b := other(op, cur)
			if b != nil && b.DType == "f32" && b.External() && len(b.Shape) == 1 && expr.Equal(b.Shape[0], cur.Shape[len(cur.Shape)-1]) {
				st.addend = b
				fold([]int{j}, op.Outputs[0])
			}
		}
	}
	// The residual: an Add of a tensor of exactly the output's shape.
	cur := st.cur
	if j, op, ok := r.next(ops, cur, readers, taken); ok && op.Kernel == "Add" && len(op.Inputs) == 2 {
		if s := other(op, cur); s != nil && s.DType == "f32" && !s.IsView() && sameShape(s, cur) && sameShape(op.Outputs[0], cur) {
			if at, ok := sumPlace(ops, i, j, s); ok {
				st.sum, st.at = s, at
				fold([]int{j}, op.Outputs[0])
			}
		}
	}
	cur = st.cur
	if j, op, ok := r.next(ops, cur, readers, taken); ok {
		if a, al, be, ok := activation(op); ok {
			st.act, st.alpha, st.beta = a, al, be
			fold([]int{j}, op.Outputs[0])
		}
	} else if j, k, y, ok := r.silu(ops, cur, readers, taken); ok {
		st.act = "SiLU"
		fold([]int{j, k}, y, ops[j].Outputs[0])
	} else if chainOps, y, ok := r.gelu(ops, cur, readers, taken); ok {
		st.act = "Gelu"
		var also []*graph.Tensor
		for _, j := range chainOps[:len(chainOps)-1] {
			also = append(also, ops[j].Outputs[0])
		}
		fold(chainOps, y, also...)
	}
	for k := len(stages) - 1; k >= 0; k-- {
		if c, ok := r.fusedAt(ops, i, name, stages[k]); ok {
			return c, true
		}
	}
	return chain{}, false
}

// fusedAt is the fused op of one stage, when it is sound and can go where
// it must.
func (r *rewriter) fusedAt(ops []*graph.Op, first int, name string, st stage) (chain, bool) {
	p := ops[first]
	c := chain{first: first, at: st.at, folded: st.folded}
	// The fused op writes the output at c.at, earlier than the last op
	// folded did: no op it now runs before may touch that storage.
	for j := c.at; j <= slices.Max(c.folded); j++ {
		if j != c.first && !slices.Contains(c.folded, j) && touches(ops[j], st.cur.Root) {
			return chain{}, false
		}
	}
	attrs := append([]graph.Attr(nil), p.Attrs...)
	addend, sum := st.addend, st.sum
	switch {
	case p.Kernel == "Gemm" && sum != nil && addend == nil:
		// The sum is Gemm's C: beta must be 1.
		setFloat(attrs, "beta", 1)
		addend, sum = sum, nil
	case p.Kernel == "MatMul" && sum != nil && addend == nil:
		addend, sum = sum, nil // the exact shape broadcasts trivially
	}
	inputs := slices.Clone(p.Inputs[:2])
	for _, t := range []*graph.Tensor{addend, sum} {
		if t != nil {
			inputs = append(inputs, t)
		}
	}
	attrs = append(attrs,
		graph.Attr{Name: "activation", Kind: graph.AttrString, Str: st.act},
		graph.Attr{Name: "activation_alpha", Kind: graph.AttrFloat, Float: st.alpha},
		graph.Attr{Name: "activation_beta", Kind: graph.AttrFloat, Float: st.beta})
	op := &graph.Op{Kernel: name, Inputs: inputs, Outputs: []*graph.Tensor{st.cur}, Attrs: attrs}
	if !r.sound(op) {
		return chain{}, false
	}
	for _, t := range st.drops {
		r.dropped[t] = true
	}
	c.op = op
	r.called[name] = true
	return c, true
}

// sound reports whether the fused op computes what the ops it replaces
// did: its output shares no storage with an input, but where its kernel
// declares the pair (may_alias) and the output is exactly that input's
// memory (dtype, shape, strides, start) in a layout the reference kernels
// take in place. The same holds where the planner may choose to put the
// output in an input's storage (an input of the output's layout, with
// storage of its own): the pair must then be one the kernel takes.
func (r *rewriter) sound(op *graph.Op) bool {
	out := op.Outputs[0]
	for idx, in := range op.Inputs {
		declared := slices.Contains(r.kernels[op.Kernel].MayAlias, graph.AliasPair{Out: 0, In: idx})
		switch {
		case in.Root == out.Root:
			if !declared || !sameMemory(out, in) || !takesInPlace(op) {
				return false
			}
		case declared && !out.IsView() && !in.IsView() && !in.Root.External() && sameLayout(out, in) && !takesInPlace(op):
			return false
		}
	}
	return true
}

// takesInPlace reports whether the fused kernels of wgref (Go and C++)
// run op on their block epilogue, the path that reads each element of the
// addend and sum before it writes the output there (elsewhere they refuse
// an output in an input's memory): a convolution's output planes and its
// filters contiguous; a Gemm's output rows contiguous, its alpha not 0; a
// MatMul's output contiguous, of rank 1 or more, its bias (when not of the
// output's shape) of rank 1 at most. A user's fused kernels take the same
// layouts at least, as their declared may_alias promises for the output's
// own layout.
func takesInPlace(op *graph.Op) bool {
	out := op.Outputs[0]
	switch op.Kernel {
	case "FusedConv":
		return contiguousFrom(out, 2) && contiguousFrom(op.Inputs[1], 0)
	case "FusedGemm":
		alpha, ok := floatAttr(op, "alpha")
		return len(out.Shape) == 2 && expr.Equal(out.Strides[1], expr.Const(1)) && (!ok || alpha != 0)
	case "FusedMatMul":
		if len(out.Shape) == 0 || !contiguousFrom(out, 0) {
			return false
		}
		return len(op.Inputs) < 3 || len(op.Inputs[2].Shape) <= 1 || sameShape(op.Inputs[2], out)
	}
	return false
}

// contiguousFrom reports whether t's dimensions from the first'th on are
// row-major contiguous, whatever the symbols' values (a dimension of size
// 1 takes any stride).
func contiguousFrom(t *graph.Tensor, first int) bool {
	want := expr.Const(1)
	for d := len(t.Shape) - 1; d >= first; d-- {
		if !expr.Equal(t.Shape[d], expr.Const(1)) && !expr.Equal(t.Strides[d], want) {
			return false
		}
		want = expr.Mul(want, t.Shape[d])
	}
	return true
}

// sameLayout reports whether a and b have one dtype, device, shape and
// strides.
func sameLayout(a, b *graph.Tensor) bool {
	if a.DType != b.DType || a.Device != b.Device || !sameShape(a, b) {
		return false
	}
	for i := range a.Strides {
		if !expr.Equal(a.Strides[i], b.Strides[i]) {
			return false
		}
	}
	return true
}

// sameMemory reports whether a and b are the same elements of one
// storage: one root, one start, one layout.
func sameMemory(a, b *graph.Tensor) bool {
	return a.Root == b.Root && expr.Equal(start(a), start(b)) && sameLayout(a, b)
}

// start is where t begins in its root's storage, in elements.
func start(t *graph.Tensor) expr.Expr {
	off := expr.Const(0)
	for ; t.ViewOf != nil; t = t.ViewOf {
		off = expr.Add(off, t.Offset)
	}
	return off
}

// silu matches y = t * Sigmoid(t): t read by exactly those two ops.
func (r *rewriter) silu(ops []*graph.Op, t *graph.Tensor, readers map[*graph.Tensor][]int, taken []bool) (int, int, *graph.Tensor, bool) {
	if !r.foldable(t, 2) || len(readers[t]) != 2 {
		return 0, 0, nil, false
	}
	for _, j := range readers[t] {
		op := ops[j]
		if taken[j] || !plainOp(op) || op.Kernel != "Sigmoid" || len(op.Inputs) != 1 {
			continue
		}
		s := op.Outputs[0]
		k, mul, ok := r.next(ops, s, readers, taken)
		if !ok || mul.Kernel != "Mul" || len(mul.Inputs) != 2 || other(mul, s) != t || !sameShape(mul.Outputs[0], t) {
			return 0, 0, nil, false
		}
		return j, k, mul.Outputs[0], true
	}
	return 0, 0, nil, false
}

// gelu matches GELU as PyTorch exports it (erf form): y = (t * (Erf(t /
// √2) + 1)) * 0.5, t read by exactly the Div and the first Mul, each
// intermediate read once; it returns the chain's ops (Div, Erf, Add, Mul,
// Mul) and y.
func (r *rewriter) gelu(ops []*graph.Op, t *graph.Tensor, readers map[*graph.Tensor][]int, taken []bool) ([]int, *graph.Tensor, bool) {
	if !r.foldable(t, 2) || len(readers[t]) != 2 {
		return nil, nil, false
	}
	for _, d := range readers[t] {
		div := ops[d]
		if taken[d] || !plainOp(div) || div.Kernel != "Div" || len(div.Inputs) != 2 || div.Inputs[0] != t || !scalarIs(div.Inputs[1], 1.4142135) {
			continue
		}
		e, erf, ok := r.next(ops, div.Outputs[0], readers, taken)
		if !ok || erf.Kernel != "Erf" || len(erf.Inputs) != 1 {
			return nil, nil, false
		}
		a, add, ok := r.next(ops, erf.Outputs[0], readers, taken)
		if !ok || add.Kernel != "Add" || len(add.Inputs) != 2 || !scalarIs(other(add, erf.Outputs[0]), 1) {
			return nil, nil, false
		}
		m, mul, ok := r.next(ops, add.Outputs[0], readers, taken)
		if !ok || mul.Kernel != "Mul" || len(mul.Inputs) != 2 || other(mul, add.Outputs[0]) != t || !sameShape(mul.Outputs[0], t) {
			return nil, nil, false
		}
		h, half, ok := r.next(ops, mul.Outputs[0], readers, taken)
		if !ok || half.Kernel != "Mul" || len(half.Inputs) != 2 || !scalarIs(other(half, mul.Outputs[0]), 0.5) || !sameShape(half.Outputs[0], t) {
			return nil, nil, false
		}
		return []int{d, e, a, m, h}, half.Outputs[0], true
	}
	return nil, nil, false
}

// scalarIs reports whether t is a float32 constant of one element equal
// to v rounded to float32.
func scalarIs(t *graph.Tensor, v float32) bool {
	if t == nil || t.DType != "f32" || len(t.Data) != 4 {
		return false
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(t.Data)) == v
}

// sumPlace is where the fused op can go when the residual Add at ops[add]
// reads s: at the producer ops[first], or, when an op between them
// defines s, right after it, provided no op the producer's reads are moved
// past writes what they read.
func sumPlace(ops []*graph.Op, first, add int, s *graph.Tensor) (int, bool) {
	def := -1
	for j := first + 1; j < add; j++ {
		if writes(ops[j], s.Root) {
			if def >= 0 {
				return 0, false // written twice
			}
			def = j
		}
	}
	if def < 0 {
		return first, true
	}
	at := def + 1
	for j := first + 1; j < at; j++ {
		for _, t := range ops[first].Inputs {
			if writes(ops[j], t.Root) {
				return 0, false
			}
		}
	}
	return at, true
}

// writes reports whether op (a loop: any op of its body) writes root's
// storage.
func writes(op *graph.Op, root *graph.Tensor) bool {
	hit := false
	graph.Walk([]*graph.Op{op}, func(o *graph.Op, _ []*graph.Op) {
		for _, t := range o.Outputs {
			hit = hit || t.Root == root
		}
		for _, t := range o.Mutates {
			hit = hit || t.Root == root
		}
		for _, ip := range o.Inplace {
			hit = hit || ip.In.Root == root
		}
	})
	return hit
}

// touches reports whether op reads or writes root's storage.
func touches(op *graph.Op, root *graph.Tensor) bool {
	hit := writes(op, root)
	graph.Walk([]*graph.Op{op}, func(o *graph.Op, _ []*graph.Op) {
		for _, t := range o.Inputs {
			hit = hit || t.Root == root
		}
	})
	return hit
}

// activation reads an activation op: its name and parameters.
func activation(op *graph.Op) (string, float64, float64, bool) {
	if len(op.Inputs) != 1 {
		return "", 0, 0, false
	}
	switch op.Kernel {
	case "Relu", "HardSwish", "Sigmoid":
		return op.Kernel, 0, 0, true
	case "LeakyRelu":
		alpha, ok := floatAttr(op, "alpha")
		return op.Kernel, alpha, 0, ok
	case "HardSigmoid":
		alpha, ok1 := floatAttr(op, "alpha")
		beta, ok2 := floatAttr(op, "beta")
		return op.Kernel, alpha, beta, ok1 && ok2
	case "Clip":
		// Bounds known when the graph was made, not read from inputs.
		lo, ok1 := floatAttr(op, "min")
		hi, ok2 := floatAttr(op, "max")
		ok := ok1 && ok2 && !boolAttr(op, "min_from_input") && !boolAttr(op, "max_from_input")
		return op.Kernel, lo, hi, ok
	}
	return "", 0, 0, false
}

func floatAttr(op *graph.Op, name string) (float64, bool) {
	for _, a := range op.Attrs {
		if a.Name == name && a.Kind == graph.AttrFloat {
			return a.Float, true
		}
	}
	return 0, false
}

func boolAttr(op *graph.Op, name string) bool {
	for _, a := range op.Attrs {
		if a.Name == name {
			return a.Kind != graph.AttrBool || a.Bool // anything but false refuses
		}
	}
	return false
}

func setFloat(attrs []graph.Attr, name string, v float64) {
	for i := range attrs {
		if attrs[i].Name == name {
			attrs[i] = graph.Attr{Name: name, Kind: graph.AttrFloat, Float: v}
		}
	}
}

// other is the input of a two-input op that is not t (nil when both are).
func other(op *graph.Op, t *graph.Tensor) *graph.Tensor {
	switch {
	case op.Inputs[0] == t && op.Inputs[1] != t:
		return op.Inputs[1]
	case op.Inputs[1] == t && op.Inputs[0] != t:
		return op.Inputs[0]
	}
	return nil
}

func sameShape(a, b *graph.Tensor) bool {
	if len(a.Shape) != len(b.Shape) {
		return false
	}
	for i := range a.Shape {
		if !expr.Equal(a.Shape[i], b.Shape[i]) {
			return false
		}
	}
	return true
}

func allF32(ts []*graph.Tensor) bool {
	for _, t := range ts {
		if t.DType != "f32" {
			return false
		}
	}
	return true
}

// producerShapes reports whether p's operands are those its fused kernel
// takes: a Conv's bias 1-D, a Gemm's matrices 2-D (so that its C is
// known), a MatMul without a third input.
func producerShapes(p *graph.Op) bool {
	switch p.Kernel {
	case "Conv":
		return (len(p.Inputs) == 2 || len(p.Inputs) == 3 && len(p.Inputs[2].Shape) == 1) && len(p.Outputs[0].Shape) >= 3
	case "Gemm":
		return len(p.Inputs) == 2 || len(p.Inputs) == 3
	case "MatMul":
		return len(p.Inputs) == 2
	}
	return false
}
