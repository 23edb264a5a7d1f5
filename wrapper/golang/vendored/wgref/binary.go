package wgref

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Elementwise kernels of two or more inputs, with ONNX (numpy)
// broadcasting.

func init() {
	add := binaryOp{f: func(x, y float64) float64 { return x + y }, i: func(x, y int64) int64 { return x + y }, u: func(x, y uint64) uint64 { return x + y }, vec: binaryAdd}
	mul := binaryOp{f: func(x, y float64) float64 { return x * y }, i: func(x, y int64) int64 { return x * y }, u: func(x, y uint64) uint64 { return x * y }, vec: binaryMul}
	register("Add", nary(add, false))
	register("Sum", nary(add, false))
	register("Mean", nary(add, true))
	register("Mul", nary(mul, false))
	register("Sub", nary(binaryOp{f: func(x, y float64) float64 { return x - y }, i: func(x, y int64) int64 { return x - y }, u: func(x, y uint64) uint64 { return x - y }, vec: binarySub}, false))
	register("Div", nary(binaryOp{f: func(x, y float64) float64 { return x / y },
		// Integer division truncates toward zero (C's); by zero it gives 0
		// rather than crash the process.
		i: func(x, y int64) int64 {
			if y == 0 || (y == -1 && x == math.MinInt64) {
				return 0
			}
			return x / y
		},
		u: func(x, y uint64) uint64 {
			if y == 0 {
				return 0
			}
			return x / y
		}, vec: binaryDiv}, false))
	register("Max", nary(binaryOp{f: fmax, i: func(x, y int64) int64 { return max(x, y) }, u: func(x, y uint64) uint64 { return max(x, y) }, vec: binaryMax}, false))
	register("Min", nary(binaryOp{f: fmin, i: func(x, y int64) int64 { return min(x, y) }, u: func(x, y uint64) uint64 { return min(x, y) }, vec: binaryMin}, false))
	register("PRelu", nary(binaryOp{f: func(x, slope float64) float64 {
		if x < 0 {
			return slope * x
		}
		return x
	}, i: func(x, slope int64) int64 {
		if x < 0 {
			return slope * x
		}
		return x
	}, u: func(x, _ uint64) uint64 { return x }, vec: binaryPRelu}, false))
	register("Pow", pow)
	register("Mod", mod)
	register("BitwiseAnd", nary(binaryOp{i: func(x, y int64) int64 { return x & y }, u: func(x, y uint64) uint64 { return x & y }}, false))
	register("BitwiseOr", nary(binaryOp{i: func(x, y int64) int64 { return x | y }, u: func(x, y uint64) uint64 { return x | y }}, false))
	register("BitwiseXor", nary(binaryOp{i: func(x, y int64) int64 { return x ^ y }, u: func(x, y uint64) uint64 { return x ^ y }}, false))
	register("BitShift", bitShift)
	register("And", nary(binaryOp{i: func(x, y int64) int64 { return x & y }}, false))
	register("Or", nary(binaryOp{i: func(x, y int64) int64 { return x | y }}, false))
	register("Xor", nary(binaryOp{i: func(x, y int64) int64 { return x ^ y }}, false))
	register("Equal", func(c *wgrt.Call) error {
		return zipCompare(c, compareOp{func(x, y float64) bool { return x == y }, func(x, y int64) bool { return x == y }, func(x, y uint64) bool { return x == y }})
	})
	register("Less", func(c *wgrt.Call) error {
		return zipCompare(c, compareOp{func(x, y float64) bool { return x < y }, func(x, y int64) bool { return x < y }, func(x, y uint64) bool { return x < y }})
	})
	register("LessOrEqual", func(c *wgrt.Call) error {
		return zipCompare(c, compareOp{func(x, y float64) bool { return x <= y }, func(x, y int64) bool { return x <= y }, func(x, y uint64) bool { return x <= y }})
	})
	register("Greater", func(c *wgrt.Call) error {
		return zipCompare(c, compareOp{func(x, y float64) bool { return x > y }, func(x, y int64) bool { return x > y }, func(x, y uint64) bool { return x > y }})
	})
	register("GreaterOrEqual", func(c *wgrt.Call) error {
		return zipCompare(c, compareOp{func(x, y float64) bool { return x >= y }, func(x, y int64) bool { return x >= y }, func(x, y uint64) bool { return x >= y }})
	})
	register("Where", where)
}

