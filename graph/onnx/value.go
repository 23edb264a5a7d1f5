package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// value is one ONNX value (a tensor name) as inference sees it: its dtype and
// symbolic shape, and, when it is computed at import time, its contents.
type value struct {
	name  string
	dtype graph.DType
	shape []expr.Expr

	// Contents known at import time (constants, initializers, shape
	// computations). Integer and bool dtypes keep ints (possibly symbolic);
	// float dtypes keep floats, or only raw for dtypes not decoded.
	known  bool
	ints   []expr.Expr
	floats []float64
	raw    []byte // little-endian contents of a concrete constant, when read from the file

	// most bounds every element of a value computed at run time from
	// above, when its computation proves one (see trackBound).
	most    expr.Expr
	hasMost bool
	// least bounds every element from below, likewise (an integer at
	// most every element).
	least    expr.Expr
	hasLeast bool
	// ratios are the exact values of a float computed from sizes that
	// are not whole numbers (see foldFloatSizes); the value is still
	// computed at run time.
	ratios []ratio
	// inexact says why a size computed from shapes in float arithmetic
	// did not fold: the fix, for the error of an op that needs it.
	inexact string
	// sizeExprs are the elements of a small value computed at run time
	// from sizes, as computations on the symbols (see trackSizeExprs).
	sizeExprs []*sizeExpr

	inDoc bool // the tensor is in the format-v1 document (an input or defined by an op)
	node  int  // index of the defining node; -1 for graph inputs and initializers
	// stored is set for an initializer (or a graph input -params gives):
	// the model's weights, which become params whatever their size.
	stored bool
	// overridable is set for a value whose contents the caller may change
	// without importing again (an initializer that is also a graph input,
	// a -params tensor) and what is computed from it at import time:
	// weightOps do not fold it into a new param.
	overridable bool
}

// onnxDTypes maps TensorProto.DataType to format-v1 dtypes. Types absent
// (string, the fnuz float8 variants, 4-bit types) are refused.
var onnxDTypes = map[int64]graph.DType{
	1: "f32", 2: "u8", 3: "i8", 4: "u16", 5: "i16", 6: "i32", 7: "i64", 9: "bool",
	10: "f16", 11: "f64", 12: "u32", 13: "u64", 14: "c64", 15: "c128", 16: "bf16",
	17: "f8e4m3fn", 19: "f8e5m2",
}

var onnxTypeNames = map[int64]string{8: "string", 18: "float8e4m3fnuz", 20: "float8e5m2fnuz", 21: "uint4", 22: "int4"}

func dtypeOf(t int64) (graph.DType, error) {
	if d, ok := onnxDTypes[t]; ok {
		return d, nil
	}
	if n, ok := onnxTypeNames[t]; ok {
		return "", fmt.Errorf("element type %s has no format-v1 dtype", n)
	}
	return "", fmt.Errorf("unknown element type %d", t)
}

func isIntDType(d graph.DType) bool {
	switch d {
	case "bool", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64":
		return true
	}
	return false
}

func isFloatDType(d graph.DType) bool { return d == "f32" || d == "f64" }

// concrete returns the shape as integers when every size is a constant.
func concrete(shape []expr.Expr) ([]int64, bool) {
	out := make([]int64, len(shape))
	for i, s := range shape {
		c, ok := s.IsConst()
		if !ok {
			return nil, false
		}
		out[i] = c
	}
	return out, true
}

func numel(shape []int64) int64 {
	n := int64(1)
	for _, s := range shape {
		n *= s
	}
	return n
}

func consts(xs []int64) []expr.Expr {
	out := make([]expr.Expr, len(xs))
	for i, x := range xs {
		out[i] = expr.Const(x)
	}
	return out
}

// maxKnownElems bounds the tensors inference keeps contents of: shape
// computations are small; larger constants are kept only as raw bytes.
const maxKnownElems = 1 << 20

// tensorValue decodes a TensorProto (an initializer or a Constant's value).
func tensorValue(t *tensorProto) (*value, error) {
	if t.external {
		return nil, fmt.Errorf("unsupported: tensor %q keeps its data in an external file", t.name)
	}
	if t.segment {
		return nil, fmt.Errorf("unsupported: tensor %q is segmented", t.name)
	}
	d, err := dtypeOf(t.dataType)
	if err != nil {
		return nil, fmt.Errorf("unsupported: tensor %q: %v", t.name, err)
	}
	n := int64(1)
	for _, s := range t.dims {
		if s < 0 {
			return nil, fmt.Errorf("tensor %q has a negative size %d", t.name, s)
		}
		if s > 0 && n > maxDim/s {
			return nil, fmt.Errorf("tensor %q: dims %v hold more than the %d elements wrapgen plans for", t.name, t.dims, int64(maxDim))
		}
		n *= s
	}
	// onnx.checker: one and only one value field.
	if typed := typedFields(t); t.hasRaw && len(typed) > 0 {
		return nil, fmt.Errorf("tensor %q has both raw_data and %s: which holds its values is ambiguous", t.name, strings.Join(typed, ", "))
	} else if len(typed) > 1 {
		return nil, fmt.Errorf("tensor %q has data in %s: which holds its values is ambiguous", t.name, strings.Join(typed, " and "))
	}
	v := &value{name: t.name, dtype: d, shape: consts(t.dims), known: true, node: -1}
	size := d.Size()
	if t.hasRaw {
		if int64(len(t.rawData)) != n*size {
			return nil, fmt.Errorf("tensor %q: raw_data has %d bytes, want %d for %d %s elements", t.name, len(t.rawData), n*size, n, d)
		}
		v.raw = t.rawData
		if n <= maxKnownElems {
			decodeRaw(v, n)
		}
		return v, nil
	}
	var have int
	switch d {
	case "f32":
		have = len(t.floatData)
		for _, f := range t.floatData {
			v.floats = append(v.floats, float64(f))
		}
	case "f64":
		have = len(t.doubleData)
		v.floats = t.doubleData
	case "i64":
		have = len(t.int64Data)
		for _, x := range t.int64Data {
			v.ints = append(v.ints, expr.Const(x))
		}
	case "u32", "u64":
		have = len(t.uint64Data)
		for _, x := range t.uint64Data {
			if x > math.MaxInt64 {
				return nil, fmt.Errorf("unsupported: tensor %q holds %d, beyond int64", t.name, x)
			}
			v.ints = append(v.ints, expr.Const(int64(x)))
		}
	case "bool", "i8", "u8", "i16", "u16", "i32":
		have = len(t.int32Data)
		for _, x := range t.int32Data {
			v.ints = append(v.ints, expr.Const(int64(x)))
		}
	case "f16", "bf16":
		// Stored as their bit patterns in int32_data.
		have = len(t.int32Data)
		v.raw = make([]byte, 0, 2*have)
		for _, x := range t.int32Data {
			v.raw = binary.LittleEndian.AppendUint16(v.raw, uint16(x))
		}
		return v, checkCount(t.name, have, n)
	default:
		return nil, fmt.Errorf("unsupported: tensor %q: %s data outside raw_data", t.name, d)
	}
	return v, checkCount(t.name, have, n)
}

