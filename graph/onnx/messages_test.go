package onnx

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Each refusal names what the model gives (the axis as written, not as
// normalised) and the real problem, not a consequence of it.
func TestMessagesNameWhatTheModelGives(t *testing.T) {
	x := f32Input("x", 2, 3)
	m := func(nodes ...bNode) bModel {
		return bModel{inputs: []tInput{x}, nodes: nodes, outputs: []string{"y"},
			inits: []bInit{{name: "idx", dims: []int64{1}, i64: []int64{-4}}}}
	}
	// A Loop body x -> x + x, with its outputs in the order given.
	body := func(outs ...string) bModel {
		return bModel{inputs: []tInput{{name: "i", elem: 7}, {name: "c", elem: 9}, f32Input("v", 2, 3)},
			nodes:   []bNode{{op: "Identity", ins: []string{"c"}, outs: []string{"c_out"}}, {op: "Add", ins: []string{"v", "v"}, outs: []string{"v_out"}}},
			outputs: outs}
	}
	loop := func(count int64, b bModel) bModel {
		return bModel{inputs: []tInput{x}, outputs: []string{"y"},
			inits: []bInit{{name: "M", i64: []int64{count}}},
			nodes: []bNode{{op: "Loop", name: "loop", ins: []string{"M", "", "x"}, outs: []string{"y"}, attrs: []bAttr{{"body", b}}}}}
	}
	for _, c := range []struct {
		name string
		m    bModel
		want string
	}{
		{"negative axis out of range", m(bNode{op: "Softmax", ins: []string{"x"}, outs: []string{"y"}, attrs: []bAttr{{"axis", int64(-3)}}}),
			`nodes[0] (op "Softmax", name ""): axis -3 is out of range for rank 2 (want -2 to 1)`},
		{"Concat axis out of range", m(bNode{op: "Concat", ins: []string{"x", "x"}, outs: []string{"y"}, attrs: []bAttr{{"axis", int64(-5)}}}),
			`axis -5 is out of range for rank 2 (want -2 to 1)`},
		{"Transpose perm of floats", m(bNode{op: "Transpose", ins: []string{"x"}, outs: []string{"y"}, attrs: []bAttr{{"perm", []float32{1, 0}}}}),
			`attribute "perm" has type FLOATS; Transpose wants INTS`},
		{"Transpose perm repeats", m(bNode{op: "Transpose", ins: []string{"x"}, outs: []string{"y"}, attrs: []bAttr{{"perm", []int64{1, -1}}}}),
			`perm repeats axis 1 (given as -1)`},
		{"Gather constant index out of range", bModel{inputs: []tInput{}, outputs: []string{"y"},
			inits: []bInit{{name: "data", dims: []int64{3}, i64: []int64{1, 2, 3}}, {name: "idx", dims: []int64{1}, i64: []int64{-4}}},
			nodes: []bNode{{op: "Gather", ins: []string{"data", "idx"}, outs: []string{"y"}}}},
			`index -4 is out of range for size 3 (want -3 to 2)`},
		{"Loop body outputs in the wrong order", loop(3, body("v_out", "c_out")),
			`nodes[0] (op "Loop", name "loop"): the body's first output "v_out" is f32 [2, 3], not the bool condition: a Loop body returns the condition, then the 1 loop-carried values, then the scan outputs`},
		{"Loop negative trip count", loop(-3, body("c_out", "v_out")),
			`nodes[0] (op "Loop", name "loop"): trip count is -3; it must be at least 0`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Parse("m.onnx", c.m.bytes(), Options{})
			assert.ErrorContains(t, err, c.want)
			assert.NotContains(t, errText(err), "-min")
		})
	}
	// The Loop as it should be imports.
	_, _, err := Parse("m.onnx", loop(3, body("c_out", "v_out")).bytes(), Options{})
	assert.NoError(t, err)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
