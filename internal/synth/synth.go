// Package synth writes large synthetic graphs in format v1, shaped like real
// models (transformer encoders, residual CNNs): skip connections, in-place
// ops, views with offsets, a symbolic batch. Benchmarks and property tests
// use them where the real graphs are too small.
package synth

import (
	"encoding/json"
	"fmt"
)

// Kind is the family of model to imitate.
type Kind string

const (
	Transformer Kind = "transformer"
	CNN         Kind = "cnn"
)

type tensor struct {
	DType   string `json:"dtype,omitempty"`
	Shape   []any  `json:"shape"`
	Strides []any  `json:"strides,omitempty"`
	ViewOf  string `json:"view_of,omitempty"`
	Offset  any    `json:"offset,omitempty"`
}

type op struct {
	Kernel  string            `json:"kernel"`
	Inputs  []string          `json:"inputs"`
	Outputs []string          `json:"outputs"`
	Attrs   map[string]any    `json:"attrs,omitempty"`
	Inplace map[string]string `json:"inplace,omitempty"`
}

type builder struct {
	tensors map[string]tensor
	order   []string
	inputs  []string
	ops     []op
	n       int
}

func (b *builder) tensor(prefix string, t tensor) string {
	b.n++
	name := fmt.Sprintf("%s%d", prefix, b.n)
	b.tensors[name] = t
	b.order = append(b.order, name)
	return name
}

func (b *builder) input(shape ...any) string {
	name := b.tensor("w", tensor{DType: "f32", Shape: shape})
	b.inputs = append(b.inputs, name)
	return name
}

func (b *builder) op(kernel string, ins []string, shape ...any) string {
	out := b.tensor("t", tensor{DType: "f32", Shape: shape})
	b.ops = append(b.ops, op{Kernel: kernel, Inputs: ins, Outputs: []string{out}})
	return out
}

func (b *builder) inplace(kernel, in string) string {
	t := b.tensors[in]
	out := b.tensor("t", tensor{DType: t.DType, Shape: t.Shape})
	b.ops = append(b.ops, op{Kernel: kernel, Inputs: []string{in}, Outputs: []string{out}, Inplace: map[string]string{out: in}})
	return out
}

// Graph returns the JSON text of a graph of the given kind with at least
// ops ops.
func Graph(kind Kind, ops int) ([]byte, error) {
	b := &builder{tensors: map[string]tensor{}}
	switch kind {
	case Transformer:
		b.transformer(ops)
	case CNN:
		b.cnn(ops)
	default:
		return nil, fmt.Errorf("unknown synthetic graph kind %q (transformer or cnn)", kind)
	}
	// json.Marshal sorts map keys; the tensors object must keep file order,
	// so it is written by hand.
	type graphJSON struct {
		Name    string          `json:"name"`
		Symbols map[string]any  `json:"symbols"`
		Tensors json.RawMessage `json:"tensors"`
		Inputs  []string        `json:"inputs"`
		Outputs []string        `json:"outputs"`
		Ops     []op            `json:"ops"`
	}
	tensors := []byte{'{'}
	for i, name := range b.order {
		if i > 0 {
			tensors = append(tensors, ',')
		}
		k, _ := json.Marshal(name)
		v, err := json.Marshal(b.tensors[name])
		if err != nil {
			return nil, err
		}
		tensors = append(append(append(tensors, k...), ':'), v...)
	}
	tensors = append(tensors, '}')
	last := b.ops[len(b.ops)-1].Outputs[0]
	return json.Marshal(graphJSON{
		Name:    fmt.Sprintf("synth_%s_%d", kind, ops),
		Symbols: map[string]any{"batch": map[string]int{"hint": 1, "min": 1, "max": 1024}},
		Tensors: tensors, Inputs: b.inputs, Outputs: []string{last}, Ops: b.ops,
	})
}

// transformer writes encoder layers (about 13 ops each): attention with
// q/k/v as offset views of one projection, softmax in place, residual adds,
// an MLP with an in-place activation.
// TransformerOpsPerLayer is how many ops one encoder layer of the
// Transformer kind has.
const TransformerOpsPerLayer = 12

func (b *builder) transformer(ops int) {
	const seq, d, hidden = 197, 768, 3072
	x := b.input("batch", seq, d)
	for len(b.ops) < ops {
		ln := b.op("layer_norm", []string{x}, "batch", seq, d)
		qkv := b.op("linear", []string{ln, b.input(d, 3*d)}, "batch", seq, 3*d)
		var qkvViews [3]string
		for i := range qkvViews {
			qkvViews[i] = b.tensor("v", tensor{ViewOf: qkv, Shape: []any{"batch", seq, d}, Strides: []any{seq * 3 * d, 3 * d, 1}, Offset: i * d})
		}
		kt := b.tensor("v", tensor{ViewOf: qkv, Shape: []any{"batch", d, seq}, Strides: []any{seq * 3 * d, 1, 3 * d}, Offset: d})
		s := b.op("bmm", []string{qkvViews[0], kt}, "batch", 12, seq, seq)
		p := b.inplace("softmax_", s)
		a := b.op("bmm", []string{p, qkvViews[2]}, "batch", seq, d)
		o := b.op("linear", []string{a, b.input(d, d)}, "batch", seq, d)
		x2 := b.op("add", []string{x, o}, "batch", seq, d)
		ln2 := b.op("layer_norm", []string{x2}, "batch", seq, d)
		h := b.op("linear", []string{ln2, b.input(d, hidden)}, "batch", seq, hidden)
		g := b.inplace("gelu_", h)
		o2 := b.op("linear", []string{g, b.input(hidden, d)}, "batch", seq, d)
		x = b.op("add", []string{x2, o2}, "batch", seq, d)
		_ = qkvViews[1]
	}
}

// cnn writes residual blocks (about 8 ops each) with a downsampling block
// every fourth.
func (b *builder) cnn(ops int) {
	c, hw := 64, 56
	x := b.input("batch", c, hw, hw)
	for blk := 0; len(b.ops) < ops; blk++ {
		co, ho := c, hw
		if blk%4 == 3 && hw > 7 {
			co, ho = c*2, hw/2
		}
		y := b.op("conv", []string{x, b.input(co, c, 3, 3)}, "batch", co, ho, ho)
		y = b.op("batch_norm", []string{y}, "batch", co, ho, ho)
		y = b.inplace("relu_", y)
		y = b.op("conv", []string{y, b.input(co, co, 3, 3)}, "batch", co, ho, ho)
		y = b.op("batch_norm", []string{y}, "batch", co, ho, ho)
		skip := x
		if co != c {
			skip = b.op("conv", []string{x, b.input(co, c, 1, 1)}, "batch", co, ho, ho)
		}
		y = b.op("add", []string{y, skip}, "batch", co, ho, ho)
		x = b.inplace("relu_", y)
		c, hw = co, ho
	}
}
