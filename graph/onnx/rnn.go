package onnx

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// recurrent is RNN, GRU and LSTM. Outputs: Y [seq, dirs, batch, hidden]
// ([batch, seq, dirs, hidden] with layout 1), Y_h (and LSTM's Y_c)
// [dirs, batch, hidden] ([batch, dirs, hidden]). Optional inputs and
// outputs may be omitted, so the kernel is told which are present
// ("inputs", "outputs": 1 or 0 per ONNX slot); the activations and their
// alpha and beta, which format v1 cannot hold as lists of strings and
// floats, pass as comma-separated text ("Sigmoid,Tanh", "0.01,0").
func recurrent(gates int, defaults []string) rule {
	return func(c *nodeCtx) error {
		x := c.input(0)
		w := c.input(1)
		if len(x.shape) != 3 || len(w.shape) != 3 {
			return fmt.Errorf("X %s and W %s must have rank 3", shapeText(x.shape), shapeText(w.shape))
		}
		dirs := int64(1)
		direction := c.attrString("direction", "forward")
		switch direction {
		case "forward", "reverse":
		case "bidirectional":
			dirs = 2
		default:
			return fmt.Errorf("direction %q is not forward, reverse or bidirectional", direction)
		}
		hidden := expr.Const(c.attrInt("hidden_size", 0))
		if c.typedAttr("hidden_size", attrInt) == nil {
			h, ok := expr.FloorDiv(w.shape[1], expr.Const(int64(gates)))
			if !ok {
				return fmt.Errorf("W %s has no hidden size", shapeText(w.shape))
			}
			hidden = h
		}
		layout := c.attrInt("layout", 0)
		seq, batch := x.shape[0], x.shape[1]
		if layout == 1 {
			seq, batch = batch, seq
		}
		acts := c.attrStrings("activations")
		if len(acts) == 0 {
			for range dirs {
				acts = append(acts, defaults...)
			}
		}
		if len(acts) != len(defaults)*int(dirs) {
			return fmt.Errorf("%d activations, want %d per direction", len(acts), len(defaults))
		}
		for _, a := range acts {
			if !knownActivation(a) {
				return unsup("activation %q", a)
			}
		}
		slots := []string{"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"}
		if gates != 4 {
			slots = slots[:6]
		}
		var present []int64
		for k := range slots {
			if c.opt(k) != nil {
				present = append(present, 1)
			} else {
				present = append(present, 0)
			}
		}
		c.emitString("direction", direction)
		c.emitExpr("hidden_size", hidden)
		c.emitInt("layout", layout)
		c.emitString("activations", strings.Join(acts, ","))
		c.emitString("activation_alpha", floatsText(c.attrFloats("activation_alpha")))
		c.emitString("activation_beta", floatsText(c.attrFloats("activation_beta")))
		c.emitFloat("clip", c.attrFloat("clip", 0)) // 0: no clipping
		if gates == 3 {
			c.emitInt("linear_before_reset", c.attrInt("linear_before_reset", 0))
		}
		if gates == 4 {
			c.emitInt("input_forget", c.attrInt("input_forget", 0))
		}
		c.emitInts("inputs", present)
		d := expr.Const(dirs)
		y := []expr.Expr{seq, d, batch, hidden}
		state := []expr.Expr{d, batch, hidden}
		if layout == 1 {
			y = []expr.Expr{batch, seq, d, hidden}
			state = []expr.Expr{batch, d, hidden}
		}
		var outs []int64
		for k := 0; k < len(c.outs); k++ {
			if c.n.outputs[k] == "" {
				outs = append(outs, 0)
				continue
			}
			outs = append(outs, 1)
		}
		for len(outs) < 3 {
			outs = append(outs, 0)
		}
		c.emitInts("outputs", outs)
		c.setOut(0, x.dtype, y)
		c.setOut(1, x.dtype, state)
		if gates == 4 {
			c.setOut(2, x.dtype, state)
		}
		return nil
	}
}

// knownActivation reports whether the reference kernels compute a
// recurrent activation function.
func knownActivation(a string) bool {
	switch a {
	case "Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh", "HardSigmoid", "Elu", "Softsign", "Softplus":
		return true
	}
	return false
}

func floatsText(fs []float64) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

func (c *nodeCtx) attrStrings(name string) []string {
	a := c.typedAttr(name, attrStrings)
	if a == nil {
		return nil
	}
	out := make([]string, len(a.strings))
	for i, s := range a.strings {
		out[i] = string(s)
	}
	return out
}

func (c *nodeCtx) attrFloats(name string) []float64 {
	if a := c.typedAttr(name, attrFloats); a != nil {
		return a.floats
	}
	return nil
}
