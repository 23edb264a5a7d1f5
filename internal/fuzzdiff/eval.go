package fuzzdiff

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// Array is a dense row-major float64 tensor. Mag bounds, element by
// element, the magnitudes the value was computed from (Σ|a·b| for a
// product, |a| + |b| for a sum): float32 rounding errors scale with it,
// not with the value, where terms cancel.
type Array struct {
	Shape []int
	Data  []float64
	Mag   []float64
}

func (a Array) size() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// evaluator runs a graph as its memory says: one float64 storage per root
// tensor, every view a window of strides and offset into it, each op
// reading its inputs whole before it writes its outputs. It shares nothing
// with wrapgen's planner or kernels.
type evaluator struct {
	env      expr.Env
	storages map[*graph.Tensor]storage
}

// storage is a root tensor's elements and their magnitudes.
type storage struct{ val, mag []float64 }

// Eval runs g (the graph as parsed, unfused) on c's inputs and params at
// n = c.N and returns every graph output, read when the program ends.
func Eval(g *graph.Graph, c Case) (map[string]Array, error) {
	e := &evaluator{env: expr.Env{"n": c.N}, storages: map[*graph.Tensor]storage{}}
	for _, t := range g.Tensors {
		if t.ViewOf != nil {
			continue
		}
		n, err := t.ExtentElems.Eval(e.env)
		if err != nil {
			return nil, err
		}
		s := storage{make([]float64, n), make([]float64, n)}
		src, ok := c.Inputs[t.Name]
		if !ok {
			src, ok = c.Params[t.Name]
		}
		for i := range s.val {
			switch {
			case ok:
				s.val[i] = float64(src[i])
			default:
				s.val[i] = math.NaN() // never written: reading it is a generator bug
			}
			s.mag[i] = math.Abs(s.val[i])
		}
		e.storages[t] = s
	}
	var err error
	graph.Walk(g.Ops, func(op *graph.Op, loops []*graph.Op) {
		if err == nil {
			if len(loops) > 0 {
				err = fmt.Errorf("fuzzdiff: loops are not evaluated")
				return
			}
			err = e.run(op)
		}
	})
	if err != nil {
		return nil, err
	}
	outs := map[string]Array{}
	for _, t := range g.Outputs {
		a, err := e.read(t)
		if err != nil {
			return nil, err
		}
		outs[t.Name] = a
	}
	return outs, nil
}

// layout is where t's elements are in its root storage.
func (e *evaluator) layout(t *graph.Tensor) (shape, strides []int, off int, err error) {
	for i, d := range t.Shape {
		v, err := d.Eval(e.env)
		if err != nil {
			return nil, nil, 0, err
		}
		s, err := t.Strides[i].Eval(e.env)
		if err != nil {
			return nil, nil, 0, err
		}
		shape, strides = append(shape, int(v)), append(strides, int(s))
	}
	for v := t; v.ViewOf != nil; v = v.ViewOf {
		o, err := v.Offset.Eval(e.env)
		if err != nil {
			return nil, nil, 0, err
		}
		off += int(o)
	}
	return shape, strides, off, nil
}

// each calls f(i, position in storage) for every element of a tensor of
// the layout in row-major order.
func each(shape, strides []int, off int, f func(i, pos int)) {
	n := 1
	for _, d := range shape {
		n *= d
	}
	for i := 0; i < n; i++ {
		pos, rest := off, i
		for d := len(shape) - 1; d >= 0; d-- {
			pos += rest % shape[d] * strides[d]
			rest /= shape[d]
		}
		f(i, pos)
	}
}

func (e *evaluator) read(t *graph.Tensor) (Array, error) {
	shape, strides, off, err := e.layout(t)
	if err != nil {
		return Array{}, err
	}
	a := Array{Shape: shape}
	a.Data, a.Mag = make([]float64, a.size()), make([]float64, a.size())
	s := e.storages[t.Root]
	each(shape, strides, off, func(i, pos int) { a.Data[i], a.Mag[i] = s.val[pos], s.mag[pos] })
	return a, nil
}

func (e *evaluator) write(t *graph.Tensor, a Array) error {
	shape, strides, off, err := e.layout(t)
	if err != nil {
		return err
	}
	if len(shape) != len(a.Shape) {
		return fmt.Errorf("fuzzdiff: %s is %v, the op computed %v", t.Name, shape, a.Shape)
	}
	for i := range shape {
		if shape[i] != a.Shape[i] {
			return fmt.Errorf("fuzzdiff: %s is %v, the op computed %v", t.Name, shape, a.Shape)
		}
	}
	s := e.storages[t.Root]
	each(shape, strides, off, func(i, pos int) { s.val[pos], s.mag[pos] = a.Data[i], a.Mag[i] })
	return nil
}

func (e *evaluator) run(op *graph.Op) error {
	ins := make([]Array, len(op.Inputs))
	for i, t := range op.Inputs {
		a, err := e.read(t)
		if err != nil {
			return err
		}
		ins[i] = a
	}
	if op.Kernel == "Assign" {
		return e.write(op.Mutates[0], ins[0])
	}
	out, err := compute(op, ins)
	if err != nil {
		return fmt.Errorf("%s: %w", op.Label(), err)
	}
	return e.write(op.Outputs[0], out)
}
