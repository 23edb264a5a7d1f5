// Package fuzzdiff draws random graphs of the ops wrapgen fuses
// (MatMul, Gemm and Conv with biases, residual sums and activations),
// with views that ops write over live storages, transposed and sliced
// reads, tensors read twice and Assign, and evaluates them independently
// in float64 (Eval), so a test can run each through `wrapgen run` and
// compare every output: the differential fuzzer of docs/reliability.md.
package fuzzdiff

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Case is one random graph with what to run it on.
type Case struct {
	Seed   uint64
	JSON   []byte               // format v1
	Inputs map[string][]float32 // by data input name, row-major at N
	Params map[string][]float32 // by param name, row-major
	N      int64                // the value of symbol n to run at
	// Shapes are every input's and param's shape at N.
	Shapes map[string][]int
}

// The symbol n's range: every case runs at one value in it.
const (
	minN, maxN = 1, 4
)

// value is a tensor an op may read: its name, its shape in the symbol's
// terms, and whether it is an intermediate (written by an op, so a later
// op may write a view over it).
type value struct {
	name  string
	shape []dim
	inter bool
}

// dim is a size: a constant, or k·n.
type dim struct{ k, n int64 }

func (d dim) json() any {
	switch {
	case d.n == 0:
		return d.k
	case d.n == 1 && d.k == 0:
		return "n"
	}
	return fmt.Sprintf("%d*n+%d", d.n, d.k)
}

func (d dim) at(n int64) int64 { return d.k + d.n*n }

// builder collects the graph as it is drawn.
type builder struct {
	rng     *rand.Rand
	n       int64
	tensors map[string]any
	order   []string // tensor names, in definition order
	inputs  []string
	params  []string
	ops     []any
	values  []value
	outputs []string
	count   int
	c       *Case
}

// Generate draws the case of seed; the same seed gives the same case.
func Generate(seed uint64) Case {
	b := &builder{
		rng:     rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d)),
		tensors: map[string]any{},
		c:       &Case{Seed: seed, Inputs: map[string][]float32{}, Params: map[string][]float32{}, Shapes: map[string][]int{}},
	}
	b.n = minN + b.rng.Int64N(maxN-minN+1)
	b.c.N = b.n
	blocks := 1 + b.rng.IntN(4)
	image := b.rng.IntN(2) == 0
	for i := 0; i < blocks; i++ {
		if image {
			b.convBlock()
		} else {
			b.matrixBlock()
		}
	}
	if b.rng.IntN(6) == 0 {
		b.assign()
	}
	b.pickOutputs()
	b.c.JSON = b.json()
	return *b.c
}

func (b *builder) fresh(prefix string) string {
	b.count++
	return fmt.Sprintf("%s%d", prefix, b.count)
}

func jsonShape(s []dim) []any {
	out := make([]any, len(s))
	for i, d := range s {
		out[i] = d.json()
	}
	return out
}

func (b *builder) shapeAt(s []dim) []int {
	out := make([]int, len(s))
	for i, d := range s {
		out[i] = int(d.at(b.n))
	}
	return out
}

// external adds a data input (param when param) of shape s with random
// contents, a NaN in some data.
func (b *builder) external(prefix string, s []dim, param bool) value {
	name := b.fresh(prefix)
	b.tensors[name] = map[string]any{"dtype": "f32", "shape": jsonShape(s)}
	b.order = append(b.order, name)
	shape := b.shapeAt(s)
	size := 1
	for _, d := range shape {
		size *= d
	}
	data := make([]float32, size)
	scale := float32(1)
	if b.rng.IntN(8) == 0 {
		scale = 1e3
	}
	for i := range data {
		data[i] = scale * (2*b.rng.Float32() - 1)
	}
	// NaN in data only: a NaN weight meeting padding is NaN·0 in an
	// im2col product and skipped by a direct one, both defensible.
	if size > 0 && prefix == "x" && b.rng.IntN(12) == 0 {
		data[b.rng.IntN(size)] = float32(math.NaN())
	}
	b.c.Shapes[name] = shape
	if param {
		b.params = append(b.params, name)
		b.c.Params[name] = data
	} else {
		b.inputs = append(b.inputs, name)
		b.c.Inputs[name] = data
	}
	return value{name: name, shape: s}
}

