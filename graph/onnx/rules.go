package onnx

// rules maps each supported op_type (domain-qualified outside the default
// domain) to its inference rule. Anything absent is refused by name.
var rules map[string]rule

// unlistedInputs gives the fewest and most inputs of each operator with a
// rule that opSchemas does not list (Gelu is opset 20, newer than ONNX
// 1.12's schemas), for checkInputs.
var unlistedInputs = map[string][2]int{"Gelu": {1, 1}}

func init() {
	same := unary("")
	rules = map[string]rule{
		"Constant":                  constantNode,
		"Shape":                     shapeOp,
		"Size":                      sizeOp,
		"Identity":                  identity,
		"Dropout":                   dropout,
		"Unsqueeze":                 unsqueeze,
		"Squeeze":                   squeeze,
		"Flatten":                   flatten,
		"Reshape":                   reshape,
		"Concat":                    concat,
		"Gather":                    gather,
		"GatherElements":            gatherElements,
		"Slice":                     slice,
		"ConstantOfShape":           constantOfShape,
		"Expand":                    expand,
		"Range":                     rangeOp,
		"Tile":                      tile,
		"Transpose":                 transpose,
		"Split":                     split,
		"Pad":                       pad,
		"Resize":                    resize,
		"RNN":                       recurrent(1, []string{"Tanh"}),
		"GRU":                       recurrent(3, []string{"Sigmoid", "Tanh"}),
		"LSTM":                      recurrent(4, []string{"Sigmoid", "Tanh", "Tanh"}),
		"Upsample":                  resize,
		"ScatterND":                 scatterND,
		"ScatterElements":           scatterElements,
		"Scatter":                   scatterElements,
		"GatherND":                  gatherND,
		"Einsum":                    einsum,
		"STFT":                      stft,
		"DFT":                       dft,
		"RoiAlign":                  roiAlign,
		"Det":                       det,
		"MaxUnpool":                 maxUnpool,
		"GridSample":                gridSample,
		"NegativeLogLikelihoodLoss": lossOp,
		"SoftmaxCrossEntropyLoss":   lossOp,
		"MeanVarianceNormalization": meanVarianceNormalization,
		"ReverseSequence":           reverseSequence,
		"MatMulInteger":             onOperands(matmul, []int{0, 1}, int32Out),
		"ConvInteger":               onOperands(conv, []int{0, 1}, int32Out),
		"QLinearMatMul":             onOperands(matmul, []int{0, 3}, zeroPointOut(7)),
		"QLinearConv":               onOperands(conv, []int{0, 3}, zeroPointOut(7)),
		"HannWindow":                windowOp(0.5, 0.5, 0),
		"HammingWindow":             windowOp(25.0/46, 21.0/46, 0),
		"BlackmanWindow":            windowOp(0.42, 0.5, 0.08),
		"MelWeightMatrix":           melWeightMatrix,
		"OneHot":                    oneHot,
		"QuantizeLinear":            quantizeLinear,
		"DequantizeLinear":          dequantizeLinear,
		"DynamicQuantizeLinear":     dynamicQuantizeLinear,
		"Trilu":                     trilu,
		"TfIdfVectorizer":           tfIdfVectorizer,
		"CumSum":                    cumSum,
		"Where":                     where,
		"Cast":                      cast,
		"CastLike":                  cast,
		"Clip":                      clip,
		"EyeLike":                   eyeLike,
		"Bernoulli":                 bernoulli,
		"RandomUniformLike":         randomLike(unaryAttr{"low", 0}, unaryAttr{"high", 1}),
		"RandomNormalLike":          randomLike(unaryAttr{"mean", 0}, unaryAttr{"scale", 1}),
		"RandomUniform":             randomShaped(unaryAttr{"low", 0}, unaryAttr{"high", 1}),
		"RandomNormal":              randomShaped(unaryAttr{"mean", 0}, unaryAttr{"scale", 1}),

		"Conv":                  conv,
		"ConvTranspose":         convTranspose,
		"MaxPool":               pool,
		"AveragePool":           pool,
		"LpPool":                pool,
		"GlobalAveragePool":     globalPool,
		"GlobalMaxPool":         globalPool,
		"GlobalLpPool":          globalPool,
		"BatchNormalization":    batchNorm,
		"LayerNormalization":    layerNorm,
		"InstanceNormalization": unary("", unaryAttr{"epsilon", 1e-5}),
		"LRN":                   lrn,
		"Gemm":                  gemm,
		"MatMul":                matmul,
		"Softmax":               softmax,
		"LogSoftmax":            softmax,
		"Hardmax":               softmax,
		"ArgMax":                argReduce,
		"ArgMin":                argReduce,
		"TopK":                  topK,
		"DepthToSpace":          depthSpace,
		"SpaceToDepth":          depthSpace,

		"NonZero":           nonZero,
		"Unique":            unique,
		"Compress":          compress,
		"NonMaxSuppression": nonMaxSuppression,
	}
	for _, op := range []string{"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
		"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"} {
		rules[op] = reduce
	}
	for _, op := range []string{"Abs", "Neg", "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt",
		"Reciprocal", "Floor", "Ceil", "Round", "Erf", "Sin", "Cos", "Tan", "Asin", "Acos",
		"Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Softplus", "Softsign", "Sign",
		"Not", "HardSwish", "Mish", "BitwiseNot"} {
		rules[op] = same
	}
	withAttrs := map[string][]unaryAttr{
		"HardSigmoid":     {{"alpha", 0.2}, {"beta", 0.5}},
		"LeakyRelu":       {{"alpha", 0.01}},
		"Elu":             {{"alpha", 1}},
		"Celu":            {{"alpha", 1}},
		"ThresholdedRelu": {{"alpha", 1}},
		"Selu":            {{"alpha", 1.67326319217681884765625}, {"gamma", 1.05070102214813232421875}},
		"Shrink":          {{"bias", 0}, {"lambd", 0.5}},
	}
	for op, attrs := range withAttrs {
		rules[op] = unary("", attrs...)
	}
	rules["Gelu"] = gelu
	rules["IsNaN"] = unary("bool")
	rules["IsInf"] = isInf
	for _, op := range []string{"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "Sum",
		"Mean", "PRelu", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitShift"} {
		rules[op] = nary("")
	}
	for _, op := range []string{"And", "Or", "Xor", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"} {
		rules[op] = nary("bool")
	}
	rules["BitShift"] = bitShift
	for _, op := range []string{"If", "Loop", "Scan", "SequenceConstruct", "SequenceAt", "SequenceEmpty",
		"SequenceInsert", "SequenceErase", "SequenceLength", "SplitToSequence", "ConcatFromSequence",
		"Optional", "OptionalGetElement", "OptionalHasElement"} {
		rules[op] = controlFlow
	}
}

