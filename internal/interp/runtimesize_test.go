package interp

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// nonzeroGraph sets k, the number of nonzeros of x [n, 3], at run time;
// later ops see y [2, k] (here negated twice over a view, in a loop).
const nonzeroGraph = `{
  "name": "nz",
  "symbols": {"n": {"hint": 4, "min": 1, "max": 64}, "k": {"bound": "3*n"}},
  "tensors": {
    "x": {"dtype": "f32", "shape": ["n", 3]},
    "y": {"dtype": "i64", "shape": [2, "k"]},
    "y.count": {"dtype": "i64", "shape": []},
    "yt": {"view_of": "y", "shape": ["k", 2], "strides": [1, "k"]},
    "z": {"dtype": "i64", "shape": ["k", 2]}
  },
  "inputs": ["x"],
  "outputs": ["z"],
  "ops": [
    {"kernel": "NonZero", "inputs": ["x"], "outputs": ["y", "y.count"], "sets": {"k": "y.count"}},
    {"kernel": "Neg", "inputs": ["yt"], "outputs": ["z"]}
  ]
}`

// nonzero writes the [2, k] coordinates of x's nonzeros row-major at the
// start of y (laid out at its capacity [2, 3n]) and k to the count.
func nonzeroKernels(calls *[]string) wgrt.KernelFunc {
	return func(c *wgrt.Call) error {
		*calls = append(*calls, fmt.Sprintf("%s%v", c.Kernel, c.Outputs[0].Shape))
		switch c.Kernel {
		case "NonZero":
			x, y, count := c.Inputs[0], c.Outputs[0], c.Outputs[1]
			require := binary.LittleEndian.Uint64(count.Data)
			if int(require) != y.Shape[1] {
				return fmt.Errorf("count holds %d, not the bound %d", require, y.Shape[1])
			}
			var coords [][2]int64
			for i := 0; i < x.Shape[0]; i++ {
				for j := 0; j < 3; j++ {
					if math.Float32frombits(binary.LittleEndian.Uint32(x.Data[4*(3*i+j):])) != 0 {
						coords = append(coords, [2]int64{int64(i), int64(j)})
					}
				}
			}
			k := len(coords)
			for e, cj := range coords {
				binary.LittleEndian.PutUint64(y.Data[8*e:], uint64(cj[0]))
				binary.LittleEndian.PutUint64(y.Data[8*(k+e):], uint64(cj[1]))
			}
			binary.LittleEndian.PutUint64(count.Data, uint64(k))
		case "Neg":
			in, out := c.Inputs[0], c.Outputs[0]
			for i := 0; i < out.Shape[0]; i++ {
				for j := 0; j < out.Shape[1]; j++ {
					v := int64(binary.LittleEndian.Uint64(in.Data[8*(i*in.Strides[0]+j*in.Strides[1]):]))
					binary.LittleEndian.PutUint64(out.Data[8*(i*out.Strides[0]+j*out.Strides[1]):], uint64(-v))
				}
			}
		}
		return nil
	}
}

// An op sets a run-time size: the kernel gets its outputs at the bound,
// later ops and the outputs are shaped by the size it reports, and the
// planned storages hold them.
func TestRunTimeSize(t *testing.T) {
	g, err := graph.Parse("nz.json", []byte(nonzeroGraph))
	require.NoError(t, err)
	k := g.Symbol("k")
	require.True(t, k.RunTime())
	assert.Equal(t, int64(0), k.Min)
	assert.Equal(t, int64(192), k.Max)
	assert.Equal(t, int64(12), k.Hint)
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	m := New(p)
	defer m.Close()

	for _, n := range []int{1, 4, 5} {
		x := wgrt.New(wgrt.F32, n, 3)
		var want [][2]int64
		for e := 0; e < 3*n; e++ {
			if e%3 != 1 && e%4 != 0 {
				binary.LittleEndian.PutUint32(x.Data[4*e:], math.Float32bits(float32(e)))
				want = append(want, [2]int64{int64(e / 3), int64(e % 3)})
			}
		}
		var calls []string
		out, err := m.Run(nonzeroKernels(&calls), nil, []wgrt.Tensor{x})
		require.NoError(t, err)
		assert.Equal(t, []string{fmt.Sprintf("NonZero[2 %d]", 3*n), fmt.Sprintf("Neg[%d 2]", len(want))}, calls)
		z := out[0]
		require.Equal(t, []int{len(want), 2}, z.Shape)
		for i, w := range want {
			for j := range 2 {
				assert.Equal(t, -w[j], int64(binary.LittleEndian.Uint64(z.Data[8*(i*z.Strides[0]+j*z.Strides[1]):])), "n=%d z[%d][%d]", n, i, j)
			}
		}
	}
}

