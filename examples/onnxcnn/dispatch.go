package onnxcnn

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/examples/onnxcnn/wgrt"
)

// Dispatch serves ONNX kernels by name through a generated wrapper's
// KernelsFunc, for graphs whose kernel signatures differ from the CNN's
// (Conv without bias, Gemm without C…): Conv, Gemm, MatMul, Relu, Add,
// MaxPool, Softmax, Concat, Reshape and BatchNormalization over float32.
func Dispatch(c *wgrt.Call) error {
	k := OpKernels{}
	out := c.Outputs[0]
	switch c.Kernel {
	case "Conv":
		b := wgrt.New(wgrt.F32, out.Shape[1])
		if len(c.Inputs) > 2 {
			b = c.Inputs[2]
		}
		return k.Conv(out, c.Inputs[0], c.Inputs[1], b, ints(c, "kernel_shape"), ints(c, "strides"), ints(c, "pads"), ints(c, "dilations"), attr(c, "group").(int))
	case "Gemm":
		cv := wgrt.New(wgrt.F32, 1)
		beta := attr(c, "beta").(float64)
		if len(c.Inputs) > 2 {
			cv = broadcastTo(c.Inputs[2], out.Shape)
		} else {
			beta = 0
		}
		return k.Gemm(out, c.Inputs[0], c.Inputs[1], cv, attr(c, "alpha").(float64), beta, attr(c, "transA").(int), attr(c, "transB").(int))
	case "MatMul":
		return matmul(out, c.Inputs[0], c.Inputs[1])
	case "Relu":
		return k.Relu(out, c.Inputs[0])
	case "Add":
		a, b := broadcastTo(c.Inputs[0], out.Shape).Float32s(), broadcastTo(c.Inputs[1], out.Shape).Float32s()
		o := out.Float32s()
		for i := range out.NumElements() {
			o[i] = a[i] + b[i]
		}
		return nil
	case "MaxPool":
		if attr(c, "ceil_mode").(int) != 0 || len(c.Outputs) > 1 {
			return fmt.Errorf("MaxPool: ceil mode and indices not implemented")
		}
		return k.MaxPool(out, c.Inputs[0], ints(c, "kernel_shape"), ints(c, "strides"), ints(c, "pads"), ints(c, "dilations"), 0, 0)
	case "Softmax":
		return softmaxAxis(out, c.Inputs[0], attr(c, "axis").(int))
	case "Concat":
		return concat(out, c.Inputs, attr(c, "axis").(int))
	case "Reshape":
		copy(out.Data, c.Inputs[0].Data)
		return nil
	case "BatchNormalization":
		return batchNorm(out, c.Inputs, attr(c, "epsilon").(float64))
	}
	return fmt.Errorf("kernel %s not implemented by the example", c.Kernel)
}

func attr(c *wgrt.Call, name string) any {
	for _, a := range c.Attrs {
		if a.Name == name {
			return a.Value()
		}
	}
	panic("onnxcnn: kernel " + c.Kernel + " has no attribute " + name)
}

func ints(c *wgrt.Call, name string) []int { return attr(c, name).([]int) }

// broadcastTo copies t broadcast (numpy rules) to shape.
func broadcastTo(t wgrt.Tensor, shape []int) wgrt.Tensor {
	out := wgrt.New(wgrt.F32, shape...)
	o, src := out.Float32s(), t.Float32s()
	for i := range out.NumElements() {
		idx, in, stride := i, 0, 1
		for d := len(shape) - 1; d >= 0; d-- {
			pos := idx % shape[d]
			idx /= shape[d]
			j := d - (len(shape) - len(t.Shape))
			if j < 0 {
				break
			}
			if t.Shape[j] != 1 {
				in += pos * stride
			}
			stride *= t.Shape[j]
		}
		o[i] = src[in]
	}
	return out
}

func matmul(out, a, b wgrt.Tensor) error {
	if len(a.Shape) != len(b.Shape) || len(a.Shape) < 2 {
		return fmt.Errorf("MatMul: ranks %d and %d not implemented", len(a.Shape), len(b.Shape))
	}
	r := len(a.Shape)
	m, k, n := a.Shape[r-2], a.Shape[r-1], b.Shape[r-1]
	batch := out.NumElements() / (m * n)
	o, as, bs := out.Float32s(), a.Float32s(), b.Float32s()
	for p := range batch {
		for i := range m {
			for j := range n {
				var sum float32
				for q := range k {
					sum += as[p*m*k+i*k+q] * bs[p*k*n+q*n+j]
				}
				o[p*m*n+i*n+j] = sum
			}
		}
	}
	return nil
}

func softmaxAxis(out, x wgrt.Tensor, axis int) error {
	outer, inner := 1, 1
	for d, s := range x.Shape {
		if d < axis {
			outer *= s
		} else if d > axis {
			inner *= s
		}
	}
	n := x.Shape[axis]
	o, xs := out.Float32s(), x.Float32s()
	for p := range outer {
		for q := range inner {
			at := func(i int) int { return (p*n+i)*inner + q }
			mx := xs[at(0)]
			for i := range n {
				mx = max(mx, xs[at(i)])
			}
			var sum float64
			for i := range n {
				sum += math.Exp(float64(xs[at(i)] - mx))
			}
			for i := range n {
				o[at(i)] = float32(math.Exp(float64(xs[at(i)]-mx)) / sum)
			}
		}
	}
	return nil
}

func concat(out wgrt.Tensor, ins []wgrt.Tensor, axis int) error {
	outer := 1
	for _, s := range out.Shape[:axis] {
		outer *= s
	}
	o := out.Float32s()
	pos := 0
	for p := range outer {
		for _, t := range ins {
			block := t.NumElements() / outer
			pos += copy(o[pos:], t.Float32s()[p*block:(p+1)*block])
		}
	}
	return nil
}

func batchNorm(out wgrt.Tensor, ins []wgrt.Tensor, eps float64) error {
	x, s, b, mean, v := ins[0].Float32s(), ins[1].Float32s(), ins[2].Float32s(), ins[3].Float32s(), ins[4].Float32s()
	c := ins[0].Shape[1]
	inner := ins[0].NumElements() / (ins[0].Shape[0] * c)
	o := out.Float32s()
	for i := range ins[0].NumElements() {
		ch := i / inner % c
		o[i] = float32(float64(s[ch])*(float64(x[i])-float64(mean[ch]))/math.Sqrt(float64(v[ch])+eps) + float64(b[ch]))
	}
	return nil
}
