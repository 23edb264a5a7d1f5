package onnx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A name means one tensor: duplicate initializers, duplicate inputs, two
// nodes writing one value and a node overwriting an input or initializer
// are refused by name, and so is a -params tensor that an initializer
// gives already. An input that is also an initializer (its default) is
// allowed, as ONNX allows it.
func TestNamesAreSingleAssignment(t *testing.T) {
	w := bInit{name: "w", dims: []int64{3}, f32: []float32{1, 2, 3}}
	w2 := bInit{name: "w", dims: []int64{3}, f32: []float32{4, 5, 6}}
	x := f32Input("x", 3)
	add := func(in, out string) bNode {
		return bNode{op: "Add", name: out, ins: []string{"x", in}, outs: []string{out}}
	}
	for _, c := range []struct {
		name   string
		m      bModel
		params map[string]Weight
		want   string // "" when the model imports
	}{
		{"duplicate initializer", bModel{inputs: []tInput{x}, inits: []bInit{w, w2}, nodes: []bNode{add("w", "y")}, outputs: []string{"y"}},
			nil, `m.onnx: graph.initializer[1] ("w"): initializer[0] has this name too: each name is one tensor`},
		{"duplicate input", bModel{inputs: []tInput{x, x}, nodes: []bNode{add("x", "y")}, outputs: []string{"y"}},
			nil, `m.onnx: graph.input[1] ("x"): input[0] has this name too`},
		{"two nodes write one value", bModel{inputs: []tInput{x}, nodes: []bNode{add("x", "y"), add("x", "y")}, outputs: []string{"y"}},
			nil, `nodes[1] (op "Add", name "y"): output 0 "y" is defined twice`},
		{"a node writes an initializer", bModel{inputs: []tInput{x}, inits: []bInit{w}, nodes: []bNode{add("x", "w")}, outputs: []string{"w"}},
			nil, `nodes[0] (op "Add", name "w"): output 0 "w" is defined twice`},
		{"a node writes an input", bModel{inputs: []tInput{x}, nodes: []bNode{add("x", "x")}, outputs: []string{"x"}},
			nil, `nodes[0] (op "Add", name "x"): output 0 "x" is defined twice`},
		{"params file and initializer", bModel{inputs: []tInput{x}, inits: []bInit{w}, nodes: []bNode{add("w", "y")}, outputs: []string{"y"}},
			map[string]Weight{"w": {Name: "w", DType: "f32", Shape: []int64{3}, Data: make([]byte, 12)}},
			`graph.initializer[0] ("w"): the params file holds a tensor of this name too; wrapgen does not choose between them`},
		{"input with an initializer as default", bModel{inputs: []tInput{x, f32Input("w", 3)}, inits: []bInit{w}, nodes: []bNode{add("w", "y")}, outputs: []string{"y"}},
			nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, _, err := Parse("m.onnx", c.m.bytes(), Options{Params: c.params})
			if c.want == "" {
				require.NoError(t, err)
				assert.Len(t, g.Inputs, 1, "the initializer is the input's value")
				return
			}
			assert.ErrorContains(t, err, c.want)
		})
	}
}

// A TensorProto holds its values in one field, and its element count fits
// what wrapgen plans for; otherwise it is refused by name, not reported
// later as a failed check of wrapgen's own.
func TestTensorProtoRefusals(t *testing.T) {
	for _, c := range []struct {
		name string
		t    bInit
		want string
	}{
		{"raw_data and float_data", bInit{name: "t", dims: []int64{2}, f32: []float32{1, 2}, raw: make([]byte, 8)},
			`tensor "t" has both raw_data and float_data: which holds its values is ambiguous`},
		{"float_data and int64_data", bInit{name: "t", dims: []int64{2}, f32: []float32{1, 2}, i64: []int64{1, 2}},
			`tensor "t" has data in float_data and int64_data: which holds its values is ambiguous`},
		{"element count overflows", bInit{name: "t", dims: []int64{1 << 32, 1 << 32, 4}, f32: []float32{}},
			`tensor "t": dims [4294967296 4294967296 4] hold more than the 1099511627776 elements wrapgen plans for`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeTensor(c.t.proto())
			assert.EqualError(t, err, c.want)
			// As an initializer, the place is named too.
			x := f32Input("x", 2)
			m := bModel{inputs: []tInput{x}, inits: []bInit{c.t}, nodes: []bNode{{op: "Add", ins: []string{"x", "t"}, outs: []string{"y"}}}, outputs: []string{"y"}}
			_, _, err = Parse("m.onnx", m.bytes(), Options{})
			assert.EqualError(t, err, `m.onnx: graph.initializer[0] ("t"): `+c.want)
		})
	}
	w, err := DecodeTensor(bInit{name: "t", dims: []int64{2}, raw: []byte{0, 0, 128, 63, 0, 0, 0, 64}}.proto())
	require.NoError(t, err)
	assert.Equal(t, []int64{2}, w.Shape)
}