// target is the tensor an op writes: a new one, or now and then a view
// over an intermediate of the same shape (the write lands in live
// storage; the graph may then read the base).
func (b *builder) target(s []dim, avoid ...string) string {
	name := b.fresh("t")
	if b.rng.IntN(5) == 0 {
		var cands []value
		for _, v := range b.values {
			if v.inter && slices.Equal(v.shape, s) && !slices.Contains(avoid, v.name) {
				cands = append(cands, v)
			}
		}
		if len(cands) > 0 {
			base := cands[b.rng.IntN(len(cands))]
			b.tensors[name] = map[string]any{"view_of": base.name, "shape": jsonShape(s)}
			b.order = append(b.order, name)
			return name
		}
	}
	b.tensors[name] = map[string]any{"dtype": "f32", "shape": jsonShape(s)}
	b.order = append(b.order, name)
	return name
}

// op appends a kernel call; its output becomes a value.
func (b *builder) op(kernel string, ins []string, out string, shape []dim, attrs map[string]any) value {
	o := map[string]any{"kernel": kernel, "inputs": ins, "outputs": []string{out}}
	if len(attrs) > 0 {
		o["attrs"] = attrs
	}
	b.ops = append(b.ops, o)
	v := value{name: out, shape: shape, inter: true}
	b.values = append(b.values, v)
	return v
}

// read picks a value of shape s to read (an existing one, or a new input),
// now and then through a view: a transpose of a [a, b] value, or a slice
// of a wider one.
func (b *builder) read(s []dim) value {
	var cands []value
	for _, v := range b.values {
		if slices.Equal(v.shape, s) {
			cands = append(cands, v)
		}
	}
	if len(cands) > 0 && b.rng.IntN(3) != 0 {
		return cands[b.rng.IntN(len(cands))]
	}
	if len(s) == 2 && b.rng.IntN(4) == 0 {
		return b.transposedRead(s)
	}
	if len(s) == 2 && s[1].n == 0 && b.rng.IntN(4) == 0 {
		return b.slicedRead(s)
	}
	return b.external("x", s, false)
}

// transposedRead is a view [r, c] with strides [1, r] of an intermediate
// [c, r] (a Relu of an input).
func (b *builder) transposedRead(s []dim) value {
	src := b.external("x", []dim{s[1], s[0]}, false)
	base := b.op("Relu", []string{src.name}, b.target([]dim{s[1], s[0]}), []dim{s[1], s[0]}, nil)
	name := b.fresh("v")
	b.tensors[name] = map[string]any{"view_of": base.name, "shape": jsonShape(s), "strides": []any{1, s[0].json()}}
	b.order = append(b.order, name)
	return value{name: name, shape: s}
}

// slicedRead is a view [r, c] at column offset 0 or c of an intermediate
// [r, 2c] (a Sigmoid of an input).
func (b *builder) slicedRead(s []dim) value {
	wide := []dim{s[0], {k: 2 * s[1].k}}
	src := b.external("x", wide, false)
	base := b.op("Sigmoid", []string{src.name}, b.target(wide), wide, nil)
	name := b.fresh("v")
	b.tensors[name] = map[string]any{"view_of": base.name, "shape": jsonShape(s), "strides": []any{2 * s[1].k, 1},
		"offset": s[1].k * b.rng.Int64N(2)}
	b.order = append(b.order, name)
	return value{name: name, shape: s}
}

var smallDims = []int64{1, 2, 3, 5, 8, 13}

func (b *builder) rows() dim {
	switch b.rng.IntN(3) {
	case 0:
		return dim{n: 1}
	case 1:
		return dim{n: 2, k: 1}
	}
	return dim{k: smallDims[b.rng.IntN(len(smallDims))]}
}

func (b *builder) weight(prefix string, s []dim) value {
	return b.external(prefix, s, b.rng.IntN(3) != 0)
}

