package cppref

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// TestServerPrepare: the server's prepare request runs wgref::Prepare on
// an op's constant call and keeps the weights, which the op's later calls
// then read packed: the same bits as an unprepared call, and the same as
// the Go kernels within the products' tolerance.
func TestServerPrepare(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(7))
	for _, tc := range []struct {
		name string
		call func() *wgrt.Call
	}{
		{"MatMul", func() *wgrt.Call {
			a, b := gemmView(r, "row", nil, 9, 70), gemmView(r, "row", nil, 70, 45)
			out := wgrt.Tensor{DType: wgrt.F32, Shape: []int{9, 45}, Strides: []int{45, 1}, Device: "cpu", Data: make([]byte, 4*9*45)}
			return &wgrt.Call{Kernel: "MatMul", Inputs: []wgrt.Tensor{a, b}, Outputs: []wgrt.Tensor{out}}
		}},
		{"Conv", func() *wgrt.Call {
			x := gemmView(r, "row", []int{1, 5}, 11, 13)
			w := gemmView(r, "row", []int{20, 5}, 3, 3)
			out := wgrt.Tensor{DType: wgrt.F32, Shape: []int{1, 20, 11, 13}, Strides: []int{20 * 143, 143, 13, 1}, Device: "cpu", Data: make([]byte, 4*20*143)}
			attrs := []wgrt.Attr{
				{Name: "dilations", Kind: wgrt.AttrInts, Ints: []int{1, 1}},
				{Name: "group", Kind: wgrt.AttrInt, Int: 1},
				{Name: "kernel_shape", Kind: wgrt.AttrInts, Ints: []int{3, 3}},
				{Name: "pads", Kind: wgrt.AttrInts, Ints: []int{1, 1, 1, 1}},
				{Name: "strides", Kind: wgrt.AttrInts, Ints: []int{1, 1}},
			}
			return &wgrt.Call{Kernel: "Conv", Inputs: []wgrt.Tensor{x, w}, Outputs: []wgrt.Tensor{out}, Attrs: attrs}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call := tc.call()
			// The constant call: the weight with its data, the activation
			// with a layout that depends on a symbol (none).
			constant := &wgrt.Call{Kernel: call.Kernel, Inputs: []wgrt.Tensor{{}, call.Inputs[1]}, Attrs: call.Attrs}
			p, n, err := srv.Prepare(constant)
			require.NoError(t, err)
			require.NotNil(t, p, "nothing prepared")
			require.Positive(t, n)

			plain := *call
			plain.Outputs = cloneOutputs(call.Outputs)
			require.NoError(t, srv.Call(&plain))
			packed := *call
			packed.Outputs = cloneOutputs(call.Outputs)
			packed.Prepared = p
			require.NoError(t, srv.Call(&packed))
			require.True(t, bytes.Equal(plain.Outputs[0].Data, packed.Outputs[0].Data), "prepared and plain calls differ")
			call.Prepared = p
			compareWithGo(t, srv, call, 1e-5, 1e-5)

			// The call sends the weight by reference to the server's copy:
			// changed in place after Prepare (which a Runner's contract
			// forbids), the server still reads what it prepared; a copy of
			// the weight elsewhere is sent and packed per call.
			w := call.Inputs[1]
			old := append([]byte(nil), w.Data...)
			for i := 0; i < len(w.Data); i += 4 {
				w.Data[i+3] ^= 0x40 // another exponent: every weight changes
			}
			stale := *call
			stale.Outputs = cloneOutputs(call.Outputs)
			require.NoError(t, srv.Call(&stale))
			require.True(t, bytes.Equal(plain.Outputs[0].Data, stale.Outputs[0].Data), "the server did not read its prepared weights")
			moved := *call
			moved.Inputs = []wgrt.Tensor{call.Inputs[0], w}
			moved.Inputs[1].Data = append([]byte(nil), w.Data...)
			moved.Outputs = cloneOutputs(call.Outputs)
			require.NoError(t, srv.Call(&moved))
			require.False(t, bytes.Equal(plain.Outputs[0].Data, moved.Outputs[0].Data), "a copy of other weights gave the prepared result")
			copy(w.Data, old)
		})
	}
}
