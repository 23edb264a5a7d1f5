package cppref

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The elementwise kernels (templates/wgref/unary.cc, binary.cc, cast.cc)
// against the Go kernels: every kernel over many dtypes, broadcast,
// transposed and strided views, special values.

var ewAllDTypes = []wgrt.DType{wgrt.Bool, wgrt.I8, wgrt.U8, wgrt.I16, wgrt.U16, wgrt.I32, wgrt.U32, wgrt.I64, wgrt.U64,
	wgrt.F16, wgrt.BF16, wgrt.F32, wgrt.F64}

// ewFill writes values of dtype d into t: floats with special values
// (NaN, ±Inf, ±0, halves) among random ones in [-scale, scale], integers
// in [-ilim, ilim] (unsigned: [0, 2·ilim]) with some extremes.
func ewFill(r *rand.Rand, t wgrt.Tensor, scale float64, ilim int64, specials bool) {
	n := len(t.Data) / t.DType.Size()
	fspecial := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 0.5, -0.5, 1.5, 2.5, -2.5, 1, -1, 40, -40}
	for i := 0; i < n; i++ {
		switch t.DType {
		case wgrt.F32, wgrt.F64, wgrt.F16, wgrt.BF16:
			v := (2*r.Float64() - 1) * scale
			if specials && r.Intn(6) == 0 {
				v = fspecial[r.Intn(len(fspecial))]
			}
			ewStoreF(t, i, v)
		case wgrt.Bool:
			t.Data[i] = byte(r.Intn(2))
		default:
			v := r.Int63n(2*ilim+1) - ilim
			if wgrtUnsigned(t.DType) {
				v += ilim
			}
			if specials && r.Intn(10) == 0 {
				v = []int64{0, -1, 1, math.MaxInt64, math.MinInt64, 127, -128, 255}[r.Intn(8)]
			}
			ewStoreI(t, i, v)
		}
	}
}

func wgrtUnsigned(d wgrt.DType) bool {
	return d == wgrt.U8 || d == wgrt.U16 || d == wgrt.U32 || d == wgrt.U64
}

func ewStoreF(t wgrt.Tensor, i int, v float64) {
	b := t.Data
	switch t.DType {
	case wgrt.F32:
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(v)))
	case wgrt.F64:
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	case wgrt.F16:
		binary.LittleEndian.PutUint16(b[2*i:], halfBits(v))
	case wgrt.BF16:
		binary.LittleEndian.PutUint16(b[2*i:], uint16(math.Float32bits(float32(v))>>16))
	}
}

// halfBits is v as binary16, truncated (good enough for test inputs).
func halfBits(v float64) uint16 {
	switch {
	case math.IsNaN(v):
		return 0x7e00
	case math.IsInf(v, 1) || v >= 65504:
		return 0x7c00
	case math.IsInf(v, -1) || v <= -65504:
		return 0xfc00
	}
	sign := uint16(0)
	if math.Signbit(v) {
		sign, v = 0x8000, -v
	}
	if v < math.Ldexp(1, -14) {
		return sign | uint16(v*(1<<24))
	}
	frac, exp := math.Frexp(v)
	return sign | uint16(exp-1+15)<<10 | uint16((frac*2-1)*1024)
}

func ewStoreI(t wgrt.Tensor, i int, v int64) {
	b := t.Data
	switch t.DType.Size() {
	case 1:
		b[i] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
}

// ewLoadF reads a float element of any float dtype.
func ewLoadF(t wgrt.Tensor, off int) float64 {
	b := t.Data
	switch t.DType {
	case wgrt.F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*off:])))
	case wgrt.F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b[8*off:]))
	case wgrt.F16:
		return wgrt.HalfToFloat64(binary.LittleEndian.Uint16(b[2*off:]))
	}
	return wgrt.BFloat16ToFloat64(binary.LittleEndian.Uint16(b[2*off:]))
}

