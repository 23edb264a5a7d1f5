package wgref

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph/onnx"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// aliasAttrs are the attributes the importer gives the elementwise kernels
// that have any.
var aliasAttrs = map[string][]wgrt.Attr{
	"HardSigmoid":     {{Name: "alpha", Kind: wgrt.AttrFloat, Float: 0.2}, {Name: "beta", Kind: wgrt.AttrFloat, Float: 0.5}},
	"LeakyRelu":       {{Name: "alpha", Kind: wgrt.AttrFloat, Float: 0.01}},
	"Elu":             {{Name: "alpha", Kind: wgrt.AttrFloat, Float: 1}},
	"Celu":            {{Name: "alpha", Kind: wgrt.AttrFloat, Float: 1}},
	"ThresholdedRelu": {{Name: "alpha", Kind: wgrt.AttrFloat, Float: 0.1}},
	"Selu":            {{Name: "alpha", Kind: wgrt.AttrFloat, Float: 1.67}, {Name: "gamma", Kind: wgrt.AttrFloat, Float: 1.05}},
	"Shrink":          {{Name: "bias", Kind: wgrt.AttrFloat, Float: 0.1}, {Name: "lambd", Kind: wgrt.AttrFloat, Float: 0.5}},
	"Gelu":            {{Name: "approximate", Kind: wgrt.AttrString, Str: "none"}},
	"Clip":            {{Name: "min", Kind: wgrt.AttrFloat, Float: -0.5}, {Name: "max", Kind: wgrt.AttrFloat, Float: 0.5}},
	"Mod":             {{Name: "fmod", Kind: wgrt.AttrInt, Int: 1}},
	"BitShift":        {{Name: "direction", Kind: wgrt.AttrString, Str: "LEFT"}},
}

func aliasDType(kernel string) wgrt.DType {
	switch kernel {
	case "Not", "And", "Or", "Xor":
		return wgrt.Bool
	case "BitwiseNot", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitShift":
		return wgrt.U32
	}
	return wgrt.F32
}

func randomTensor(r *rand.Rand, dt wgrt.DType, shape ...int) wgrt.Tensor {
	t := wgrt.New(dt, shape...)
	switch dt {
	case wgrt.F32:
		xs := t.Float32s()
		for i := range xs {
			xs[i] = r.Float32()*4 - 2
		}
	case wgrt.Bool:
		for i := range t.Data {
			t.Data[i] = byte(r.Intn(2))
		}
	default:
		xs := t.Uint32s()
		for i := range xs {
			xs[i] = uint32(r.Intn(16))
		}
	}
	return t
}

func clone(t wgrt.Tensor) wgrt.Tensor {
	c := wgrt.New(t.DType, t.Shape...)
	copy(c.Data, t.Data)
	return c
}

// Every kernel the importer lets write its output over an input (may_alias)
// gives the same bytes in place as out of place, for each input it may
// take over. The list comes from the importer, so a kernel added there is
// covered here.
func TestMayAliasKernelsRunInPlace(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	tested := 0
	for _, name := range Names() {
		if !onnx.MayAlias(name) {
			continue
		}
		tested++
		dt := aliasDType(name)
		arity := 1
		if twoInputs[name] {
			arity = 2
		}
		shape := []int{3, 5, 7}
		ins := make([]wgrt.Tensor, arity)
		for i := range ins {
			ins[i] = randomTensor(r, dt, shape...)
		}
		outDType := dt
		want := wgrt.New(outDType, shape...)
		require.NoError(t, Call(&wgrt.Call{Kernel: name, Outputs: []wgrt.Tensor{want}, Inputs: ins, Attrs: aliasAttrs[name]}), name)
		for aliased := 0; aliased < arity; aliased++ {
			in := make([]wgrt.Tensor, arity)
			for i := range in {
				in[i] = clone(ins[i])
			}
			out := in[aliased] // the output is the input's own memory
			require.NoError(t, Call(&wgrt.Call{Kernel: name, Outputs: []wgrt.Tensor{out}, Inputs: in, Attrs: aliasAttrs[name]}), name)
			assert.Equal(t, want.Data, out.Data, "%s writing over input %d", name, aliased)
		}
	}
	assert.GreaterOrEqual(t, tested, 50, "the elementwise kernels are all here")
}

// twoInputs are the elementwise kernels of two inputs (both may be taken
// over); the others take one.
var twoInputs = map[string]bool{"Add": true, "Sub": true, "Mul": true, "Div": true, "Pow": true, "Mod": true, "Max": true,
	"Min": true, "Sum": true, "Mean": true, "PRelu": true, "And": true, "Or": true, "Xor": true, "BitwiseAnd": true,
	"BitwiseOr": true, "BitwiseXor": true, "BitShift": true}