// A kernel that reports a size beyond the bound is an error, not memory
// overrun.
func TestRunTimeSizeBeyondBound(t *testing.T) {
	g, err := graph.Parse("nz.json", []byte(nonzeroGraph))
	require.NoError(t, err)
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	m := New(p)
	defer m.Close()
	_, err = m.Run(func(c *wgrt.Call) error {
		if c.Kernel == "NonZero" {
			binary.LittleEndian.PutUint64(c.Outputs[1].Data, 13)
		}
		return nil
	}, nil, []wgrt.Tensor{wgrt.New(wgrt.F32, 4, 3)})
	assert.EqualError(t, err, "nz: the kernel reported run-time size k = 13, outside [0, 12]")
}

// runTimeFamily has a run-time size k in [0, 2n+1] set by its first op and
// storages shaped by k and by n live across each other.
const runTimeFamily = `{
  "name": "family",
  "symbols": {"n": {"hint": 3, "min": 1, "max": 5}, "k": {"bound": "2*n + 1"}},
  "tensors": {
    "x": {"dtype": "u8", "shape": ["n", 3]},
    "e": {"dtype": "u8", "shape": ["n", 4]},
    "y": {"dtype": "u8", "shape": ["k", 4]},
    "count": {"dtype": "i64", "shape": []},
    "yv": {"view_of": "y", "shape": ["4*k"]},
    "a": {"dtype": "u8", "shape": ["k", 4]},
    "b": {"dtype": "u8", "shape": ["n", 8]},
    "c": {"dtype": "u8", "shape": ["k", 2]},
    "d": {"dtype": "u8", "shape": ["4*k"]},
    "out": {"dtype": "u8", "shape": ["n", 8]}
  },
  "inputs": ["x"],
  "outputs": ["c", "out"],
  "ops": [
    {"kernel": "k0", "inputs": ["x"], "outputs": ["e"]},
    {"kernel": "select", "inputs": ["x"], "outputs": ["y", "count"], "sets": {"k": "count"}},
    {"kernel": "k1", "inputs": ["y"], "outputs": ["a"]},
    {"kernel": "k2", "inputs": ["x"], "outputs": ["b"]},
    {"kernel": "k3", "inputs": ["a", "b"], "outputs": ["c"]},
    {"kernel": "k4", "inputs": ["yv"], "outputs": ["d"]},
    {"kernel": "k5", "inputs": ["b", "d", "e"], "outputs": ["out"]}
  ]
}`

// At every n in range and every value of k the kernel may report, each
// tensor sees the shape k gives and no storage is placed over a live one:
// kernels write a pattern over what they write (the setting op over its
// outputs' whole capacity) and check their inputs hold theirs.
func TestRunTimeSizeEveryValue(t *testing.T) {
	g, err := graph.Parse("family.json", []byte(runTimeFamily))
	require.NoError(t, err)
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	m := New(p)
	defer m.Close()
	root := map[string]string{"yv": "y"}
	for n := 1; n <= 5; n++ {
		for k := 0; k <= 2*n+1; k++ {
			var bad error
			kernels := func(c *wgrt.Call) error {
				for i, in := range c.Inputs {
					name := c.Op.Inputs[i]
					if r, ok := root[name]; ok {
						name = r
					}
					eachByte(in, func(b *byte) {
						if want := pattern(name, uintptr(unsafe.Pointer(b))); *b != want && bad == nil {
							bad = fmt.Errorf("n=%d k=%d: %s: input %s was overwritten", n, k, c.Op.Place, c.Op.Inputs[i])
						}
					})
				}
				for i, out := range c.Outputs {
					if slices.Contains(c.Op.Sets, c.Op.Outputs[i]) {
						binary.LittleEndian.PutUint64(out.Data, uint64(k))
						continue
					}
					if c.Op.Kernel == "select" {
						require.Equal(t, []int{2*n + 1, 4}, out.Shape, "the setting op sees its output at the bound")
					}
					eachByte(out, func(b *byte) { *b = pattern(c.Op.Outputs[i], uintptr(unsafe.Pointer(b))) })
				}
				return nil
			}
			x := wgrt.New(wgrt.U8, n, 3)
			eachByte(x, func(b *byte) { *b = pattern("x", uintptr(unsafe.Pointer(b))) })
			outs, err := m.Run(kernels, nil, []wgrt.Tensor{x})
			require.NoError(t, err, "n=%d k=%d", n, k)
			require.NoError(t, bad)
			assert.Equal(t, []int{k, 2}, outs[0].Shape, "n=%d k=%d", n, k)
			assert.Equal(t, []int{n, 8}, outs[1].Shape, "n=%d k=%d", n, k)
		}
	}
}