// ewTensor is a tensor of shape in one of these layouts: "c" row-major,
// "t" the last two dimensions' storage transposed, "s" every dimension
// strided with gaps (a view of a larger buffer).
func ewTensor(r *rand.Rand, d wgrt.DType, layout string, shape []int, scale float64, ilim int64, specials bool) wgrt.Tensor {
	shape = append([]int(nil), shape...)
	strides := make([]int, len(shape))
	size := 1
	switch {
	case layout == "t" && len(shape) >= 2:
		k := len(shape)
		perm := append([]int(nil), shape...)
		perm[k-2], perm[k-1] = shape[k-1], shape[k-2]
		st := wgrt.RowMajor(make([]int, k), perm)
		copy(strides, st)
		strides[k-2], strides[k-1] = st[k-1], st[k-2]
		size = numEl(shape)
	case layout == "s":
		s := 1
		for i := len(shape) - 1; i >= 0; i-- {
			strides[i] = s * 2
			s *= 2 * max(shape[i], 1)
		}
		size = s
	default:
		wgrt.RowMajor(strides, shape)
		size = numEl(shape)
	}
	t := wgrt.Tensor{DType: d, Shape: shape, Strides: strides, Device: "cpu", Data: make([]byte, max(size, 1)*d.Size())}
	ewFill(r, t, scale, ilim, specials)
	return t
}