func controlFlow(c *nodeCtx) error {
	return unsup("control flow, sequence and optional values are not expressible in format v1")
}

func gelu(c *nodeCtx) error {
	x := c.input(0)
	c.emitString("approximate", c.attrString("approximate", "none"))
	c.setOut(0, x.dtype, x.shape)
	return nil
}

func isInf(c *nodeCtx) error {
	x := c.input(0)
	c.emitInt("detect_negative", c.attrInt("detect_negative", 1))
	c.emitInt("detect_positive", c.attrInt("detect_positive", 1))
	c.setOut(0, "bool", x.shape)
	return nil
}

func bitShift(c *nodeCtx) error {
	if err := nary("")(c); err != nil {
		return err
	}
	c.emitString("direction", c.attrString("direction", ""))
	return nil
}

func lrn(c *nodeCtx) error {
	x := c.input(0)
	c.emitFloat("alpha", c.attrFloat("alpha", 1e-4))
	c.emitFloat("beta", c.attrFloat("beta", 0.75))
	c.emitFloat("bias", c.attrFloat("bias", 1))
	c.emitInt("size", c.attrInt("size", 0))
	c.setOut(0, x.dtype, x.shape)
	return nil
}

func trilu(c *nodeCtx) error {
	x := c.input(0)
	k := int64(0)
	if c.opt(1) != nil {
		ks, err := c.constInts(1, "k")
		if err != nil {
			return err
		}
		if len(ks) != 1 {
			return unsup("k must be a scalar")
		}
		k = ks[0]
	}
	c.emitInt("k", k)
	c.emitInt("upper", c.attrInt("upper", 1))
	c.setOut(0, x.dtype, x.shape)
	return nil
}

func cumSum(c *nodeCtx) error {
	x := c.input(0)
	a, err := c.constInts(1, "axis")
	if err != nil {
		return err
	}
	if len(a) != 1 {
		return unsup("axis must be a scalar")
	}
	axis, err := normAxis(a[0], len(x.shape))
	if err != nil {
		return err
	}
	c.emitInt("axis", int64(axis))
	c.emitInt("exclusive", c.attrInt("exclusive", 0))
	c.emitInt("reverse", c.attrInt("reverse", 0))
	c.setOut(0, x.dtype, x.shape)
	return nil
}

// scatterElements keeps the data's shape; duplicate indices combine by
// "reduction" (none, add, mul, max, min).
func scatterElements(c *nodeCtx) error {
	if err := sameAs(intAttr{"axis", 0})(c); err != nil {
		return err
	}
	c.emitString("reduction", c.attrString("reduction", "none"))
	c.kernel = "ScatterElements" // Scatter (opsets 9-10) is its earlier name
	return nil
}
