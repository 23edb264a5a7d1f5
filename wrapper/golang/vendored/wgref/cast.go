package wgref

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func init() {
	register("Cast", cast)
	register("CastLike", cast) // the importer gives the output the second input's dtype
}

// cast converts every element to the output's dtype: floats rounded to
// nearest even, floats to integers truncated toward zero, integers
// wrapped to the width, anything to bool as != 0.
func cast(c *wgrt.Call) error {
	if err := need(c, 1, 1, 2); err != nil {
		return err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	if !sameShape(out.Shape, x.Shape) {
		return fmt.Errorf("%s: output shape %v differs from input shape %v", c.Kernel, out.Shape, x.Shape)
	}
	from, to := familyOf(x.DType), familyOf(out.DType)
	if from == famOther {
		return unsupported(c, x.DType)
	}
	if to == famOther {
		return unsupported(c, out.DType)
	}
	if x.DType == out.DType {
		copyStrided(out.Shape, out, out.Strides, 0, x, x.Strides, 0, threadsOf(c))
		return nil
	}
	if castFast(out, x) {
		return nil
	}
	eachRow(out.Shape, [][]int{out.Strides, x.Strides}, func(off [maxOperands]int, n int, step [maxOperands]int) {
		for k := 0; k < n; k++ {
			o, i := off[0]+k*step[0], off[1]+k*step[1]
			switch {
			case out.DType == wgrt.BF16 && from == famFloat:
				// Truncated, as ONNX's reference (and so its node tests)
				// converts to bfloat16 at the opsets the importer reads.
				f := float32(loadF(x, i))
				binary.LittleEndian.PutUint16(out.Data[2*o:], uint16(math.Float32bits(f)>>16))
			case to == famFloat || to == famBool && from == famFloat:
				storeF(out, o, loadF(x, i))
			case from == famFloat:
				v := loadF(x, i)
				if to == famUint && v < 0 {
					storeI(out, o, floatToInt(v))
				} else if to == famUint {
					storeU(out, o, floatToUint(v))
				} else {
					storeI(out, o, floatToInt(v))
				}
			case from == famUint:
				storeU(out, o, loadU(x, i))
			default:
				storeI(out, o, loadI(x, i))
			}
		}
	})
	return nil
}

// castFast converts the common pairs whose Go conversion is the cast's
// rule (integers to floats rounded to nearest, floats to wider or narrower
// floats, integers wrapped to a narrower width, bools as 0 and 1, anything
// to bool as != 0) with no call per element; false for the others.
func castFast(out, x wgrt.Tensor) bool {
	switch [2]wgrt.DType{x.DType, out.DType} {
	case [2]wgrt.DType{wgrt.I64, wgrt.F32}:
		castRows[int64, float32](out, x)
	case [2]wgrt.DType{wgrt.I32, wgrt.F32}:
		castRows[int32, float32](out, x)
	case [2]wgrt.DType{wgrt.F32, wgrt.F64}:
		castRows[float32, float64](out, x)
	case [2]wgrt.DType{wgrt.F64, wgrt.F32}:
		castRows[float64, float32](out, x)
	case [2]wgrt.DType{wgrt.I64, wgrt.I32}:
		castRows[int64, int32](out, x)
	case [2]wgrt.DType{wgrt.I32, wgrt.I64}:
		castRows[int32, int64](out, x)
	case [2]wgrt.DType{wgrt.Bool, wgrt.F32}: // bool elements are 0 or 1
		castRows[uint8, float32](out, x)
	case [2]wgrt.DType{wgrt.Bool, wgrt.I64}:
		castRows[uint8, int64](out, x)
	case [2]wgrt.DType{wgrt.I64, wgrt.Bool}:
		castToBool[int64](out, x)
	case [2]wgrt.DType{wgrt.F32, wgrt.Bool}:
		castToBool[float32](out, x)
	default:
		return false
	}
	return true
}

type castNumber interface {
	uint8 | int32 | int64 | float32 | float64
}

// castRows writes each element of x converted to D into out, over rows
// merged where both layouts allow.
func castRows[S, D castNumber](out, x wgrt.Tensor) {
	xs, os := elems[S](x), elems[D](out)
	var it rowIter
	it.initPair(out, x)
	for it.next() {
		o, i := it.off[0], it.off[1]
		for k := 0; k < it.n; k++ {
			os[o] = D(xs[i])
			o, i = o+it.step[0], i+it.step[1]
		}
	}
}

// castToBool writes x != 0 into the bool out.
func castToBool[S castNumber](out, x wgrt.Tensor) {
	xs := elems[S](x)
	var it rowIter
	it.initPair(out, x)
	for it.next() {
		o, i := it.off[0], it.off[1]
		for k := 0; k < it.n; k++ {
			var v byte
			if xs[i] != 0 {
				v = 1
			}
			out.Data[o] = v
			o, i = o+it.step[0], i+it.step[1]
		}
	}
}
