package wgref

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/wgrt"
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
		copyStrided(out.Shape, out, out.Strides, 0, x, x.Strides, 0)
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