// typedFields names the typed data fields a TensorProto fills.
func typedFields(t *tensorProto) []string {
	var names []string
	for _, f := range []struct {
		name string
		n    int
	}{{"float_data", len(t.floatData)}, {"int32_data", len(t.int32Data)}, {"int64_data", len(t.int64Data)},
		{"uint64_data", len(t.uint64Data)}, {"double_data", len(t.doubleData)}, {"string_data", len(t.stringData)}} {
		if f.n > 0 {
			names = append(names, f.name)
		}
	}
	return names
}

func checkCount(name string, have int, want int64) error {
	if int64(have) != want {
		return fmt.Errorf("tensor %q holds %d elements, its dims say %d", name, have, want)
	}
	return nil
}

// decodeRaw fills ints or floats from raw little-endian bytes.
func decodeRaw(v *value, n int64) {
	b := v.raw
	switch v.dtype {
	case "f32":
		v.floats = make([]float64, n)
		for i := range v.floats {
			v.floats[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		}
	case "f64":
		v.floats = make([]float64, n)
		for i := range v.floats {
			v.floats[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
	case "bool", "u8":
		v.ints = make([]expr.Expr, n)
		for i := range v.ints {
			v.ints[i] = expr.Const(int64(b[i]))
		}
	case "i8":
		v.ints = make([]expr.Expr, n)
		for i := range v.ints {
			v.ints[i] = expr.Const(int64(int8(b[i])))
		}
	case "i16":
		v.ints = make([]expr.Expr, n)
		for i := range v.ints {
			v.ints[i] = expr.Const(int64(int16(binary.LittleEndian.Uint16(b[2*i:]))))
		}
	case "u16":
		v.ints = make([]expr.Expr, n)
		for i := range v.ints {
			v.ints[i] = expr.Const(int64(binary.LittleEndian.Uint16(b[2*i:])))
		}
	case "i32":
		v.ints = make([]expr.Expr, n)
		for i := range v.ints {
			v.ints[i] = expr.Const(int64(int32(binary.LittleEndian.Uint32(b[4*i:]))))
		}
	case "u32":
		v.ints = make([]expr.Expr, n)
		for i := range v.ints {
			v.ints[i] = expr.Const(int64(binary.LittleEndian.Uint32(b[4*i:])))
		}
	case "i64", "u64":
		v.ints = make([]expr.Expr, n)
		for i := range v.ints {
			v.ints[i] = expr.Const(int64(binary.LittleEndian.Uint64(b[8*i:])))
		}
	}
}

// bytesOf is the little-endian contents of a known, concrete value: what a
// weights file stores for it. ok is false when a content is symbolic.
func bytesOf(v *value) ([]byte, bool) {
	if v.raw != nil {
		return v.raw, true
	}
	size := v.dtype.Size()
	var b []byte
	switch {
	case v.floats != nil || (v.ints == nil && !isIntDType(v.dtype)):
		for _, f := range v.floats {
			switch v.dtype {
			case "f32":
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(f)))
			case "f64":
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
			default:
				return nil, false
			}
		}
	default:
		for _, e := range v.ints {
			c, ok := e.IsConst()
			if !ok {
				return nil, false
			}
			switch size {
			case 1:
				b = append(b, byte(c))
			case 2:
				b = binary.LittleEndian.AppendUint16(b, uint16(c))
			case 4:
				b = binary.LittleEndian.AppendUint32(b, uint32(c))
			case 8:
				b = binary.LittleEndian.AppendUint64(b, uint64(c))
			}
		}
	}
	if b == nil {
		b = []byte{}
	}
	return b, true
}

// DecodeTensor reads a serialized TensorProto (a node test's input_0.pb,
// say) into its dtype, shape and little-endian contents.
func DecodeTensor(data []byte) (Weight, error) {
	t, err := readTensor(msg{data, 0})
	if err != nil {
		return Weight{}, err
	}
	v, err := tensorValue(t)
	if err != nil {
		return Weight{}, err
	}
	b, ok := bytesOf(v)
	if !ok {
		return Weight{}, fmt.Errorf("tensor %q: contents not decoded", t.name)
	}
	return Weight{Name: t.name, DType: v.dtype, Shape: t.dims, Data: b}, nil
}
