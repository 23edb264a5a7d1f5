package wgref

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Integer matrix products and convolutions of quantized (u8/i8) operands:
// exact int32 accumulation of (x - x_zero_point) * (w - w_zero_point);
// the QLinear forms requantize the sum to the output's scale and zero
// point.

func init() {
	register("MatMulInteger", func(c *wgrt.Call) error { return quantMatMul(c, 0, 1, 2, 3, -1) })
	register("QLinearMatMul", func(c *wgrt.Call) error { return quantMatMul(c, 0, 3, 2, 5, 1) })
	register("ConvInteger", func(c *wgrt.Call) error { return quantConv(c, 0, 1, 2, 3, -1) })
	register("QLinearConv", func(c *wgrt.Call) error { return quantConv(c, 0, 3, 2, 5, 1) })
}

// input is c's input i, or nil when the call has fewer (an omitted
// optional input at the end).
func input(c *wgrt.Call, i int) *wgrt.Tensor {
	if i < 0 || i >= len(c.Inputs) {
		return nil
	}
	return &c.Inputs[i]
}

// zeroPoint is a zero point's element k (per row, per column or per output
// channel), or its only element; 0 without one.
func zeroPoint(z *wgrt.Tensor, k int) int64 {
	if z == nil || z.NumElements() == 0 {
		return 0
	}
	if len(z.Shape) == 0 || z.NumElements() == 1 {
		return loadI(*z, 0)
	}
	return loadI(*z, k*z.Strides[0])
}

// requantizer scales an int32 sum to a QLinear op's output: the inputs'
// scales' product over the output's, rounded half to even, plus the output
// zero point, saturated. scaleA is the first operand's scale input; the
// second's is scaleA+3, the output's scaleA+5 and its zero point scaleA+6.
type requantizer struct {
	on                 bool
	aScale, yScale, lo float64
	hi                 float64
	bScale, yZero      *wgrt.Tensor
}

func newRequantizer(c *wgrt.Call, scaleA int, out wgrt.Tensor) (requantizer, error) {
	if scaleA < 0 {
		return requantizer{}, nil
	}
	if len(c.Inputs) < scaleA+7 {
		return requantizer{}, fmt.Errorf("%s: %d inputs", c.Kernel, len(c.Inputs))
	}
	r := requantizer{on: true, aScale: loadF(c.Inputs[scaleA], 0), bScale: &c.Inputs[scaleA+3],
		yScale: loadF(c.Inputs[scaleA+5], 0), yZero: &c.Inputs[scaleA+6], lo: 0, hi: 255}
	if out.DType == wgrt.I8 {
		r.lo, r.hi = -128, 127
	}
	return r, nil
}

// apply is the output value of sum for output channel (or column) k.
func (r requantizer) apply(sum int64, k int) float64 {
	if !r.on {
		return float64(sum)
	}
	bs := loadF(*r.bScale, 0)
	if r.bScale.NumElements() > 1 {
		bs = loadF(*r.bScale, k*r.bScale.Strides[0])
	}
	// As ONNX's reference: the product in float32.
	v := float32(sum) * float32(r.aScale) * float32(bs) / float32(r.yScale)
	q := math.RoundToEven(float64(v)) + float64(zeroPoint(r.yZero, 0))
	return math.Max(r.lo, math.Min(r.hi, q))
}

func store(out wgrt.Tensor, off int, v float64) {
	storeI(out, off, int64(v))
}