// fmax and fmin propagate NaN, as numpy's maximum and ONNX's Max do.
func fmax(x, y float64) float64 {
	if x != x || y != y {
		return math.NaN()
	}
	return math.Max(x, y)
}

func fmin(x, y float64) float64 {
	if x != x || y != y {
		return math.NaN()
	}
	return math.Min(x, y)
}

// pow raises the first input to the second; they may differ in dtype (the
// output has the first's). Computed in float64, which holds every integer
// result the tests use exactly.
func pow(c *wgrt.Call) error {
	if err := need(c, 1, 2, 2); err != nil {
		return err
	}
	out, x, y := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	if familyOf(x.DType) == famOther || familyOf(y.DType) == famOther {
		return unsupported(c, x.DType)
	}
	if !broadcasts(x.Shape, y.Shape) {
		return fmt.Errorf("%s: shapes %v and %v do not broadcast", c.Kernel, x.Shape, y.Shape)
	}
	if x.DType == wgrt.F32 && out.DType == wgrt.F32 && y.NumElements() == 1 && len(y.Shape) <= len(out.Shape) && sameShape(x.Shape, out.Shape) {
		powF32(out, x, loadF(y, 0), threadsOf(c))
		return nil
	}
	strides := [][]int{out.Strides, broadcastStrides(new([maxRank]int), out.Shape, x), broadcastStrides(new([maxRank]int), out.Shape, y)}
	eachRow(out.Shape, strides, func(off [maxOperands]int, n int, step [maxOperands]int) {
		for k := 0; k < n; k++ {
			storeF(out, off[0]+k*step[0], math.Pow(loadF(x, off[1]+k*step[1]), loadF(y, off[2]+k*step[2])))
		}
	})
	return nil
}

// powF32 raises float32 x to a constant power (x² in a decomposed
// LayerNorm, say): squares as x·x, which is float64 Pow's result rounded,
// others through math.Pow in a plain loop.
func powF32(out, x wgrt.Tensor, e float64, threads int) {
	xs, os := elems[float32](x), elems[float32](out)
	if e == 2 {
		binaryMul.applyRows(out.Shape, os, out.Strides, xs, x.Strides, xs, x.Strides, threads)
		return
	}
	var it rowIter
	it.initPair(out, x)
	for it.next() {
		o, i := it.off[0], it.off[1]
		for k := 0; k < it.n; k++ {
			os[o] = float32(math.Pow(float64(xs[i]), e))
			o, i = o+it.step[0], i+it.step[1]
		}
	}
}

// mod is Python's % (the divisor's sign) with fmod=0, C's fmod (the
// dividend's sign) with fmod=1.
func mod(c *wgrt.Call) error {
	if err := need(c, 1, 2, 2); err != nil {
		return err
	}
	a := attrsOf(c)
	cmod := a.IntOr("fmod", 0) != 0
	if a.err != nil {
		return a.err
	}
	op := binaryOp{
		f: func(x, y float64) float64 {
			r := math.Mod(x, y)
			if !cmod && r != 0 && (r < 0) != (y < 0) {
				r += y
			}
			return r
		},
		i: func(x, y int64) int64 {
			if y == 0 {
				return 0
			}
			r := x % y
			if !cmod && r != 0 && (r < 0) != (y < 0) {
				r += y
			}
			return r
		},
		u: func(x, y uint64) uint64 {
			if y == 0 {
				return 0
			}
			return x % y
		},
	}
	return zip(c, c.Outputs[0], c.Inputs[0], c.Inputs[1], op)
}

