package fuzzdiff

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/graph"
)

// compute is one op's output in float64, by the ONNX definition of its
// kernel (NaN through every activation as PyTorch gives it), and its
// magnitudes: the same linear op over the inputs' magnitudes (every scale
// the generator draws is positive); for an activation, 1.5 (the steepest
// slope, HardSwish's) times the input's plus the output's own.
func compute(op *graph.Op, in []Array) (Array, error) {
	out, err := values(op, in)
	if err != nil || out.Mag != nil {
		return out, err
	}
	mags := make([]Array, len(in))
	for i, a := range in {
		mags[i] = Array{Shape: a.Shape, Data: a.Mag}
	}
	m, err := values(op, mags)
	if err != nil {
		return Array{}, err
	}
	out.Mag = m.Data
	return out, nil
}

// values is compute without the magnitudes, but for an activation's.
func values(op *graph.Op, in []Array) (Array, error) {
	switch op.Kernel {
	case "MatMul":
		return matMul(in[0], in[1], false, false)
	case "Gemm":
		return gemm(op, in)
	case "Conv":
		return conv(op, in)
	case "Add":
		return broadcast(in[0], in[1], func(a, b float64) float64 { return a + b })
	case "Mul":
		return broadcast(in[0], in[1], func(a, b float64) float64 { return a * b })
	}
	f, ok := unary(op)
	if !ok {
		return Array{}, fmt.Errorf("fuzzdiff does not evaluate %s", op.Kernel)
	}
	out := Array{Shape: in[0].Shape, Data: make([]float64, len(in[0].Data)), Mag: make([]float64, len(in[0].Data))}
	for i, x := range in[0].Data {
		out.Data[i] = f(x)
		out.Mag[i] = 1.5*in[0].Mag[i] + math.Abs(out.Data[i])
	}
	return out, nil
}

func unary(op *graph.Op) (func(float64) float64, bool) {
	alpha, beta := floatAttr(op, "alpha", 0), floatAttr(op, "beta", 0)
	switch op.Kernel {
	case "Relu":
		return func(x float64) float64 {
			if x <= 0 {
				return 0
			}
			return x
		}, true
	case "Sigmoid":
		return func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, true
	case "Tanh":
		return math.Tanh, true
	case "LeakyRelu":
		return func(x float64) float64 {
			if x < 0 {
				return alpha * x
			}
			return x
		}, true
	case "HardSigmoid":
		return func(x float64) float64 { return math.Max(0, math.Min(1, alpha*x+beta)) }, true
	case "HardSwish":
		return func(x float64) float64 { return x * math.Max(0, math.Min(1, x/6+0.5)) }, true
	case "Clip":
		lo, hi := floatAttr(op, "min", math.Inf(-1)), floatAttr(op, "max", math.Inf(1))
		return func(x float64) float64 { return math.Max(lo, math.Min(hi, x)) }, true
	}
	return nil, false
}

func floatAttr(op *graph.Op, name string, def float64) float64 {
	for _, a := range op.Attrs {
		if a.Name == name {
			switch a.Kind {
			case graph.AttrFloat:
				return a.Float
			case graph.AttrInt:
				if v, ok := a.Int.IsConst(); ok {
					return float64(v)
				}
			}
		}
	}
	return def
}

func intsAttr(op *graph.Op, name string) []int {
	for _, a := range op.Attrs {
		if a.Name == name {
			var out []int
			for _, e := range a.Ints {
				v, _ := e.IsConst()
				out = append(out, int(v))
			}
			return out
		}
	}
	return nil
}

// matMul is the product of 2-D a and b, each maybe transposed.
func matMul(a, b Array, ta, tb bool) (Array, error) {
	if len(a.Shape) != 2 || len(b.Shape) != 2 {
		return Array{}, fmt.Errorf("fuzzdiff multiplies matrices only, not %v by %v", a.Shape, b.Shape)
	}
	m, k := a.Shape[0], a.Shape[1]
	at := func(i, p int) float64 { return a.Data[i*k+p] }
	if ta {
		m, k = k, m
		at = func(i, p int) float64 { return a.Data[p*m+i] }
	}
	k2, n := b.Shape[0], b.Shape[1]
	bt := func(p, j int) float64 { return b.Data[p*n+j] }
	if tb {
		k2, n = n, k2
		bt = func(p, j int) float64 { return b.Data[j*k2+p] }
	}
	if k != k2 {
		return Array{}, fmt.Errorf("fuzzdiff: inner sizes %d and %d", k, k2)
	}
	out := Array{Shape: []int{m, n}, Data: make([]float64, m*n)}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for p := 0; p < k; p++ {
				s += at(i, p) * bt(p, j)
			}
			out.Data[i*n+j] = s
		}
	}
	return out, nil
}