// quantMatMul: out[..., i, j] = sum_k (a[..., i, k] - a_zp[i]) * (b[..., k, j] - b_zp[j]),
// batch dimensions broadcast.
func quantMatMul(c *wgrt.Call, ai, bi, azi, bzi, scaleA int) error {
	if len(c.Outputs) != 1 || len(c.Inputs) <= bi {
		return fmt.Errorf("%s: want A, B and an output", c.Kernel)
	}
	out, a, b := c.Outputs[0], c.Inputs[ai], c.Inputs[bi]
	ra, rb, ro := len(a.Shape), len(b.Shape), len(out.Shape)
	if ra < 2 || rb < 2 || ro != max(ra, rb) || ro > maxRank {
		return fmt.Errorf("%s: operands %v and %v: want matrices (rank 2 or more)", c.Kernel, a.Shape, b.Shape)
	}
	az, bz := input(c, azi), input(c, bzi)
	rq, err := newRequantizer(c, scaleA, out)
	if err != nil {
		return err
	}
	m, k, n := a.Shape[ra-2], a.Shape[ra-1], b.Shape[rb-1]
	var aStr, bStr [maxRank]int
	as := broadcastStrides(&aStr, out.Shape[:ro-2], wgrt.Tensor{Shape: a.Shape[:ra-2], Strides: a.Strides[:ra-2]})
	bs := broadcastStrides(&bStr, out.Shape[:ro-2], wgrt.Tensor{Shape: b.Shape[:rb-2], Strides: b.Strides[:rb-2]})
	for o := range indices(out.Shape[:ro-2]) {
		ab, bb, ob := offsetOf(o, as), offsetOf(o, bs), offsetOf(o, out.Strides[:ro-2])
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				sum := int64(0)
				for p := 0; p < k; p++ {
					x := loadI(a, ab+i*a.Strides[ra-2]+p*a.Strides[ra-1]) - zeroPoint(az, i)
					y := loadI(b, bb+p*b.Strides[rb-2]+j*b.Strides[rb-1]) - zeroPoint(bz, j)
					sum += x * y
				}
				store(out, ob+i*out.Strides[ro-2]+j*out.Strides[ro-1], rq.apply(sum, j))
			}
		}
	}
	return nil
}

// quantConv is Conv on quantized operands: taps outside the input are the
// input's zero point (they add nothing); QLinearConv adds its int32 bias
// (input 8) before requantizing.
func quantConv(c *wgrt.Call, xi, wi, xzi, wzi, scaleA int) error {
	if len(c.Outputs) != 1 || len(c.Inputs) <= wi {
		return fmt.Errorf("%s: want x, w and an output", c.Kernel)
	}
	out, x, w := c.Outputs[0], c.Inputs[xi], c.Inputs[wi]
	r := len(x.Shape) - 2
	if r < 1 || len(w.Shape) != r+2 || len(out.Shape) != r+2 {
		return fmt.Errorf("%s: input %v, weight %v and output %v do not fit", c.Kernel, x.Shape, w.Shape, out.Shape)
	}
	ca, err := readConvAttrs(c, r)
	if err != nil {
		return err
	}
	xz, wz := input(c, xzi), input(c, wzi)
	rq, err := newRequantizer(c, scaleA, out)
	if err != nil {
		return err
	}
	var bias *wgrt.Tensor
	if scaleA >= 0 {
		bias = input(c, 8)
	}
	cg, mg := x.Shape[1]/ca.group, w.Shape[0]/ca.group
	var posBuf [maxRank]int
	pos := posBuf[:r]
	for o := range indices(out.Shape) {
		bn, oc := o[0], o[1]
		gi := oc / mg
		sum := int64(0)
		if bias != nil {
			sum = loadI(*bias, oc*bias.Strides[0])
		}
		for ci := 0; ci < cg; ci++ {
		taps:
			for k := range indices(ca.kernel) {
				for d := 0; d < r; d++ {
					pos[d] = o[2+d]*ca.strides[d] - ca.pads[d] + k[d]*ca.dilations[d]
					if pos[d] < 0 || pos[d] >= x.Shape[2+d] {
						continue taps
					}
				}
				xv := loadI(x, bn*x.Strides[0]+(gi*cg+ci)*x.Strides[1]+offsetOf(pos, x.Strides[2:])) - zeroPoint(xz, 0)
				wv := loadI(w, oc*w.Strides[0]+ci*w.Strides[1]+offsetOf(k, w.Strides[2:])) - zeroPoint(wz, oc)
				sum += xv * wv
			}
		}
		store(out, offsetOf(o, out.Strides), rq.apply(sum, oc))
	}
	return nil
}
