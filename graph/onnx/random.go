package onnx

import (
	"fmt"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// randomOps are the operators that draw random numbers. Each becomes a
// kernel call, given attribute "seed" only when the node has one.
var randomOps = map[string]bool{
	"Bernoulli": true, "RandomUniform": true, "RandomUniformLike": true,
	"RandomNormal": true, "RandomNormalLike": true,
}

// unseededRandom reports whether c draws random numbers without a seed:
// fold must leave it to run time even when its inputs are known, or every
// run would repeat the one draw made at import time. A seeded draw is
// deterministic, so folding it is sound.
func unseededRandom(c *nodeCtx) bool {
	return randomOps[c.kernel] && c.typedAttr("seed", attrFloat) == nil
}

// bernoulli draws 1 with the probability input 0 holds, else 0, in
// attribute dtype's type or the input's.
func bernoulli(c *nodeCtx) error {
	p := c.input(0)
	if !isFloatDType(p.dtype) && p.dtype != "f16" {
		return unsup("probabilities of dtype %s (ONNX allows f16, f32 and f64)", p.dtype)
	}
	d, err := randomDType(c, p.dtype)
	if err != nil {
		return err
	}
	if !isIntDType(d) && !isFloatDType(d) && d != "f16" && d != "bf16" {
		return unsup("a Bernoulli output of dtype %s", d)
	}
	emitRandomSeed(c)
	c.setOut(0, d, p.shape)
	return nil
}

// randomLike is RandomUniformLike or RandomNormalLike: input 0 gives only
// the output's shape (and its dtype, without attribute dtype), so it is no
// kernel input; the kernel gets the distribution's two parameters.
func randomLike(p1, p2 unaryAttr) rule {
	return func(c *nodeCtx) error {
		x := c.input(0)
		c.attrInputs[0] = true
		return randomOut(c, x.dtype, x.shape, p1, p2)
	}
}

// randomShaped is RandomUniform or RandomNormal: the output's shape is
// attribute shape, its dtype attribute dtype (f32 by default).
func randomShaped(p1, p2 unaryAttr) rule {
	return func(c *nodeCtx) error {
		shape, ok := c.attrInts("shape")
		if !ok {
			return fmt.Errorf("attribute \"shape\" is required")
		}
		for k, s := range shape {
			if s < 0 {
				return fmt.Errorf("attribute \"shape\" has a negative size %d at dimension %d", s, k)
			}
		}
		return randomOut(c, "f32", consts(shape), p1, p2)
	}
}

// randomOut sets the output of a uniform or normal draw: dtype from
// attribute dtype, else def; the kernel gets the distribution's parameters
// and the seed.
func randomOut(c *nodeCtx, def graph.DType, shape []expr.Expr, p1, p2 unaryAttr) error {
	d, err := randomDType(c, def)
	if err != nil {
		return err
	}
	if !isFloatDType(d) && d != "f16" {
		return unsup("random values of dtype %s (ONNX allows f16, f32 and f64)", d)
	}
	c.emitFloat(p1.name, c.attrFloat(p1.name, p1.def))
	c.emitFloat(p2.name, c.attrFloat(p2.name, p2.def))
	emitRandomSeed(c)
	c.setOut(0, d, shape)
	return nil
}

// randomDType is the dtype attribute dtype names, or def without one.
func randomDType(c *nodeCtx, def graph.DType) (graph.DType, error) {
	a := c.typedAttr("dtype", attrInt)
	if a == nil {
		return def, nil
	}
	d, err := dtypeOf(a.i)
	if err != nil {
		return "", unsup("%v", err)
	}
	return d, nil
}

func emitRandomSeed(c *nodeCtx) {
	if a := c.typedAttr("seed", attrFloat); a != nil {
		c.emitFloat("seed", a.f)
	}
}