func numEl(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// ewCompare runs call through Go and C++ (outputs cloned) and reports
// every disagreement: floats within atol + rtol·|go| (NaN where Go has
// NaN), other dtypes bit for bit.
func ewCompare(t *testing.T, srv *Server, name string, call *wgrt.Call, rtol, atol float64) {
	t.Helper()
	goCall, cCall := *call, *call
	goCall.Outputs, cCall.Outputs = cloneOutputs(call.Outputs), cloneOutputs(call.Outputs)
	goErr := wgref.Call(&goCall)
	cErr := srv.Call(&cCall)
	ewCounts[goErr == nil]++
	if goErr != nil {
		if cErr == nil {
			t.Errorf("%s: Go refuses (%v), C++ does not", name, goErr)
		}
		return
	}
	if cErr != nil {
		t.Errorf("%s: C++ refuses (%v), Go does not", name, cErr)
		return
	}
	bad := 0
	for i := range goCall.Outputs {
		g, c := goCall.Outputs[i], cCall.Outputs[i]
		n := g.NumElements()
		idx := make([]int, len(g.Shape))
		size := g.DType.Size()
		for e := 0; e < n; e++ {
			rem, off := e, 0
			for d := len(g.Shape) - 1; d >= 0; d-- {
				idx[d] = rem % g.Shape[d]
				rem /= g.Shape[d]
				off += idx[d] * g.Strides[d]
			}
			ok := true
			var gv, cv any
			switch g.DType {
			case wgrt.F32, wgrt.F64, wgrt.F16, wgrt.BF16:
				x, y := ewLoadF(g, off), ewLoadF(c, off)
				gv, cv = x, y
				if math.IsNaN(x) {
					ok = math.IsNaN(y)
				} else if math.IsInf(x, 0) {
					ok = x == y
				} else {
					ok = math.Abs(x-y) <= atol+rtol*math.Abs(x)
				}
			default:
				gb, cb := g.Data[off*size:off*size+size], c.Data[off*size:off*size+size]
				gv, cv = fmt.Sprintf("%x", gb), fmt.Sprintf("%x", cb)
				ok = bytes.Equal(gb, cb)
			}
			if !ok {
				bad++
				if bad <= 5 {
					t.Errorf("%s: output %d at %v: Go %v, C++ %v", name, i, idx, gv, cv)
				}
			}
		}
	}
	// The gaps of strided outputs stay as they were.
	for i := range goCall.Outputs {
		if !bytes.Equal(goCall.Outputs[i].Data, cCall.Outputs[i].Data) && goCall.Outputs[i].DType != wgrt.F32 &&
			goCall.Outputs[i].DType != wgrt.F64 && goCall.Outputs[i].DType != wgrt.F16 && goCall.Outputs[i].DType != wgrt.BF16 {
			if bad == 0 {
				t.Errorf("%s: output %d differs outside its elements", name, i)
			}
		}
	}
}

// ewCounts counts the calls compared (true) and refused by Go (false).
var ewCounts = map[bool]int{}

func fattr(name string, v float64) wgrt.Attr {
	return wgrt.Attr{Name: name, Kind: wgrt.AttrFloat, Float: v}
}
func iattr(name string, v int) wgrt.Attr { return wgrt.Attr{Name: name, Kind: wgrt.AttrInt, Int: v} }
func sattr(name, v string) wgrt.Attr     { return wgrt.Attr{Name: name, Kind: wgrt.AttrString, Str: v} }

func TestElementwiseUnary(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(7))
	kernels := map[string][]wgrt.Attr{
		"Abs": nil, "Neg": nil, "Relu": nil, "Sign": nil, "Not": nil, "BitwiseNot": nil,
		"Sigmoid": nil, "Tanh": nil, "Exp": nil, "Log": nil, "Sqrt": nil, "Reciprocal": nil, "Floor": nil, "Ceil": nil,
		"Round": nil, "Erf": nil, "Sin": nil, "Cos": nil, "Tan": nil, "Asin": nil, "Acos": nil, "Atan": nil, "Sinh": nil,
		"Cosh": nil, "Asinh": nil, "Acosh": nil, "Atanh": nil, "Softplus": nil, "Softsign": nil, "HardSwish": nil, "Mish": nil,
		"HardSigmoid":     {fattr("alpha", 0.2), fattr("beta", 0.5)},
		"LeakyRelu":       {fattr("alpha", 0.1)},
		"Elu":             {fattr("alpha", 1.5)},
		"Celu":            {fattr("alpha", 0.7)},
		"ThresholdedRelu": {fattr("alpha", 0.3)},
		"Selu":            {fattr("alpha", 1.67), fattr("gamma", 1.05)},
		"Shrink":          {fattr("bias", 1), fattr("lambd", 2)},
		"Gelu":            nil,
		"GeluTanh":        {sattr("approximate", "tanh")},
		"IsNaN":           nil,
		"IsInf":           nil,
		"IsInfPos":        {iattr("detect_negative", 0)},
		"IsInfNeg":        {iattr("detect_positive", 0)},
		"Clip":            {fattr("min", -0.5), fattr("max", 0.75)},
		"ClipMin":         {fattr("min", -0.5)},
		"ClipNone":        nil,
	}
	kernelOf := map[string]string{"GeluTanh": "Gelu", "IsInfPos": "IsInf", "IsInfNeg": "IsInf", "ClipMin": "Clip", "ClipNone": "Clip"}
	shapes := [][]int{{}, {1}, {7}, {3, 37}, {2, 3, 70}, {4, 1, 5}, {0, 3}}
	for name, attrs := range kernels {
		kernel := name
		if k, ok := kernelOf[name]; ok {
			kernel = k
		}
		for _, d := range ewAllDTypes {
			outD := d
			if kernel == "IsNaN" || kernel == "IsInf" {
				outD = wgrt.Bool
			}
			for _, shape := range shapes {
				for _, layout := range []string{"c", "t", "s"} {
					scale := 3.0
					if kernel == "Exp" || kernel == "Sinh" || kernel == "Cosh" {
						scale = 100
					}
					x := ewTensor(r, d, layout, shape, scale, 50, true)
					outLayout := "c"
					if layout == "t" {
						outLayout = "s"
					}
					out := ewTensor(r, outD, outLayout, shape, 1, 1, false)
					call := &wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x}, Attrs: attrs}
					ewCompare(t, srv, fmt.Sprintf("%s %s %v %s", name, d, shape, layout), call, 1e-5, 1e-6)
				}
			}
		}
	}
	// Clip's bounds from inputs.
	for _, d := range []wgrt.DType{wgrt.F32, wgrt.F64, wgrt.I8, wgrt.I64, wgrt.U8} {
		x := ewTensor(r, d, "c", []int{5, 9}, 3, 50, true)
		lo, hi := ewTensor(r, d, "c", nil, 1, 10, false), ewTensor(r, d, "c", nil, 1, 10, false)
		ewStoreI(lo, 0, 2)
		if d == wgrt.F32 || d == wgrt.F64 {
			ewStoreF(lo, 0, -0.25)
			ewStoreF(hi, 0, 1.25)
		} else {
			ewStoreI(hi, 0, 30)
		}
		out := newTensor(d, 5, 9)
		both := []wgrt.Attr{fattr("min", 0), fattr("max", 0), iattr("min_from_input", 1), iattr("max_from_input", 1)}
		ewCompare(t, srv, "Clip inputs "+d.String(), &wgrt.Call{Kernel: "Clip", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x, lo, hi}, Attrs: both}, 0, 0)
		maxOnly := []wgrt.Attr{fattr("min", -1), iattr("max_from_input", 1)}
		ewCompare(t, srv, "Clip max input "+d.String(), &wgrt.Call{Kernel: "Clip", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x, hi}, Attrs: maxOnly}, 0, 0)
	}
	// Exp, Sigmoid, Tanh, Erf, Gelu in float32 over a wide range, dense.
	for _, k := range []string{"Exp", "Sigmoid", "Tanh", "Erf", "Gelu", "Sqrt", "HardSwish"} {
		x := newTensor(wgrt.F32, 4001)
		for i := 0; i < 4001; i++ {
			binary.LittleEndian.PutUint32(x.Data[4*i:], math.Float32bits(float32(i-2000)*0.06))
		}
		out := newTensor(wgrt.F32, 4001)
		ewCompare(t, srv, "dense "+k, &wgrt.Call{Kernel: k, Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x}}, 1e-5, 1e-6)
	}
}

