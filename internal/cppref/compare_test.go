package cppref

import (
	"encoding/binary"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// startServer builds (once per source state) and starts the C++ kernels
// for a test, with the options of OptionsFromEnv. It skips unless the
// long tests were asked for.
func startServer(t *testing.T) *Server {
	t.Helper()
	testenv.SkipUnlessLong(t, "it builds the C++ kernels")
	opts := OptionsFromEnv()
	bin, err := Build(opts)
	require.NoError(t, err)
	srv, err := Start(bin, opts.Exec...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// compareWithGo runs call through the Go kernels (wgref.Call) and through
// srv on copies of its outputs' memory, and requires every output element
// to agree: floats within atol + rtol·|go|, NaN where Go has NaN, other
// dtypes exactly. The call's inputs must not alias its outputs.
func compareWithGo(t *testing.T, srv *Server, call *wgrt.Call, rtol, atol float64) {
	t.Helper()
	goCall := *call
	goCall.Outputs = cloneOutputs(call.Outputs)
	cCall := *call
	cCall.Outputs = cloneOutputs(call.Outputs)
	if call.Scratch != nil {
		goCall.Scratch = make([]byte, len(call.Scratch))
		cCall.Scratch = make([]byte, len(call.Scratch))
	}
	goErr := wgref.Call(&goCall)
	cErr := srv.Call(&cCall)
	if goErr != nil {
		require.Error(t, cErr, "%s: Go refuses (%v), C++ does not", call.Kernel, goErr)
		return
	}
	require.NoError(t, cErr, call.Kernel)
	for i := range goCall.Outputs {
		g, c := goCall.Outputs[i], cCall.Outputs[i]
		var idx [8]int
		n := g.NumElements()
		for e := 0; e < n; e++ {
			rem, off := e, 0
			for d := len(g.Shape) - 1; d >= 0; d-- {
				idx[d] = rem % g.Shape[d]
				rem /= g.Shape[d]
				off += idx[d] * g.Strides[d]
			}
			gv, cv := elem(g, off), elem(c, off)
			if g.DType == wgrt.F32 || g.DType == wgrt.F64 {
				if math.IsNaN(gv) {
					require.True(t, math.IsNaN(cv), "%s output %d at %v: Go NaN, C++ %v", call.Kernel, i, idx[:len(g.Shape)], cv)
					continue
				}
				if math.IsInf(gv, 0) {
					require.Equal(t, gv, cv, "%s output %d at %v", call.Kernel, i, idx[:len(g.Shape)])
					continue
				}
				require.LessOrEqual(t, math.Abs(gv-cv), atol+rtol*math.Abs(gv), "%s output %d at %v: Go %v, C++ %v", call.Kernel, i, idx[:len(g.Shape)], gv, cv)
			} else {
				require.Equal(t, gv, cv, "%s output %d at %v", call.Kernel, i, idx[:len(g.Shape)])
			}
		}
	}
}

func cloneOutputs(ts []wgrt.Tensor) []wgrt.Tensor {
	out := make([]wgrt.Tensor, len(ts))
	for i, t := range ts {
		out[i] = t
		out[i].Data = append([]byte(nil), t.Data...)
	}
	return out
}

// elem reads element off of t as a float64 (f32, f64, and integers as
// their values).
func elem(t wgrt.Tensor, off int) float64 {
	b := t.Data
	switch t.DType {
	case wgrt.F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*off:])))
	case wgrt.F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b[8*off:]))
	case wgrt.I64:
		return float64(int64(binary.LittleEndian.Uint64(b[8*off:])))
	case wgrt.I32:
		return float64(int32(binary.LittleEndian.Uint32(b[4*off:])))
	case wgrt.Bool, wgrt.U8:
		return float64(b[off])
	case wgrt.I8:
		return float64(int8(b[off]))
	}
	return float64(binary.LittleEndian.Uint16(b[2*off:]))
}

// randomF32 is a row-major f32 tensor of shape with values in [-1, 1).
func randomF32(r *rand.Rand, shape ...int) wgrt.Tensor {
	t := newTensor(wgrt.F32, shape...)
	for i := 0; i < t.NumElements(); i++ {
		binary.LittleEndian.PutUint32(t.Data[4*i:], math.Float32bits(2*r.Float32()-1))
	}
	return t
}

// newTensor is a zeroed row-major tensor.
func newTensor(d wgrt.DType, shape ...int) wgrt.Tensor {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return wgrt.Tensor{DType: d, Shape: shape, Strides: wgrt.RowMajor(make([]int, len(shape)), shape), Device: "cpu", Data: make([]byte, n*d.Size())}
}

// TestServerRoundTrip checks the protocol on a kernel every build has.
func TestServerRoundTrip(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(1))
	x := randomF32(r, 3, 5)
	call := &wgrt.Call{Kernel: "Identity", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, 3, 5)}, Inputs: []wgrt.Tensor{x}}
	compareWithGo(t, srv, call, 0, 0)
	require.EqualError(t, srv.Call(&wgrt.Call{Kernel: "NoSuchKernel"}), `no reference kernel "NoSuchKernel"`)
}

// TestServerCountsAllocations checks the negative control: with
// WGREF_SERVE_COUNT_ALLOCS=1 a kernel that allocates in a steady call
// fails, one that does not passes.
func TestServerCountsAllocations(t *testing.T) {
	t.Setenv("WGREF_SERVE_COUNT_ALLOCS", "1")
	srv := startServer(t)
	require.ErrorContains(t, srv.Call(&wgrt.Call{Kernel: "serve.Allocate"}), "serve.Allocate: a steady call allocated 1 times")
	r := rand.New(rand.NewSource(1))
	x := randomF32(r, 3, 5)
	require.NoError(t, srv.Call(&wgrt.Call{Kernel: "Identity", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, 3, 5)}, Inputs: []wgrt.Tensor{x}}))
}
