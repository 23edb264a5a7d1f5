package onnx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An attribute of another type than its operator's schema says is refused
// by name: read as absent it would silently change the model (LeakyRelu
// with an INT alpha became Relu, Softmax with a FLOAT axis ran along axis
// 0).
func TestAttributeOfTheWrongTypeRefused(t *testing.T) {
	x := f32Input("x", 2, 3)
	for _, c := range []struct {
		name string
		node bNode
		want string // "" when the model imports
	}{
		{"LeakyRelu INT alpha", bNode{op: "LeakyRelu", name: "lr", ins: []string{"x"}, outs: []string{"y"}, attrs: []bAttr{{"alpha", int64(1)}}},
			`m.onnx: nodes[0] (op "LeakyRelu", name "lr"): attribute "alpha" has type INT; LeakyRelu wants FLOAT`},
		{"LeakyRelu FLOAT alpha", bNode{op: "LeakyRelu", name: "lr", ins: []string{"x"}, outs: []string{"y"}, attrs: []bAttr{{"alpha", float32(0.5)}}}, ""},
		{"Softmax FLOAT axis", bNode{op: "Softmax", name: "sm", ins: []string{"x"}, outs: []string{"y"}, attrs: []bAttr{{"axis", float32(1)}}},
			`nodes[0] (op "Softmax", name "sm"): attribute "axis" has type FLOAT; Softmax wants INT`},
		{"Softmax STRING axis", bNode{op: "Softmax", ins: []string{"x"}, outs: []string{"y"}, attrs: []bAttr{{"axis", "1"}}},
			`attribute "axis" has type STRING; Softmax wants INT`},
		{"Concat FLOAT axis", bNode{op: "Concat", ins: []string{"x", "x"}, outs: []string{"y"}, attrs: []bAttr{{"axis", float32(1)}}},
			`nodes[0] (op "Concat", name ""): attribute "axis" has type FLOAT; Concat wants INT`},
		{"Transpose FLOATS perm", bNode{op: "Transpose", ins: []string{"x"}, outs: []string{"y"}, attrs: []bAttr{{"perm", []float32{1, 0}}}},
			`attribute "perm" has type FLOATS; Transpose wants INTS`},
		{"Transpose INTS perm", bNode{op: "Transpose", ins: []string{"x"}, outs: []string{"y"}, attrs: []bAttr{{"perm", []int64{1, 0}}}}, ""},
		{"Cast FLOAT to", bNode{op: "Cast", ins: []string{"x"}, outs: []string{"y"}, attrs: []bAttr{{"to", float32(7)}}},
			`attribute "to" has type FLOAT; Cast wants INT`},
		{"Constant value_float as INT", bNode{op: "Constant", outs: []string{"y"}, attrs: []bAttr{{"value_float", int64(2)}}},
			`attribute "value_float" has type INT; Constant wants FLOAT`},
		{"Pad INT mode", bNode{op: "Pad", ins: []string{"x", "pads"}, outs: []string{"y"}, attrs: []bAttr{{"mode", int64(1)}}},
			`attribute "mode" has type INT; Pad wants STRING`},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := bModel{inputs: []tInput{x}, nodes: []bNode{c.node}, outputs: []string{"y"},
				inits: []bInit{{name: "pads", dims: []int64{4}, i64: []int64{0, 0, 0, 0}}}}
			_, _, err := Parse("m.onnx", m.bytes(), Options{})
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, c.want)
		})
	}
}
