package wgrt

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
)

// paramsProgram has one input x f32 [3] (tensor 0) and two params: w f32 [2, 3]
// (tensor 1) and b i64 [3] (tensor 2), and a constant c u8 [2] (tensor 3).
func paramsProgram() *Program {
	return &Program{Graph: "g", Devices: []string{"cpu"}, Plans: []Plan{{}},
		Code: []int{
			intConst, 2, 0, // v0
			intConst, 3, 0, // v1
			intConst, 1, 0, // v2
			intConst, 0, 0, // v3
		},
		Tensors:    []int32{int32(F32), 0, 1, 0, int32(F32), 0, 2, 2, int32(I64), 0, 1, 6, int32(U8), 0, 1, 8},
		Dims:       []int32{1, 2, 0, 1, 1, 2, 1, 2, 0, 2},
		Inputs:     []int32{0},
		InputNames: []string{"x"},
		Params:     []int32{1, 2}, ParamNames: []string{"w", "b"},
		Constants: []int32{3}, ConstData: [][]byte{{7, 9}},
		InputViews: []int32{3, 3, 3, 0}, // c views bytes [0, 2) of source 3 (the constant)
	}
}

func TestCollectParamsReportsEveryProblemAtOnce(t *testing.T) {
	p := paramsProgram()
	var w, b Tensor
	err := CollectParams(p, map[string]Tensor{
		"w":     New(I32, 2, 3), // mis-typed
		"extra": New(F32, 1),
	}, []*Tensor{&w, &b})
	require.Error(t, err)
	var m *MismatchError
	require.ErrorAs(t, err, &m)
	assert.Equal(t, []string{"param w: dtype is i32, want f32", "param b is missing", "tensor extra is not a param of graph g"}, m.Problems)
	assert.Contains(t, err.Error(), "g: 3 problems with the params:\n\tparam w")

	err = CollectParams(p, map[string]Tensor{"w": New(F32, 3, 2), "b": New(I64, 3)}, []*Tensor{&w, &b})
	assert.EqualError(t, err, "g: param w: shape is [3, 2], want [2, 3] (dimension 0)")

	wt, bt := View([]float32{1, 2, 3, 4, 5, 6}, 2, 3), View([]int64{7, 8, 9}, 3)
	require.NoError(t, CollectParams(p, map[string]Tensor{"w": wt, "b": bt}, []*Tensor{&w, &b}))
	assert.Same(t, &wt.Data[0], &w.Data[0], "no copy")
}

func TestBindParamsNamesUnsetParams(t *testing.T) {
	p := paramsProgram()
	f := NewFrame(p, 0)
	err := f.BindParams(p, []*Tensor{{}, {}})
	assert.EqualError(t, err, "g: 2 problems with the params:\n\tparam w is not set\n\tparam b is not set")
	w, b := New(F32, 2, 3), New(I64, 3)
	require.NoError(t, f.BindParams(p, []*Tensor{&w, &b}))
	assert.Equal(t, []byte{7, 9}, f.In[3], "the constant is in place from the start")
}

func TestBindInputsNamesAnUnsetInput(t *testing.T) {
	p := paramsProgram()
	f := NewFrame(p, 0)
	f.Layout(p)
	assert.EqualError(t, f.BindInputs(p, []*Tensor{{}}), "g: input x is not set")
	x := New(F32, 3)
	require.NoError(t, f.BindInputs(p, []*Tensor{&x}))
	assert.Equal(t, []byte{7, 9}, f.T[3].Data, "the constant's tensor views its data")
}

func TestPickByName(t *testing.T) {
	ts, err := PickByName("g", "input", []string{"a", "b"}, map[string]Tensor{"b": New(U8, 1), "a": New(I8, 2)})
	require.NoError(t, err)
	assert.Equal(t, I8, ts[0].DType)
	_, err = PickByName("g", "input", []string{"a", "b"}, map[string]Tensor{"b": New(U8, 1), "zz": New(I8, 2)})
	assert.EqualError(t, err, "g: 2 problems with the inputs:\n\tinput a is missing\n\tzz is not an input of graph g")
}

