package cppref

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// TestRandomMatchesGo: with a seed, the C++ kernels draw Go's numbers
// (the same splitmix64 generator and Box-Muller), in every float dtype;
// without one, values of the right range.
func TestRandomMatchesGo(t *testing.T) {
	srv := startServer(t)
	r := rand.New(rand.NewSource(11))
	seed := wgrt.Attr{Name: "seed", Kind: wgrt.AttrFloat, Float: 3.25}
	for _, d := range []wgrt.DType{wgrt.F32, wgrt.F64, wgrt.F16} {
		shape := []int{3, 1 + r.Intn(40)}
		uni := &wgrt.Call{Kernel: "RandomUniform", Outputs: []wgrt.Tensor{newTensor(d, shape...)},
			Attrs: []wgrt.Attr{{Name: "low", Kind: wgrt.AttrFloat, Float: -2}, {Name: "high", Kind: wgrt.AttrFloat, Float: 5}, seed}}
		compareWithGo(t, srv, uni, 1e-12, 0)
		uni.Kernel = "RandomUniformLike"
		compareWithGo(t, srv, uni, 1e-12, 0)
		norm := &wgrt.Call{Kernel: "RandomNormal", Outputs: []wgrt.Tensor{newTensor(d, shape...)},
			Attrs: []wgrt.Attr{{Name: "mean", Kind: wgrt.AttrFloat, Float: 1}, {Name: "scale", Kind: wgrt.AttrFloat, Float: 2}, seed}}
		compareWithGo(t, srv, norm, 1e-9, 1e-12)
		norm.Kernel = "RandomNormalLike"
		compareWithGo(t, srv, norm, 1e-9, 1e-12)
		p := rcTensor(r, d, 1, shape...)
		for _, out := range []wgrt.DType{d, wgrt.Bool, wgrt.I32} {
			bern := &wgrt.Call{Kernel: "Bernoulli", Inputs: []wgrt.Tensor{p}, Outputs: []wgrt.Tensor{newTensor(out, shape...)}, Attrs: []wgrt.Attr{seed}}
			compareWithGo(t, srv, bern, 0, 0)
		}
	}
	// Unseeded: uniform values in [low, high), two calls differ.
	out := newTensor(wgrt.F32, 1000)
	call := &wgrt.Call{Kernel: "RandomUniform", Outputs: []wgrt.Tensor{out},
		Attrs: []wgrt.Attr{{Name: "low", Kind: wgrt.AttrFloat, Float: 1}, {Name: "high", Kind: wgrt.AttrFloat, Float: 2}}}
	require.NoError(t, srv.Call(call))
	first := append([]byte(nil), call.Outputs[0].Data...)
	sum := 0.0
	for i := 0; i < 1000; i++ {
		v := float64(math.Float32frombits(binary.LittleEndian.Uint32(first[4*i:])))
		require.True(t, v >= 1 && v < 2, fmt.Sprint(v))
		sum += v
	}
	require.InDelta(t, 1.5, sum/1000, 0.05)
	require.NoError(t, srv.Call(call))
	require.NotEqual(t, first, call.Outputs[0].Data)
}