// gemm is alpha·A'·B' + beta·C, C broadcast to the product.
func gemm(op *graph.Op, in []Array) (Array, error) {
	alpha, beta := floatAttr(op, "alpha", 1), floatAttr(op, "beta", 1)
	p, err := matMul(in[0], in[1], floatAttr(op, "transA", 0) != 0, floatAttr(op, "transB", 0) != 0)
	if err != nil {
		return Array{}, err
	}
	for i := range p.Data {
		p.Data[i] *= alpha
	}
	if len(in) < 3 {
		return p, nil
	}
	return broadcast(p, in[2], func(a, c float64) float64 { return a + beta*c })
}

// broadcast applies f element by element under numpy's broadcasting.
func broadcast(a, b Array, f func(a, b float64) float64) (Array, error) {
	rank := max(len(a.Shape), len(b.Shape))
	shape := make([]int, rank)
	pad := func(s []int) []int { // leading 1s to the common rank
		out := make([]int, rank-len(s), rank)
		for i := range out {
			out[i] = 1
		}
		return append(out, s...)
	}
	as, bs := pad(a.Shape), pad(b.Shape)
	for i := range shape {
		switch {
		case as[i] == bs[i] || bs[i] == 1:
			shape[i] = as[i]
		case as[i] == 1:
			shape[i] = bs[i]
		default:
			return Array{}, fmt.Errorf("fuzzdiff: %v and %v do not broadcast", a.Shape, b.Shape)
		}
	}
	out := Array{Shape: shape}
	out.Data = make([]float64, out.size())
	idx := make([]int, rank)
	for i := range out.Data {
		rest := i
		for d := rank - 1; d >= 0; d-- {
			idx[d] = rest % shape[d]
			rest /= shape[d]
		}
		ia, ib := 0, 0
		for d := 0; d < rank; d++ {
			ia = ia*as[d] + idx[d]%as[d]
			ib = ib*bs[d] + idx[d]%bs[d]
		}
		out.Data[i] = f(a.Data[ia], b.Data[ib])
	}
	return out, nil
}

// conv is a 2-D NCHW convolution with ONNX's pads, strides, dilations and
// groups, plus the bias.
func conv(op *graph.Op, in []Array) (Array, error) {
	x, w := in[0], in[1]
	if len(x.Shape) != 4 || len(w.Shape) != 4 {
		return Array{}, fmt.Errorf("fuzzdiff convolves 2-D images only")
	}
	strides, pads, dil := intsAttr(op, "strides"), intsAttr(op, "pads"), intsAttr(op, "dilations")
	group := int(floatAttr(op, "group", 1))
	n, c, h, wd := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	co, cg, kh, kw := w.Shape[0], w.Shape[1], w.Shape[2], w.Shape[3]
	if cg*group != c || co%group != 0 {
		return Array{}, fmt.Errorf("fuzzdiff: %d channels, weight %v, group %d", c, w.Shape, group)
	}
	oh := (h+pads[0]+pads[2]-dil[0]*(kh-1)-1)/strides[0] + 1
	ow := (wd+pads[1]+pads[3]-dil[1]*(kw-1)-1)/strides[1] + 1
	out := Array{Shape: []int{n, co, oh, ow}, Data: make([]float64, n*co*oh*ow)}
	perGroup := co / group
	for b := 0; b < n; b++ {
		for o := 0; o < co; o++ {
			g := o / perGroup
			for i := 0; i < oh; i++ {
				for j := 0; j < ow; j++ {
					s := 0.0
					if len(in) > 2 {
						s = in[2].Data[o]
					}
					for ci := 0; ci < cg; ci++ {
						for u := 0; u < kh; u++ {
							y := i*strides[0] - pads[0] + u*dil[0]
							if y < 0 || y >= h {
								continue
							}
							for v := 0; v < kw; v++ {
								xx := j*strides[1] - pads[1] + v*dil[1]
								if xx < 0 || xx >= wd {
									continue
								}
								s += x.Data[((b*c+g*cg+ci)*h+y)*wd+xx] * w.Data[((o*cg+ci)*kh+u)*kw+v]
							}
						}
					}
					out.Data[((b*co+o)*oh+i)*ow+j] = s
				}
			}
		}
	}
	return out, nil
}