func TestViewEveryDType(t *testing.T) {
	assert.Equal(t, Bool, View([]bool{true}, 1).DType)
	assert.Equal(t, U16, View([]uint16{1}, 1).DType)
	assert.Equal(t, C128, View([]complex128{1}, 1).DType)
	x := View([]int32{1, 2, 3, 4, 5, 6}, 2, 3)
	assert.Equal(t, []int{3, 1}, x.Strides)
	assert.Equal(t, int32(6), x.Int32s()[5])
	h := FromBytes(F16, []byte{0, 0x3c}, 1)
	assert.Equal(t, uint16(0x3c00), h.Halfs()[0])
}

// The runtime numbers dtypes as format v1 lists them (emit writes that
// number into the tables).
func TestDTypesMatchTheFormat(t *testing.T) {
	require.Len(t, dtypeNames, len(graph.DTypes))
	for i, d := range graph.DTypes {
		assert.Equal(t, string(d), DType(i).String())
		assert.Equal(t, int(d.Size()), DType(i).Size(), string(d))
	}
}

// Float64At reads every numeric dtype; half floats decode exactly.
func TestFloat64At(t *testing.T) {
	assert.Equal(t, -2.0, View([]int8{-2}, 1).Float64At(0))
	assert.Equal(t, 65535.0, View([]uint16{65535}, 1).Float64At(0))
	assert.Equal(t, 1.0, View([]bool{true}, 1).Float64At(0))
	assert.Equal(t, 0.5, View([]float32{0.5}, 1).Float64At(0))
	assert.Equal(t, 65504.0, FromBytes(F16, []byte{0xff, 0x7b}, 1).Float64At(0), "f16's largest")
	assert.Equal(t, 1.0, FromBytes(BF16, []byte{0x80, 0x3f}, 1).Float64At(0))
	assert.Equal(t, 5.960464477539063e-08, HalfToFloat64(1), "the smallest subnormal")
}

// Sizes computed from symbols are checked: a symbol value that makes one
// overflow is an error naming the symbols, never a wrapped size.
func TestLayoutRefusesOverflow(t *testing.T) {
	p := &Program{Graph: "g", SymbolNames: []string{"n"}, Devices: []string{"cpu"}, Plans: []Plan{{}},
		Code: []int{
			intSym, 0, 0, // v0 = n
			intConst, 16, 0, // v1 = 16
			intMul, 0, 1, // v2 = 16n (bytes)
		},
		Tensors: []int32{int32(F32), 0, 1, 0}, Dims: []int32{0, 1}}
	f := NewFrame(p, 1)
	f.Sym[0] = 1 << 62
	err := f.Layout(p)
	require.Error(t, err)
	assert.Equal(t, "g: at n=4611686018427387904 the sizes do not fit an int (value 2 of the plan overflows or divides by zero)", err.Error())
	f.Sym[0] = 8
	require.NoError(t, f.Layout(p))
	assert.Equal(t, 128, f.Vals[2])
}

// An input's byte size is computed with overflow checks.
func TestCheckTensorExtentOverflow(t *testing.T) {
	x := Tensor{DType: F32, Shape: []int{1 << 62, 4}, Strides: []int{4, 1}, Device: "cpu"}
	err := CheckTensor("x", x, F32, "cpu", x.Shape, x.Strides)
	assert.EqualError(t, err, "x: shape [4611686018427387904, 4] needs more bytes than an int holds")
}

// The CPU allocator refuses what it cannot give rather than crash the
// process.
func TestCPURefusesHugeAllocations(t *testing.T) {
	_, err := CPU{}.Alloc(64<<40, 64)
	assert.ErrorContains(t, err, "more than wgrt.MaxCPUBytes")
}
