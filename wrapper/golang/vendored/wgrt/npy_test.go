package wgrt

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// .npy files round-trip every dtype numpy has, strided tensors are
// written in row-major order, and the data starts at a multiple of 64.
func TestNpyRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, dt := range []DType{Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, F32, F64, C64, C128} {
		for _, shape := range [][]int{{2, 3}, {5}, {}, {0, 4}} {
			x := New(dt, shape...)
			r.Read(x.Data)
			if dt == Bool {
				for i := range x.Data {
					x.Data[i] &= 1
				}
			}
			data, err := WriteNpy(x)
			require.NoError(t, err, dt)
			hlen := int(binary.LittleEndian.Uint16(data[8:]))
			assert.Zero(t, (10+hlen)%64, "%s %v: data aligned", dt, shape)
			y, err := ReadNpy("x.npy", data)
			require.NoError(t, err, dt)
			assert.Equal(t, x.DType, y.DType)
			assert.Equal(t, x.Shape, y.Shape)
			assert.Equal(t, x.Strides, y.Strides)
			assert.Equal(t, "cpu", y.Device)
			assert.Equal(t, x.Data, y.Data, "%s %v", dt, shape)
		}
	}
	// A transposed view is written as the values it shows.
	x := View([]int32{1, 2, 3, 4, 5, 6}, 2, 3)
	xt := Tensor{DType: I32, Shape: []int{3, 2}, Strides: []int{1, 3}, Device: "cpu", Data: x.Data}
	data, err := WriteNpy(xt)
	require.NoError(t, err)
	y, err := ReadNpy("t.npy", data)
	require.NoError(t, err)
	assert.Equal(t, []int32{1, 4, 2, 5, 3, 6}, y.Int32s())
	// So is a broadcast one (stride 0), and nil strides are row-major.
	data, err = WriteNpy(Tensor{DType: I32, Shape: []int{2, 3}, Strides: []int{0, 1}, Data: x.Data[:12]})
	require.NoError(t, err)
	y, err = ReadNpy("b.npy", data)
	require.NoError(t, err)
	assert.Equal(t, []int32{1, 2, 3, 1, 2, 3}, y.Int32s())
	data, err = WriteNpy(Tensor{DType: I32, Shape: []int{3, 2}, Data: x.Data})
	require.NoError(t, err)
	y, err = ReadNpy("n.npy", data)
	require.NoError(t, err)
	assert.Equal(t, []int{3, 2}, y.Shape)
	assert.Equal(t, []int32{1, 2, 3, 4, 5, 6}, y.Int32s())
}

// The header numpy writes, byte for byte: numpy.save(f, np.zeros((2, 3),
// np.float32)) and of shape (5,), whose tuple has its trailing comma.
func TestNpyHeaderIsNumpys(t *testing.T) {
	data, err := WriteNpy(New(F32, 2, 3))
	require.NoError(t, err)
	dict := "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
	want := "\x93NUMPY\x01\x00v\x00" + dict + strings.Repeat(" ", 128-10-len(dict)-1) + "\n" // 'v' = 118 bytes of header
	assert.Equal(t, want, string(data[:128]))
	data, err = WriteNpy(New(U8, 5))
	require.NoError(t, err)
	assert.Contains(t, string(data[:128]), "{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }")
}

