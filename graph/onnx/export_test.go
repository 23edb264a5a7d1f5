package onnx

// QDQConvModel is a model for the tests outside the package (which run
// what they import): an int8 Q/DQ convolution as quantization-aware
// exports write it, y = Conv(DQ(Q(x)), DQ(Q(w))) with per-channel weight
// scales, over an input [1, c, 6, 6] and a weight [m, c, 3, 3] whose
// contents (row-major), scales and int8 zero points are given. When
// weightIsInput, w is also a graph input: an initializer the caller may
// override.
func QDQConvModel(m, c int64, w, scales []float32, zeros []int8, weightIsInput bool) []byte {
	zp := make([]byte, len(zeros))
	for i, z := range zeros {
		zp[i] = byte(z)
	}
	model := bModel{
		inputs: []tInput{f32Input("x", 1, int(c), 6, 6)},
		inits: []bInit{
			{name: "w", dims: []int64{m, c, 3, 3}, f32: w},
			{name: "w_scale", dims: []int64{m}, f32: scales},
			{name: "w_zero", dims: []int64{m}, raw: zp, elem: 3},
			{name: "x_scale", dims: []int64{}, f32: []float32{0.05}},
		},
		nodes: []bNode{
			{op: "QuantizeLinear", ins: []string{"x", "x_scale"}, outs: []string{"xq"}},
			{op: "DequantizeLinear", ins: []string{"xq", "x_scale"}, outs: []string{"xdq"}},
			{op: "QuantizeLinear", ins: []string{"w", "w_scale", "w_zero"}, outs: []string{"wq"}, attrs: []bAttr{{"axis", int64(0)}}},
			{op: "DequantizeLinear", ins: []string{"wq", "w_scale", "w_zero"}, outs: []string{"wdq"}, attrs: []bAttr{{"axis", int64(0)}}},
			{op: "Conv", ins: []string{"xdq", "wdq"}, outs: []string{"y"}, attrs: []bAttr{{"pads", []int64{1, 1, 1, 1}}}},
		},
		outputs: []string{"y"},
	}
	if weightIsInput {
		model.inputs = append(model.inputs, f32Input("w", int(m), int(c), 3, 3))
	}
	return model.bytes()
}

// ConvBNModel is y = Relu(BatchNormalization(Conv(x, w, b))) over an
// input [1, c, 6, 6], a weight [m, c, 3, 3] and a bias [m], with the
// normalization's scale, B, mean and var (each [m]) and epsilon 1e-3.
// When convIsOutput, the Conv's output is a graph output too.
func ConvBNModel(m, c int64, w, b, scale, shift, mean, variance []float32, convIsOutput bool) []byte {
	vec := func(name string, v []float32) bInit { return bInit{name: name, dims: []int64{m}, f32: v} }
	model := bModel{
		inputs: []tInput{f32Input("x", 1, int(c), 6, 6)},
		inits: []bInit{
			{name: "w", dims: []int64{m, c, 3, 3}, f32: w}, vec("b", b),
			vec("scale", scale), vec("shift", shift), vec("mean", mean), vec("var", variance),
		},
		nodes: []bNode{
			{op: "Conv", ins: []string{"x", "w", "b"}, outs: []string{"conv"}, attrs: []bAttr{{"pads", []int64{1, 1, 1, 1}}}},
			{op: "BatchNormalization", ins: []string{"conv", "scale", "shift", "mean", "var"}, outs: []string{"bn"}, attrs: []bAttr{{"epsilon", float32(1e-3)}}},
			{op: "Relu", ins: []string{"bn"}, outs: []string{"y"}},
		},
		outputs: []string{"y"},
	}
	if convIsOutput {
		model.outputs = append(model.outputs, "conv")
	}
	return model.bytes()
}

// BroadcastAddModel is y = x + (a + b) with initializers a [n, 1] and
// b [1, n]: a constant sum of n*n elements out of 2n.
func BroadcastAddModel(n int64) []byte {
	ones := make([]float32, n)
	for i := range ones {
		ones[i] = 1
	}
	return bModel{
		inputs: []tInput{f32Input("x", int(n), int(n))},
		inits:  []bInit{{name: "a", dims: []int64{n, 1}, f32: ones}, {name: "b", dims: []int64{1, n}, f32: ones}},
		nodes: []bNode{
			{op: "Add", ins: []string{"a", "b"}, outs: []string{"ab"}},
			{op: "Add", ins: []string{"x", "ab"}, outs: []string{"y"}},
		},
		outputs: []string{"y"},
	}.bytes()
}

// DilatedConvModel is a Conv of c channels over a [1, c, h, w] input, m
// outputs, a 3x3 kernel with the given dilations and pads (begins, ends),
// and stride 1.
func DilatedConvModel(m, c int64, h, w int, weight []float32, dilations, pads []int64) []byte {
	return bModel{
		inputs: []tInput{f32Input("x", 1, int(c), h, w)},
		inits:  []bInit{{name: "w", dims: []int64{m, c, 3, 3}, f32: weight}},
		nodes: []bNode{
			{op: "Conv", ins: []string{"x", "w"}, outs: []string{"y"}, attrs: []bAttr{{"pads", pads}, {"dilations", dilations}}},
		},
		outputs: []string{"y"},
	}.bytes()
}