// matrixBlock is MatMul or Gemm, then maybe a bias, a residual sum and an
// activation.
func (b *builder) matrixBlock() {
	m := b.rows()
	var in value
	// Chain from the last matrix value now and then.
	if len(b.values) > 0 && b.rng.IntN(2) == 0 {
		last := b.values[len(b.values)-1]
		if len(last.shape) == 2 {
			in = last
			m = last.shape[0]
		}
	}
	k := dim{k: smallDims[b.rng.IntN(len(smallDims))]}
	if in.name != "" {
		k = in.shape[1]
	} else {
		in = b.read([]dim{m, k})
	}
	nn := dim{k: smallDims[b.rng.IntN(len(smallDims))]}
	out := []dim{m, nn}
	var p value
	if b.rng.IntN(2) == 0 {
		w := b.weight("w", []dim{k, nn})
		p = b.op("MatMul", []string{in.name, w.name}, b.target(out, in.name), out, nil)
		if b.rng.IntN(2) == 0 {
			bias := b.weight("b", []dim{nn})
			ins := []string{p.name, bias.name}
			if b.rng.IntN(2) == 0 {
				ins[0], ins[1] = ins[1], ins[0]
			}
			p = b.op("Add", ins, b.target(out, p.name), out, nil)
		}
	} else {
		transB := b.rng.IntN(2)
		ws := []dim{k, nn}
		if transB == 1 {
			ws = []dim{nn, k}
		}
		w := b.weight("w", ws)
		ins := []string{in.name, w.name}
		alphas := []float{1, 1, 0.5, 2, 1e-3}
		attrs := map[string]any{"alpha": alphas[b.rng.IntN(len(alphas))], "beta": []float{1, 0.5}[b.rng.IntN(2)],
			"transA": 0, "transB": transB}
		switch b.rng.IntN(4) {
		case 1:
			ins = append(ins, b.weight("c", []dim{nn}).name)
		case 2:
			ins = append(ins, b.read(out).name)
		case 3:
			ins = append(ins, b.weight("c", []dim{{k: 1}, nn}).name)
		}
		p = b.op("Gemm", ins, b.target(out, ins...), out, attrs)
	}
	b.finish(p)
}

// convBlock is a Conv with random padding, strides, dilations and groups,
// then maybe a residual sum and an activation.
func (b *builder) convBlock() {
	var in value
	if len(b.values) > 0 && b.rng.IntN(2) == 0 {
		if last := b.values[len(b.values)-1]; len(last.shape) == 4 {
			in = last
		}
	}
	if in.name == "" {
		c := []int64{1, 2, 3, 4, 6}[b.rng.IntN(5)]
		h, w := int64(1+b.rng.IntN(7)), int64(1+b.rng.IntN(7))
		in = b.read([]dim{{n: 1}, {k: c}, {k: h}, {k: w}})
	}
	c, h, w := in.shape[1].k, in.shape[2].k, in.shape[3].k
	group := int64(1)
	if b.rng.IntN(3) == 0 {
		group = c // depthwise
	} else if c%2 == 0 && b.rng.IntN(3) == 0 {
		group = 2
	}
	co := group * int64(1+b.rng.IntN(3))
	if group == 1 {
		co = []int64{1, 2, 4, 5, 8}[b.rng.IntN(5)]
	}
	kh, kw := int64(1+b.rng.IntN(3)), int64(1+b.rng.IntN(3))
	stride, dil := int64(1+b.rng.IntN(2)), int64(1+b.rng.IntN(2))
	pad := int64(b.rng.IntN(2))
	oh := (h+2*pad-dil*(kh-1)-1)/stride + 1
	ow := (w+2*pad-dil*(kw-1)-1)/stride + 1
	if oh < 1 || ow < 1 {
		kh, kw, dil, pad, stride = 1, 1, 1, 0, 1
		oh, ow = h, w
	}
	wt := b.weight("w", []dim{{k: co}, {k: c / group}, {k: kh}, {k: kw}})
	ins := []string{in.name, wt.name}
	if b.rng.IntN(3) != 0 {
		ins = append(ins, b.weight("b", []dim{{k: co}}).name)
	}
	out := []dim{{n: 1}, {k: co}, {k: oh}, {k: ow}}
	attrs := map[string]any{"kernel_shape": []int64{kh, kw}, "strides": []int64{stride, stride},
		"pads": []int64{pad, pad, pad, pad}, "dilations": []int64{dil, dil}, "group": group}
	p := b.op("Conv", ins, b.target(out, ins...), out, attrs)
	b.finish(p)
}

