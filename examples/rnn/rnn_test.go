package rnn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/examples/rnn/wgrt"
)

func randoms(r *rand.Rand, n int) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(r.NormFloat64() * 0.3)
	}
	return xs
}

// reference runs the recurrence directly in float64.
func reference(x, wx, wh, b []float32, batch, steps int) []float64 {
	matmul := func(a []float64, w []float32, m, k, n int) []float64 {
		out := make([]float64, m*n)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				for p := 0; p < k; p++ {
					out[i*n+j] += a[i*k+p] * float64(w[p*n+j])
				}
			}
		}
		return out
	}
	xf := make([]float64, len(x))
	for i, v := range x {
		xf[i] = float64(v)
	}
	xp := matmul(xf, wx, batch, 32, 64)
	h := make([]float64, batch*64)
	for s := 0; s < steps; s++ {
		hw := matmul(h, wh, batch, 64, 64)
		for i := range h {
			h[i] = math.Tanh(hw[i] + xp[i] + float64(b[i%64]))
		}
	}
	for i := range h {
		h[i] += float64(b[i%64])
	}
	return h
}

func TestLoopMatchesDirectComputation(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	wx, wh, b := randoms(r, 32*64), randoms(r, 64*64), randoms(r, 64)
	runner, err := NewRunner(nil, Options{})
	require.NoError(t, err)
	defer runner.Close()
	for _, c := range []struct{ batch, steps int }{{1, 0}, {1, 1}, {4, 8}, {3, 25}} {
		x := randoms(r, c.batch*32)
		in := &Inputs{
			X:  wgrt.FromFloat32s(x, c.batch, 32),
			Wx: wgrt.FromFloat32s(wx, 32, 64), Wh: wgrt.FromFloat32s(wh, 64, 64), B: wgrt.FromFloat32s(b, 64),
			Steps: c.steps,
		}
		want := reference(x, wx, wh, b, c.batch, c.steps)
		out, err := Run(GoKernels{}, nil, in)
		require.NoError(t, err)
		var kept Outputs
		require.NoError(t, runner.Run(GoKernels{}, in, &kept))
		for _, got := range [][]float32{out.Y.Float32s(), kept.Y.Float32s()} {
			require.Len(t, got, len(want))
			for i := range want {
				require.InDelta(t, want[i], float64(got[i]), 1e-4, "batch %d steps %d element %d", c.batch, c.steps, i)
			}
		}
	}
}

func TestStepsOutOfRange(t *testing.T) {
	in := &Inputs{X: wgrt.New(wgrt.F32, 1, 32), Wx: wgrt.New(wgrt.F32, 32, 64), Wh: wgrt.New(wgrt.F32, 64, 64), B: wgrt.New(wgrt.F32, 64), Steps: -1}
	_, err := Run(GoKernels{}, nil, in)
	require.EqualError(t, err, "rnn: symbol steps = -1 is outside [0, 10000]")
}