func bitShift(c *wgrt.Call) error {
	if err := need(c, 1, 2, 2); err != nil {
		return err
	}
	a := attrsOf(c)
	left := a.String("direction") == "LEFT"
	if a.err != nil {
		return a.err
	}
	bits := uint64(c.Inputs[0].DType.Size() * 8)
	op := binaryOp{u: func(x, y uint64) uint64 {
		if y >= bits {
			return 0
		}
		if left {
			return x << y
		}
		return x >> y
	}}
	return zip(c, c.Outputs[0], c.Inputs[0], c.Inputs[1], op)
}

// where picks x where the condition holds, else y, with broadcasting.
func where(c *wgrt.Call) error {
	if err := need(c, 1, 3, 3); err != nil {
		return err
	}
	out, cond, x, y := c.Outputs[0], c.Inputs[0], c.Inputs[1], c.Inputs[2]
	if cond.DType != wgrt.Bool || x.DType != y.DType || out.DType != x.DType {
		return fmt.Errorf("%s: want a bool condition and two values of the output's dtype, got %s, %s, %s -> %s", c.Kernel, cond.DType, x.DType, y.DType, out.DType)
	}
	if !broadcasts(cond.Shape, x.Shape) || !broadcasts(cond.Shape, y.Shape) || !broadcasts(x.Shape, y.Shape) {
		return fmt.Errorf("%s: shapes %v, %v and %v do not broadcast", c.Kernel, cond.Shape, x.Shape, y.Shape)
	}
	var sc, sx, sy [maxRank]int
	broadcastStrides(&sc, out.Shape, cond)
	broadcastStrides(&sx, out.Shape, x)
	broadcastStrides(&sy, out.Shape, y)
	switch out.DType.Size() {
	case 1:
		whereRows[uint8](out, cond, x, y, &sc, &sx, &sy)
	case 2:
		whereRows[uint16](out, cond, x, y, &sc, &sx, &sy)
	case 4:
		whereRows[uint32](out, cond, x, y, &sc, &sx, &sy)
	case 8:
		whereRows[uint64](out, cond, x, y, &sc, &sx, &sy)
	default: // wider elements (complex) byte by byte
		size := out.DType.Size()
		eachRow(out.Shape, [][]int{out.Strides, sc[:len(out.Shape)], sx[:len(out.Shape)], sy[:len(out.Shape)]}, func(off [maxOperands]int, n int, step [maxOperands]int) {
			for k := 0; k < n; k++ {
				src, so := y, off[3]+k*step[3]
				if cond.Data[off[1]+k*step[1]] != 0 {
					src, so = x, off[2]+k*step[2]
				}
				o := off[0] + k*step[0]
				copy(out.Data[o*size:o*size+size], src.Data[so*size:so*size+size])
			}
		})
	}
	return nil
}

// whereRows is where for elements of type E, over rows merged where the
// four operands allow.
func whereRows[E uint8 | uint16 | uint32 | uint64](out, cond, x, y wgrt.Tensor, sc, sx, sy *[maxRank]int) {
	os, cs, xs, ys := elems[E](out), cond.Data, elems[E](x), elems[E](y)
	r := len(out.Shape)
	var it rowIter
	it.init(out.Shape)
	it.add(out.Strides, 0)
	it.add(sc[:r], 0)
	it.add(sx[:r], 0)
	it.add(sy[:r], 0)
	it.coalesce()
	for it.next() {
		o, k, i, j := it.off[0], it.off[1], it.off[2], it.off[3]
		for e := 0; e < it.n; e++ {
			v := ys[j]
			if cs[k] != 0 {
				v = xs[i]
			}
			os[o] = v
			o, k, i, j = o+it.step[0], k+it.step[1], i+it.step[2], j+it.step[3]
		}
	}
}
