package onnx

// elementwise are the ops whose output may take over an input's memory:
// each output element depends only on the same element of its inputs, so
// a kernel can write it where it read it (format v1's kernels.may_alias).
// The planner uses a pair only where that input has the output's dtype,
// shape and strides, so broadcasting calls are left alone.
var elementwise = map[string]bool{}

func init() {
	for _, op := range []string{
		// unary
		"Abs", "Neg", "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal", "Floor",
		"Ceil", "Round", "Erf", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
		"Asinh", "Acosh", "Atanh", "Softplus", "Softsign", "Sign", "Not", "HardSwish", "Mish",
		"BitwiseNot", "HardSigmoid", "LeakyRelu", "Elu", "Celu", "ThresholdedRelu", "Selu",
		"Shrink", "Gelu", "Clip",
		// broadcasting binary
		"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "Sum", "Mean", "PRelu",
		"And", "Or", "Xor", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitShift",
	} {
		elementwise[op] = true
	}
}

// addTraits gives each elementwise kernel of the document may_alias pairs
// [0, i] for its first two inputs (fewer when some call has fewer).
func (d *document) addTraits() {
	minInputs := map[string]int{}
	walkOps(d.ops, func(op *docOp) {
		if !elementwise[op.kernel] || len(op.outputs) != 1 {
			return
		}
		n, seen := minInputs[op.kernel]
		if !seen {
			d.kernelOrder = append(d.kernelOrder, op.kernel)
			n = len(op.inputs)
		}
		minInputs[op.kernel] = min(n, len(op.inputs))
	})
	d.mayAlias = map[string][][2]int{}
	kept := d.kernelOrder[:0]
	for _, k := range d.kernelOrder {
		for i := range min(2, minInputs[k]) {
			d.mayAlias[k] = append(d.mayAlias[k], [2]int{0, i})
		}
		if len(d.mayAlias[k]) > 0 {
			kept = append(kept, k)
		}
	}
	d.kernelOrder = kept
}

// MayAlias reports whether the importer declares kernel's output may take
// over its first inputs' memory (the kernel is elementwise): the reference
// kernels are tested to honour it.
func MayAlias(kernel string) bool { return elementwise[kernel] }