// numpy has no bfloat16 or float8: they are written as their exact
// float32 values.
func TestNpyWritesNarrowFloatsAsFloat32(t *testing.T) {
	for _, c := range []struct {
		dt   DType
		bits []byte
		want []float32
	}{
		{BF16, []byte{0xc0, 0x3f, 0x80, 0xc0, 0x80, 0x7f, 0x01, 0x00}, []float32{1.5, -4, float32(math.Inf(1)), math.Float32frombits(1 << 16)}},
		// e5m2: 0x3c is 1, 0xc2 -3, 0x7c +inf, 0x01 the smallest subnormal 2^-16.
		{F8E5M2, []byte{0x3c, 0xc2, 0x7c, 0x01}, []float32{1, -3, float32(math.Inf(1)), 1.0 / 65536}},
		// e4m3fn: 0x38 is 1, 0xc4 -3, 0x7e 448 (the largest), 0x01 2^-9.
		{F8E4M3FN, []byte{0x38, 0xc4, 0x7e, 0x01}, []float32{1, -3, 448, 1.0 / 512}},
	} {
		x := FromBytes(c.dt, c.bits, 4)
		data, err := WriteNpy(x)
		require.NoError(t, err, c.dt)
		y, err := ReadNpy("x.npy", data)
		require.NoError(t, err, c.dt)
		assert.Equal(t, F32, y.DType)
		assert.Equal(t, c.want, y.Float32s(), c.dt.String())
	}
	assert.True(t, math.IsNaN(Float8E4M3FNToFloat64(0x7f)))
	assert.True(t, math.IsNaN(Float8E4M3FNToFloat64(0xff)))
	assert.Equal(t, 240.0, Float8E4M3FNToFloat64(0x77), "exponent 14, all fraction bits: a number, not a NaN")
}

// A header longer than version 1.0's 16-bit length is written as 2.0,
// which the reader reads back.
func TestNpyLongHeaderIsVersion2(t *testing.T) {
	shape := make([]int, 30000)
	for i := range shape {
		shape[i] = 1
	}
	data, err := WriteNpy(New(I16, shape...))
	require.NoError(t, err)
	assert.Equal(t, byte(2), data[6])
	assert.Zero(t, (12+int(binary.LittleEndian.Uint32(data[8:])))%64)
	y, err := ReadNpy("long.npy", data)
	require.NoError(t, err)
	assert.Equal(t, shape, y.Shape)
}

func TestNpyErrors(t *testing.T) {
	x := View([]float32{1, 2}, 2)
	good, err := WriteNpy(x)
	require.NoError(t, err)
	v2 := append([]byte("\x93NUMPY\x02\x00"), good[8:]...)
	for _, c := range []struct {
		data []byte
		want string
	}{
		{[]byte("hello"), "not a .npy file"},
		{[]byte("\x93NUMPY\x04\x00\x10\x00{}"), "unsupported .npy version 4"},
		{v2[:11], "truncated header"},
		{good[:40], "header runs past the end of the file"},
		{bytes.Replace(good, []byte("'<f4'"), []byte("'>f4'"), 1), "big-endian"},
		{bytes.Replace(good, []byte("'<f4'"), []byte("'|O8'"), 1), `dtype "|O8"`},
		{bytes.Replace(good, []byte("'<f4'"), []byte("'<V2'"), 1), `dtype "<V2" is raw bytes (how numpy saves ml_dtypes' bfloat16 and float8): save it as float32`},
		{good[:len(good)-2], "6 bytes of data for shape [2] of f32, want 8"},
		// numpy refuses a fortran_order that is not a bool.
		{bytes.Replace(good, []byte("False"), []byte("1    "), 1), "header: fortran_order is 1, not True or False"},
		// numpy takes the last of a repeated key; which was meant is unclear.
		{bytes.Replace(good, []byte("'fortran_order': False,"), []byte("'descr':'<i4',         "), 1), `header: key "descr" is given twice`},
		{bytes.Replace(good, []byte("'fortran_order': False,"), []byte("'fortran_orden': False,"), 1), `header: no "fortran_order" key`},
		{npyWithHeader("{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (2,), }", 16),
			"header: descr is a structured dtype (a record of named fields), which wrapgen does not read"},
		{npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 'x'), }", 8), "header: shape [2 x]: each size is an integer"},
		{npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }", 8), "header: shape [2 -1]: each size is an integer"},
		{npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }", 8), "bad shape"},
		{npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } junk", 8), "header: unexpected"},
		{npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'unknown': 1}", 8), `header: unknown key "unknown"`},
		{npyWithHeader("{'descr': '<f4\\", 8), "header: unterminated string"},
		{npyWithHeader("[1, 2]", 8), "header: not a dict"},
	} {
		_, err := ReadNpy("in.npy", c.data)
		require.Error(t, err, c.want)
		assert.True(t, strings.HasPrefix(err.Error(), "in.npy: "), err.Error())
		assert.Contains(t, err.Error(), c.want)
	}
	// Version 2.0 headers read as 1.0's.
	y, err := ReadNpy("v2.npy", append(append([]byte("\x93NUMPY\x02\x00"), binary.LittleEndian.AppendUint32(nil, uint32(binary.LittleEndian.Uint16(good[8:])))...), good[10:]...))
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2}, y.Float32s())

	for _, c := range []struct {
		t    Tensor
		want string
	}{
		{Tensor{DType: F32, Shape: []int{4}, Strides: []int{1}, Data: make([]byte, 12)}, "a f32 tensor of shape [4] and strides [1] spans 16 bytes but has 12"},
		{Tensor{DType: F32, Shape: []int{4}, Strides: []int{1, 1}, Data: make([]byte, 16)}, "a tensor of shape [4] has 2 strides"},
		{Tensor{DType: DType(200), Shape: []int{1}, Data: make([]byte, 16)}, "dtype dtype(?) has no .npy form"},
		{Tensor{DType: F32, Shape: []int{-1}, Strides: []int{1}}, "bad shape [-1]"},
	} {
		_, err := WriteNpy(c.t)
		assert.EqualError(t, err, c.want)
	}
}