func TestElementwiseBinary(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(11))
	kernels := map[string][]wgrt.Attr{
		"Add": nil, "Sub": nil, "Mul": nil, "Div": nil, "Max": nil, "Min": nil, "PRelu": nil, "Sum": nil, "Mean": nil,
		"Pow": nil, "Mod": nil, "FMod": {iattr("fmod", 1)},
		"BitwiseAnd": nil, "BitwiseOr": nil, "BitwiseXor": nil, "And": nil, "Or": nil, "Xor": nil,
		"ShiftLeft": {sattr("direction", "LEFT")}, "ShiftRight": {sattr("direction", "RIGHT")},
		"Equal": nil, "Less": nil, "LessOrEqual": nil, "Greater": nil, "GreaterOrEqual": nil,
	}
	kernelOf := map[string]string{"FMod": "Mod", "ShiftLeft": "BitShift", "ShiftRight": "BitShift"}
	compare := map[string]bool{"Equal": true, "Less": true, "LessOrEqual": true, "Greater": true, "GreaterOrEqual": true}
	pairs := [][3][]int{ // a, b, out
		{{3, 37}, {3, 37}, {3, 37}},
		{{4, 37}, {37}, {4, 37}},
		{{4, 37}, {}, {4, 37}},
		{{}, {4, 37}, {4, 37}},
		{{4, 1}, {4, 37}, {4, 37}},
		{{3, 1, 5}, {4, 1}, {3, 4, 5}},
		{{2, 3, 4, 5}, {3, 1, 5}, {2, 3, 4, 5}},
		{{1}, {1}, {1}},
		{{0, 3}, {3}, {0, 3}},
		{{7}, {7}, {7}},
	}
	for name, attrs := range kernels {
		kernel := name
		if k, ok := kernelOf[name]; ok {
			kernel = k
		}
		for _, d := range ewAllDTypes {
			outD := d
			if compare[name] {
				outD = wgrt.Bool
			}
			for _, p := range pairs {
				for _, layout := range []string{"c", "t", "s"} {
					ilim := int64(50)
					if kernel == "BitShift" {
						ilim = int64(d.Size() * 4)
					}
					if kernel == "Pow" {
						ilim = 4
					}
					specials := kernel != "BitShift"
					a := ewTensor(r, d, layout, p[0], 3, ilim, specials)
					b := ewTensor(r, d, "c", p[1], 3, ilim, specials)
					if compare[name] && r.Intn(2) == 0 {
						b = a // equal elements
						if !sameInts(p[0], p[1]) {
							b = ewTensor(r, d, "c", p[1], 3, ilim, specials)
						}
					}
					outLayout := "c"
					if layout == "s" {
						outLayout = "s"
					}
					out := ewTensor(r, outD, outLayout, p[2], 1, 1, false)
					call := &wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{a, b}, Attrs: attrs}
					ewCompare(t, srv, fmt.Sprintf("%s %s %v %v %s", name, d, p[0], p[1], layout), call, 1e-6, 1e-7)
				}
			}
		}
	}
	// Variadic Sum, Mean, Max, Min (and one input).
	for _, k := range []string{"Sum", "Mean", "Max", "Min", "Add", "Mul"} {
		for _, d := range []wgrt.DType{wgrt.F32, wgrt.F64, wgrt.F16, wgrt.I32, wgrt.I64, wgrt.U8} {
			a := ewTensor(r, d, "t", []int{3, 4, 5}, 3, 50, true)
			b := ewTensor(r, d, "c", []int{4, 1}, 3, 50, true)
			c := ewTensor(r, d, "c", []int{5}, 3, 50, true)
			e := ewTensor(r, d, "c", []int{3, 1, 1}, 3, 50, true)
			out := ewTensor(r, d, "s", []int{3, 4, 5}, 1, 1, false)
			ewCompare(t, srv, k+" 4 inputs "+d.String(), &wgrt.Call{Kernel: k, Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{a, b, c, e}}, 1e-6, 1e-7)
			ewCompare(t, srv, k+" 1 input "+d.String(), &wgrt.Call{Kernel: k, Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{b}}, 0, 0)
		}
	}
	// Pow of mixed dtypes, and float32 to a constant power.
	for _, xd := range []wgrt.DType{wgrt.F32, wgrt.F64, wgrt.I32, wgrt.I64} {
		for _, yd := range []wgrt.DType{wgrt.F32, wgrt.F64, wgrt.I32, wgrt.I64, wgrt.U32} {
			x := ewTensor(r, xd, "t", []int{3, 9}, 3, 5, true)
			y := ewTensor(r, yd, "c", []int{9}, 3, 3, false)
			out := newTensor(xd, 3, 9)
			ewCompare(t, srv, fmt.Sprintf("Pow %s %s", xd, yd), &wgrt.Call{Kernel: "Pow", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x, y}}, 1e-6, 1e-7)
		}
	}
	for _, e := range []float64{2, 0.5, 3, -1} {
		x := ewTensor(r, wgrt.F32, "t", []int{5, 33}, 3, 5, true)
		y := newTensor(wgrt.F32)
		ewStoreF(y, 0, e)
		out := ewTensor(r, wgrt.F32, "s", []int{5, 33}, 1, 1, false)
		ewCompare(t, srv, fmt.Sprintf("Pow f32 ^ %v", e), &wgrt.Call{Kernel: "Pow", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x, y}}, 1e-6, 1e-7)
	}
	// Comparisons of mixed dtypes.
	for _, k := range []string{"Equal", "Less", "Greater"} {
		a := ewTensor(r, wgrt.I64, "c", []int{4, 6}, 3, 5, true)
		b := ewTensor(r, wgrt.I32, "c", []int{6}, 3, 5, true)
		out := newTensor(wgrt.Bool, 4, 6)
		ewCompare(t, srv, k+" i64 i32", &wgrt.Call{Kernel: k, Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{a, b}}, 0, 0)
	}
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestElementwiseWhere(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(3))
	shapes := [][4][]int{ // cond, x, y, out
		{{3, 37}, {3, 37}, {3, 37}, {3, 37}},
		{{37}, {4, 37}, {}, {4, 37}},
		{{4, 1}, {1, 37}, {4, 37}, {4, 37}},
		{{2, 1, 5}, {3, 1}, {5}, {2, 3, 5}},
		{{}, {6}, {6}, {6}},
	}
	for _, d := range append(ewAllDTypes, wgrt.C128) {
		for _, s := range shapes {
			for _, layout := range []string{"c", "t", "s"} {
				cond := ewTensor(r, wgrt.Bool, layout, s[0], 1, 1, false)
				x := ewTensor(r, d, layout, s[1], 3, 50, true)
				y := ewTensor(r, d, "c", s[2], 3, 50, true)
				out := ewTensor(r, d, layout, s[3], 1, 1, false)
				if d == wgrt.C128 {
					r.Read(x.Data)
					r.Read(y.Data)
				}
				ewCompare(t, srv, fmt.Sprintf("Where %s %v %s", d, s, layout), &wgrt.Call{Kernel: "Where", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{cond, x, y}}, 0, 0)
			}
		}
	}
	// Mismatched dtypes are refused by both.
	out := newTensor(wgrt.F32, 3)
	err := srv.Call(&wgrt.Call{Kernel: "Where", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{newTensor(wgrt.Bool, 3), newTensor(wgrt.F32, 3), newTensor(wgrt.F64, 3)}})
	require.Error(t, err)
}

func TestElementwiseCast(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(5))
	for _, from := range ewAllDTypes {
		for _, to := range ewAllDTypes {
			for _, layout := range []string{"c", "t", "s"} {
				for _, scale := range []float64{3, 1e5, 1e20} {
					x := ewTensor(r, from, layout, []int{5, 41}, scale, 300, true)
					out := ewTensor(r, to, layout, []int{5, 41}, 1, 1, false)
					name := fmt.Sprintf("Cast %s->%s %s %g", from, to, layout, scale)
					ewCompare(t, srv, name, &wgrt.Call{Kernel: "Cast", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x}}, 0, 0)
					like := newTensor(to, 1)
					ewCompare(t, srv, "Like"+name, &wgrt.Call{Kernel: "CastLike", Outputs: []wgrt.Tensor{out}, Inputs: []wgrt.Tensor{x, like}}, 0, 0)
				}
			}
		}
	}
}

func TestElementwiseZCounts(t *testing.T) {
	t.Logf("elementwise calls compared %d, refused by Go %d", ewCounts[true], ewCounts[false])
}
