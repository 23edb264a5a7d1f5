package onnx

import (
	"fmt"

	"github.com/wrapgen/wrapgen/graph"
)

// onOperands runs rule on the inputs at positions pick (a MatMul or Conv
// shape rule on a quantized op's data operands) and keeps its attributes
// and output shape, with the output's dtype; every input of the node stays
// a kernel input in its own order.
func onOperands(inner rule, pick []int, dtype func(c *nodeCtx) (graph.DType, error)) rule {
	return func(c *nodeCtx) error {
		sub := *c
		sub.ins = nil
		for _, i := range pick {
			sub.ins = append(sub.ins, c.input(i))
		}
		sub.outs = make([]*value, len(c.outs))
		sub.attrInputs = map[int]bool{}
		err := inner(&sub)
		if c.attrErr == nil {
			c.attrErr = sub.attrErr
		}
		if err != nil {
			return err
		}
		if len(sub.attrInputs) > 0 {
			return fmt.Errorf("internal: %s's operands taken as attributes", c.n.opType)
		}
		d, err := dtype(c)
		if err != nil {
			return err
		}
		c.attrs = sub.attrs
		c.setOut(0, d, sub.outs[0].shape)
		return nil
	}
}

// int32Out is the dtype of MatMulInteger's and ConvInteger's output.
func int32Out(c *nodeCtx) (graph.DType, error) {
	x := c.input(0)
	if x.dtype != "u8" && x.dtype != "i8" {
		return "", unsup("%s of %s", c.n.opType, x.dtype)
	}
	return "i32", nil
}

// zeroPointOut is the dtype of a QLinear op's output: its zero point's,
// input index i.
func zeroPointOut(i int) func(c *nodeCtx) (graph.DType, error) {
	return func(c *nodeCtx) (graph.DType, error) {
		zp := c.input(i)
		if zp.dtype != "u8" && zp.dtype != "i8" {
			return "", unsup("%s to %s", c.n.opType, zp.dtype)
		}
		return zp.dtype, nil
	}
}