// npyWithHeader is a version 1.0 .npy file with the given header and n
// zero bytes of data.
func npyWithHeader(header string, n int) []byte {
	header += "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = append(b, byte(len(header)), byte(len(header)>>8))
	return append(append(b, header...), make([]byte, n)...)
}

// A Fortran-order file (written by numpy.save of numpy.asfortranarray:
// testdata/fortran.npy, i32 [2 3 4] holding 100i + 10j + k) is read in its
// element order.
func TestNpyFortranOrder(t *testing.T) {
	data, err := os.ReadFile("testdata/fortran.npy")
	require.NoError(t, err)
	require.Contains(t, string(data[:80]), "'fortran_order': True")
	x, err := ReadNpy("fortran.npy", data)
	require.NoError(t, err)
	assert.Equal(t, []int{2, 3, 4}, x.Shape)
	var want []int32
	for i := 0; i < 2; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 4; k++ {
				want = append(want, int32(100*i+10*j+k))
			}
		}
	}
	assert.Equal(t, want, x.Int32s())
	// A one-dimensional or size-0 Fortran array is its row-major self.
	one := npyWithHeader("{'descr': '<i2', 'fortran_order': True, 'shape': (3,), }", 0)
	x, err = ReadNpy("one.npy", append(one, 1, 0, 2, 0, 3, 0))
	require.NoError(t, err)
	assert.Equal(t, []int16{1, 2, 3}, x.Int16s())
	x, err = ReadNpy("empty.npy", npyWithHeader("{'descr': '<i2', 'fortran_order': True, 'shape': (0, 3), }", 0))
	require.NoError(t, err)
	assert.Equal(t, []int{0, 3}, x.Shape)
}

// LoadNpy reads what SaveNpy writes; errors name the file.
func TestNpyFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.npy")
	require.NoError(t, SaveNpy(path, View([]float64{0.5, -1, 2}, 3, 1)))
	x, err := LoadNpy(path)
	require.NoError(t, err)
	assert.Equal(t, []int{3, 1}, x.Shape)
	assert.Equal(t, []float64{0.5, -1, 2}, x.Float64s())
	require.NoError(t, os.WriteFile(path, []byte("not numpy"), 0o644))
	_, err = LoadNpy(path)
	assert.EqualError(t, err, path+": not a .npy file (no \\x93NUMPY magic)")
	err = SaveNpy(path, Tensor{DType: F32, Shape: []int{2}, Data: make([]byte, 4)})
	assert.EqualError(t, err, path+": a f32 tensor of shape [2] and strides [1] spans 8 bytes but has 4")
	_, err = LoadNpy(filepath.Join(t.TempDir(), "missing.npy"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
