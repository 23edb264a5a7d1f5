package onnx

import (
	"fmt"
	"math"
)

// windowOp is HannWindow, HammingWindow and BlackmanWindow: a size known at
// import time gives the whole window, computed then (no kernel call):
// a0 - a1 cos(2πn/N) + a2 cos(4πn/N), N the size (periodic) or size - 1.
func windowOp(a0, a1, a2 float64) rule {
	return func(c *nodeCtx) error {
		sizes, err := c.constInts(0, "size")
		if err != nil {
			return err
		}
		if len(sizes) != 1 || sizes[0] < 0 || sizes[0] > maxKnownElems {
			return fmt.Errorf("size %v must be one value in [0, %d]", sizes, maxKnownElems)
		}
		d, err := dtypeOf(c.attrInt("output_datatype", 1))
		if err != nil {
			return unsup("%v", err)
		}
		if !isFloatDType(d) {
			return unsup("a window of dtype %s", d)
		}
		n := sizes[0]
		period := float64(n)
		if c.attrInt("periodic", 1) == 0 {
			period = float64(n - 1)
		}
		vals := make([]float64, n)
		for k := range vals {
			x := 2 * math.Pi * float64(k) / period
			vals[k] = a0 - a1*math.Cos(x) + a2*math.Cos(2*x)
			if d == "f32" {
				vals[k] = float64(float32(vals[k]))
			}
		}
		c.setKnown(0, d, []int64{n}, nil, vals)
		return nil
	}
}