// finish adds, each maybe, a residual sum, an activation and a second
// reader of the product.
func (b *builder) finish(p value) {
	s := p.shape
	first := p
	if b.rng.IntN(2) == 0 {
		r := b.read(s)
		ins := []string{p.name, r.name}
		if b.rng.IntN(2) == 0 {
			ins[0], ins[1] = ins[1], ins[0]
		}
		p = b.op("Add", ins, b.target(s, ins...), s, nil)
	}
	if b.rng.IntN(4) != 0 {
		p = b.activation(p)
	}
	if b.rng.IntN(5) == 0 {
		// The product read again: fusion must leave it.
		b.outputs = append(b.outputs, b.op("Tanh", []string{first.name}, b.target(s, first.name), s, nil).name)
	}
}

func (b *builder) activation(p value) value {
	s := p.shape
	kinds := []string{"Relu", "Relu", "Sigmoid", "Tanh", "LeakyRelu", "HardSigmoid", "HardSwish", "Clip", "SiLU"}
	switch kind := kinds[b.rng.IntN(len(kinds))]; kind {
	case "LeakyRelu":
		return b.op(kind, []string{p.name}, b.target(s, p.name), s, map[string]any{"alpha": float(0.1)})
	case "HardSigmoid":
		return b.op(kind, []string{p.name}, b.target(s, p.name), s, map[string]any{"alpha": float(0.2), "beta": float(0.5)})
	case "Clip":
		return b.op(kind, []string{p.name}, b.target(s, p.name), s,
			map[string]any{"min": float(-0.5), "max": float(0.75), "min_from_input": false, "max_from_input": false})
	case "SiLU":
		sig := b.op("Sigmoid", []string{p.name}, b.target(s, p.name), s, nil)
		return b.op("Mul", []string{p.name, sig.name}, b.target(s, p.name, sig.name), s, nil)
	default:
		return b.op(kind, []string{p.name}, b.target(s, p.name), s, nil)
	}
}

// assign gives an intermediate a new value in place: Assign(src) mutating
// dst, which a later op reads.
func (b *builder) assign() {
	var dst value
	for _, v := range b.values {
		if v.inter && len(v.shape) > 0 {
			dst = v
		}
	}
	if dst.name == "" {
		return
	}
	src := b.external("x", dst.shape, false)
	b.ops = append(b.ops, map[string]any{"kernel": "Assign", "inputs": []string{src.name}, "outputs": []string{}, "mutates": []string{dst.name}})
	b.op("Relu", []string{dst.name}, b.target(dst.shape, dst.name), dst.shape, nil)
}

// pickOutputs takes the last value, maybe a few intermediates, and the
// second readers; never an input or param.
func (b *builder) pickOutputs() {
	outs := append([]string(nil), b.outputs...)
	if len(b.values) > 0 {
		outs = append(outs, b.values[len(b.values)-1].name)
	}
	for _, v := range b.values {
		if v.inter && b.rng.IntN(5) == 0 {
			outs = append(outs, v.name)
		}
	}
	seen := map[string]bool{}
	b.outputs = nil
	for _, o := range outs {
		if !seen[o] {
			seen[o] = true
			b.outputs = append(b.outputs, o)
		}
	}
}

// float is a float attribute: format v1 tells it from an integer by its
// point.
type float float64

func (f float) MarshalJSON() ([]byte, error) {
	s := strconv.FormatFloat(float64(f), 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return []byte(s), nil
}

func (b *builder) json() []byte {
	doc := map[string]any{
		"name":    "fuzz",
		"symbols": map[string]any{"n": map[string]any{"hint": 2, "min": minN, "max": maxN}},
		"tensors": b.tensors,
		"inputs":  orEmpty(b.inputs),
		"params":  orEmpty(b.params),
		"outputs": orEmpty(b.outputs),
		"ops":     b.ops,
	}
	data, err := json.Marshal(doc)
	if err != nil {
		panic(err) // only maps, slices, strings and numbers
	}
	return data
}

func orEmpty(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// String names the case for messages.
func (c Case) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d at n=%d:\n%s", c.Seed, c.N, c.JSON)
	return b.String()
}
