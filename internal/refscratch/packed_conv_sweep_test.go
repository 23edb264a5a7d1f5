package refscratch

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
)

// Grouped, depthwise and mixed-block convolutions (Conv, and FusedConv
// with a bias, a sum, both or neither), 3x3 and 1x1, at a symbolic batch
// and a constant one, with their filters prepared as the runner prepares
// them (wgrt.PrepareFunc: an input whose shape depends on a symbol comes
// without its shape, so a FusedConv's sum at a symbolic batch has no
// rank): Prepare allocates PackedBytes, and the kernel, given the
// prepared filters, runs in RuleWithPackedWeights' scratch (and without
// them in Rule's), at every batch.
func TestPreparedConvSweepFitsRule(t *testing.T) {
	type shape struct{ c, m, group, k int }
	var shapes []shape
	for _, c := range []int{8, 16, 32} {
		for _, cg := range []int{1, 2, 4, 8, 16} {
			if cg > c {
				continue
			}
			g := c / cg
			for _, mg := range []int{1, cg, 2 * cg, 12} {
				for _, k := range []int{3, 1} {
					shapes = append(shapes, shape{c, g * mg, g, k})
				}
			}
		}
	}
	cases := 0
	for _, s := range shapes {
		for _, extras := range [][]string{nil, {"b"}, {"s"}, {"b", "s"}} {
			for _, batch := range []string{`"n"`, `2`} {
				kernel := "FusedConv"
				if extras == nil && batch == `2` {
					kernel = "Conv"
				}
				pad := (s.k - 1) / 2
				inputs := append([]string{`"x"`, `"w"`}, quoteAll(extras)...)
				attrs := fmt.Sprintf(`"group": %d, "kernel_shape": [%d, %d], "strides": [1, 1], "pads": [%d, %d, %d, %d], "dilations": [1, 1]`, s.group, s.k, s.k, pad, pad, pad, pad)
				if kernel == "FusedConv" {
					attrs += `, "activation": "Relu", "activation_alpha": 0.0, "activation_beta": 0.0`
				}
				src := fmt.Sprintf(`{
  "name": "sweep",
  "symbols": {"n": {"hint": 2, "min": 1, "max": 8}},
  "tensors": {
    "x": {"dtype": "f32", "shape": [%[1]s, %[2]d, 9, 9]},
    "w": {"dtype": "f32", "shape": [%[3]d, %[4]d, %[5]d, %[5]d]},
    "b": {"dtype": "f32", "shape": [%[3]d]},
    "s": {"dtype": "f32", "shape": [%[1]s, %[3]d, 9, 9]},
    "y": {"dtype": "f32", "shape": [%[1]s, %[3]d, 9, 9]}
  },
  "inputs": ["x", "s"], "params": ["w", "b"], "outputs": ["y"],
  "ops": [{"kernel": %[6]q, "inputs": [%[7]s], "outputs": ["y"], "attrs": {%[8]s}}]
}`, batch, s.c, s.m, s.c/s.group, s.k, kernel, strings.Join(inputs, ", "), attrs)
				checkPreparedConv(t, src, fmt.Sprintf("%s x[%s,%d] w[%d,%d,%d,%d] group %d with %v", kernel, batch, s.c, s.m, s.c/s.group, s.k, s.k, s.group, extras))
				cases++
			}
		}
	}
	require.Greater(t, cases, 100)
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

// checkPreparedConv checks the one op of graph src as
// TestPreparedConvSweepFitsRule says.
func checkPreparedConv(t *testing.T, src, label string) {
	t.Helper()
	withPacked, err := graph.Parse("sweep.json", []byte(src))
	require.NoError(t, err, label)
	require.NoError(t, withPacked.AddScratch(RuleWithPackedWeights), label)
	perCall, err := graph.Parse("sweep.json", []byte(src))
	require.NoError(t, err, label)
	require.NoError(t, perCall.AddScratch(Rule), label)
	op, plain := withPacked.Ops[0], perCall.Ops[0]
	for _, n := range []int64{1, 2, 3, 8} {
		env := expr.Env{"n": n}
		at := fmt.Sprintf("%s at n=%d", label, n)
		call := callOf(t, op, env)
		// What the runner gives Prepare: params with their data, the
		// others with their shape only where it is constant.
		prep := *call
		prep.Inputs = append(prep.Inputs[:0:0], call.Inputs...)
		for j, x := range op.Inputs {
			if _, ok := fixedShape(x); !ok {
				prep.Inputs[j].Shape, prep.Inputs[j].Strides = nil, nil
			}
			if !x.Param {
				prep.Inputs[j].Data = nil
			}
		}
		prepared, bytes, err := wgref.Prepare(&prep)
		require.NoError(t, err, at)
		require.Equal(t, packedBytes(op), int64(bytes), "%s: Prepare allocates PackedBytes", at)
		call.Prepared = prepared
		scratch, err := op.Scratch.Shape[0].Eval(env)
		require.NoError(t, err, at)
		call.Scratch = make([]byte, scratch)
		require.NoError(t, wgref.Call(call), "%s: prepared, given RuleWithPackedWeights' %d bytes", at, scratch)

		call.Prepared = nil
		scratch, err = plain.Scratch.Shape[0].Eval(env)
		require.NoError(t, err, at)
		call.Scratch = make([]byte, scratch)
		require.NoError(t, wgref.Call(call), "%s: not prepared, given Rule's %d bytes", at, scratch)
	}
}
