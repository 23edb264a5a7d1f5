package wgref

import (
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The common case of QuantizeLinear and DequantizeLinear, as quantization
// toolkits export them around every convolution: float32 and int8 or uint8,
// both contiguous, one scale (and zero point) for the tensor or one per
// index along an axis. The tensor is walked as [outer][axis][inner] blocks
// that share a scale, in tight loops without per-element index arithmetic;
// the results are those of the general loops (quantizeLinear,
// dequantizeLinear), which the tests check.

// quantBlocks is x's shape seen as [outer][n][inner] around the axis the
// scales run along (n = 1 when one scale serves the tensor).
func quantBlocks(x wgrt.Tensor, scale wgrt.Tensor, axis int) (outer, n, inner int) {
	total := x.NumElements()
	if len(scale.Shape) != 1 || scale.Shape[0] == 1 {
		return 1, 1, total
	}
	outer, inner = 1, 1
	for d := 0; d < axis; d++ {
		outer *= x.Shape[d]
	}
	for d := axis + 1; d < len(x.Shape); d++ {
		inner *= x.Shape[d]
	}
	return outer, x.Shape[axis], inner
}

// quantOperandsFast reports whether the call's scale is float32 and its
// zero point (if any) has the quantized dtype q, both contiguous 1-D or
// scalar.
func quantOperandsFast(c *wgrt.Call, q wgrt.DType) bool {
	s := c.Inputs[1]
	if s.DType != wgrt.F32 || len(s.Shape) > 1 || !s.Contiguous() {
		return false
	}
	if len(c.Inputs) > 2 {
		z := c.Inputs[2]
		if z.DType != q || len(z.Shape) != len(s.Shape) || !z.Contiguous() || (len(z.Shape) == 1 && z.Shape[0] != s.Shape[0]) {
			return false
		}
	}
	return true
}

// zeroPointAt is the zero point of block i (0 without one).
func zeroPointAt(c *wgrt.Call, i int) int32 {
	if len(c.Inputs) < 3 {
		return 0
	}
	z := c.Inputs[2]
	if len(z.Shape) == 0 || z.Shape[0] == 1 {
		i = 0
	}
	if z.DType == wgrt.I8 {
		return int32(int8(z.Data[i]))
	}
	return int32(z.Data[i])
}

// quantizeFast is quantizeLinear's contiguous float32 case; false when the
// call is not one.
func quantizeFast(c *wgrt.Call, axis int) bool {
	out, x := c.Outputs[0], c.Inputs[0]
	if x.DType != wgrt.F32 || (out.DType != wgrt.I8 && out.DType != wgrt.U8) || !x.Contiguous() || !out.Contiguous() || !quantOperandsFast(c, out.DType) {
		return false
	}
	lo, hi := float32(0), float32(255)
	if out.DType == wgrt.I8 {
		lo, hi = -128, 127
	}
	xs, ys, scales := elems[float32](x), out.Data, elems[float32](c.Inputs[1])
	outer, n, inner := quantBlocks(x, c.Inputs[1], axis)
	at := 0
	for o := 0; o < outer; o++ {
		for i := 0; i < n; i++ {
			scale, zp := scales[min(i, len(scales)-1)], float32(zeroPointAt(c, i))
			src, dst := xs[at:at+inner], ys[at:at+inner]
			for e, v := range src {
				// As ONNX: the quotient in float32, rounded half to even.
				q := float32(math.RoundToEven(float64(v/scale))) + zp
				dst[e] = byte(int32(max(lo, min(hi, q))))
			}
			at += inner
		}
	}
	return true
}

// dequantizeFast is dequantizeLinear's contiguous float32 case; false when
// the call is not one.
func dequantizeFast(c *wgrt.Call, axis int) bool {
	out, x := c.Outputs[0], c.Inputs[0]
	if out.DType != wgrt.F32 || (x.DType != wgrt.I8 && x.DType != wgrt.U8) || !x.Contiguous() || !out.Contiguous() || !quantOperandsFast(c, x.DType) {
		return false
	}
	xs, ys, scales := x.Data, elems[float32](out), elems[float32](c.Inputs[1])
	signed := x.DType == wgrt.I8
	outer, n, inner := quantBlocks(x, c.Inputs[1], axis)
	at := 0
	for o := 0; o < outer; o++ {
		for i := 0; i < n; i++ {
			scale, zp := scales[min(i, len(scales)-1)], zeroPointAt(c, i)
			src, dst := xs[at:at+inner], ys[at:at+inner]
			if signed {
				for e, v := range src {
					dst[e] = float32(int32(int8(v))-zp) * scale
				}
			} else {
				for e, v := range src {
					dst[e] = float32(int32(v)-zp) * scale
				}
			}
			at += inner
		}
	}
	return true
}
