package wgref

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// quantCase is a quantization of a [2, c, 3, 5] tensor along axis (per
// tensor when perAxis is false), to int8 or uint8.
type quantCase struct {
	name     string
	q        wgrt.DType
	perAxis  bool
	axis     int
	withZero bool
}

var quantCases = []quantCase{
	{"int8 per tensor", wgrt.I8, false, 1, true},
	{"uint8 per tensor", wgrt.U8, false, 1, true},
	{"int8 per tensor, no zero point", wgrt.I8, false, 1, false},
	{"int8 per channel", wgrt.I8, true, 1, true},
	{"uint8 per axis 0", wgrt.U8, true, 0, true},
	{"int8 along the last axis", wgrt.I8, true, 3, true},
	{"uint8 along axis 2, no zero point", wgrt.U8, true, 2, false},
}

// quantOperands makes the scale and zero point of a case for x's shape:
// scales around 0.05, zero points inside the type's range.
func quantOperands(rng *rand.Rand, qc quantCase, shape []int) (scale, zero wgrt.Tensor, scales []float32, zeros []int32) {
	n := 1
	if qc.perAxis {
		n = shape[qc.axis]
	}
	scales, zeros = make([]float32, n), make([]int32, n)
	zb := make([]byte, n)
	for i := range scales {
		scales[i] = 0.02 + 0.06*rng.Float32()
		if qc.withZero {
			zeros[i] = int32(rng.Intn(41)) - 20
			if qc.q == wgrt.U8 {
				zeros[i] += 128
			}
		}
		zb[i] = byte(zeros[i])
	}
	if qc.perAxis {
		return wgrt.FromFloat32s(scales, n), wgrt.FromBytes(qc.q, zb, n), scales, zeros
	}
	return wgrt.FromFloat32s(scales), wgrt.FromBytes(qc.q, zb), scales, zeros
}

// blockOf is the index along the case's axis of flat element e.
func blockOf(qc quantCase, shape []int, e int) int {
	if !qc.perAxis {
		return 0
	}
	inner := 1
	for d := qc.axis + 1; d < len(shape); d++ {
		inner *= shape[d]
	}
	return e / inner % shape[qc.axis]
}

func TestQuantizeLinearFloat32MatchesTheDefinition(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	shape := []int{2, 7, 3, 5}
	for _, qc := range quantCases {
		t.Run(qc.name, func(t *testing.T) {
			scale, zero, scales, zeros := quantOperands(rng, qc, shape)
			x := make([]float32, 2*7*3*5)
			for e := range x {
				s := scales[blockOf(qc, shape, e)]
				switch e % 5 {
				case 0: // exactly half way between two steps: ties go to even
					x[e] = (float32(rng.Intn(40)-20) + 0.5) * s
				case 1: // far out of range: saturates
					x[e] = float32(rng.NormFloat64() * 1e3)
				default:
					x[e] = float32(rng.NormFloat64() * 3)
				}
			}
			out := wgrt.New(qc.q, shape...)
			inputs := []wgrt.Tensor{wgrt.FromFloat32s(x, shape...), scale}
			if qc.withZero {
				inputs = append(inputs, zero)
			}
			callOK(t, &wgrt.Call{Kernel: "QuantizeLinear", Inputs: inputs, Outputs: []wgrt.Tensor{out}, Attrs: []wgrt.Attr{intAttr("axis", qc.axis)}})
			lo, hi := -128.0, 127.0
			if qc.q == wgrt.U8 {
				lo, hi = 0, 255
			}
			for e, v := range x {
				b := blockOf(qc, shape, e)
				want := math.Max(lo, math.Min(hi, math.RoundToEven(float64(v/scales[b]))+float64(zeros[b])))
				got := float64(out.Data[e])
				if qc.q == wgrt.I8 {
					got = float64(int8(out.Data[e]))
				}
				require.Equal(t, want, got, "element %d: %g / %g + %d", e, v, scales[b], zeros[b])
			}
		})
	}
}

func TestDequantizeLinearFloat32MatchesTheDefinition(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	shape := []int{2, 7, 3, 5}
	for _, qc := range quantCases {
		t.Run(qc.name, func(t *testing.T) {
			scale, zero, scales, zeros := quantOperands(rng, qc, shape)
			x := make([]byte, 2*7*3*5)
			rng.Read(x)
			out := wgrt.New(wgrt.F32, shape...)
			inputs := []wgrt.Tensor{wgrt.FromBytes(qc.q, x, shape...), scale}
			if qc.withZero {
				inputs = append(inputs, zero)
			}
			callOK(t, &wgrt.Call{Kernel: "DequantizeLinear", Inputs: inputs, Outputs: []wgrt.Tensor{out}, Attrs: []wgrt.Attr{intAttr("axis", qc.axis)}})
			for e, v := range x {
				b := blockOf(qc, shape, e)
				q := float64(v)
				if qc.q == wgrt.I8 {
					q = float64(int8(v))
				}
				want := float32((q - float64(zeros[b])) * float64(scales[b]))
				require.Equal(t, want, out.Float32s()[e], "element %d", e)
			}
		})
	}
}
