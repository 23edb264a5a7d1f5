package mlp

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/examples/mlp/wgrt"
)

type model struct {
	w1, b1, w2, b2, w3, b3 []float32
}

func newModel(seed uint64) *model {
	r := rand.New(rand.NewPCG(seed, 1))
	fill := func(n int) []float32 {
		xs := make([]float32, n)
		for i := range xs {
			xs[i] = float32(r.NormFloat64() * 0.1)
		}
		return xs
	}
	return &model{fill(784 * 128), fill(128), fill(128 * 64), fill(64), fill(64 * 10), fill(10)}
}

func (m *model) inputs(x []float32, batch int) *Inputs {
	return &Inputs{
		X:  wgrt.FromFloat32s(x, batch, 784),
		W1: wgrt.FromFloat32s(m.w1, 784, 128), B1: wgrt.FromFloat32s(m.b1, 128),
		W2: wgrt.FromFloat32s(m.w2, 128, 64), B2: wgrt.FromFloat32s(m.b2, 64),
		W3: wgrt.FromFloat32s(m.w3, 64, 10), B3: wgrt.FromFloat32s(m.b3, 10),
	}
}

// reference computes the MLP directly, in float64, with no wrapper.
func (m *model) reference(x []float32, batch int) []float64 {
	layer := func(in []float64, w, b []float32, k, n int, relu bool) []float64 {
		out := make([]float64, batch*n)
		for i := 0; i < batch; i++ {
			for j := 0; j < n; j++ {
				s := float64(b[j])
				for p := 0; p < k; p++ {
					s += in[i*k+p] * float64(w[p*n+j])
				}
				if relu {
					s = math.Max(s, 0)
				}
				out[i*n+j] = s
			}
		}
		return out
	}
	in := make([]float64, len(x))
	for i, v := range x {
		in[i] = float64(v)
	}
	h := layer(layer(in, m.w1, m.b1, 784, 128, true), m.w2, m.b2, 128, 64, true)
	z := layer(h, m.w3, m.b3, 64, 10, false)
	for i := 0; i < batch; i++ {
		row := z[i*10 : (i+1)*10]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = math.Max(mx, v)
		}
		sum := 0.0
		for j, v := range row {
			row[j] = math.Exp(v - mx)
			sum += row[j]
		}
		for j := range row {
			row[j] /= sum
		}
	}
	return z
}

func randomX(batch int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 2))
	x := make([]float32, batch*784)
	for i := range x {
		x[i] = float32(r.Float64())
	}
	return x
}

func assertClose(t *testing.T, want []float64, got []float32) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.InDelta(t, want[i], float64(got[i]), 1e-4, "element %d", i)
	}
}

func TestRunMatchesDirectComputation(t *testing.T) {
	m := newModel(1)
	for _, batch := range []int{1, 8, 100} {
		x := randomX(batch, uint64(batch))
		out, err := Run(GoKernels{}, nil, m.inputs(x, batch))
		require.NoError(t, err, "batch %d", batch)
		assert.Equal(t, []int{batch, 10}, out.Y.Shape)
		assertClose(t, m.reference(x, batch), out.Y.Float32s())
	}
}

func TestRunnerGrowsAndReuses(t *testing.T) {
	m := newModel(2)
	r, err := NewRunner(nil, Options{})
	require.NoError(t, err)
	defer r.Close()
	// Batch sizes up and down on one Runner: pools grow, then are reused.
	for _, batch := range []int{2, 50, 3, 50, 1} {
		x := randomX(batch, uint64(batch)+7)
		var out Outputs
		require.NoError(t, r.Run(GoKernels{}, m.inputs(x, batch), &out))
		assertClose(t, m.reference(x, batch), out.Y.Float32s())
	}
}

func TestCallerOutputBuffer(t *testing.T) {
	m := newModel(3)
	x := randomX(4, 4)
	y := make([]float32, 4*10)
	out := Outputs{Y: wgrt.FromFloat32s(y, 4, 10)}
	r, err := NewRunner(nil, Options{})
	require.NoError(t, err)
	require.NoError(t, r.Run(GoKernels{}, m.inputs(x, 4), &out))
	assertClose(t, m.reference(x, 4), y) // written into the caller's slice

	// A buffer of the wrong shape is refused before anything runs.
	bad := Outputs{Y: wgrt.FromFloat32s(make([]float32, 30), 3, 10)}
	err = r.Run(GoKernels{}, m.inputs(x, 4), &bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mlp: output buffer y: shape is [3, 10], want [4, 10]")
}

func TestInputChecks(t *testing.T) {
	m := newModel(4)
	x := randomX(2, 2)
	cases := []struct {
		name  string
		edit  func(in *Inputs)
		error string
	}{
		{"dtype", func(in *Inputs) { in.B1.DType = wgrt.F64 }, "mlp: input b1: dtype is f64, want f32"},
		{"rank", func(in *Inputs) { in.X = wgrt.FromFloat32s(x, 2*784) }, "mlp: input x: rank is 1 (shape [1568]), want 2"},
		{"size", func(in *Inputs) { in.W1 = wgrt.FromFloat32s(m.w1, 128, 784) }, "mlp: input w1: shape is [128, 784], want [784, 128] (dimension 0)"},
		{"device", func(in *Inputs) { in.W2.Device = "cuda:0" }, `mlp: input w2: device is "cuda:0", want "cpu"`},
		{"short data", func(in *Inputs) { in.B3.Data = in.B3.Data[:20] }, "mlp: input b3: data has 20 bytes, the view needs 40"},
		{"symbol range", func(in *Inputs) { in.X = wgrt.FromFloat32s(make([]float32, 5000*784), 5000, 784) }, "mlp: symbol batch = 5000 is outside [1, 4096]"},
		{"strides", func(in *Inputs) { in.W3.Strides = []int{1, 64} }, "mlp: input w3: strides are [1, 64], want [10, 1]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := m.inputs(x, 2)
			c.edit(in)
			_, err := Run(GoKernels{}, nil, in)
			require.Error(t, err)
			assert.EqualError(t, err, c.error)
		})
	}
}

func TestKernelsFuncSeesEveryOp(t *testing.T) {
	m := newModel(5)
	var places []string
	k := KernelsFunc(func(c *wgrt.Call) error {
		places = append(places, c.Op.Place+" "+c.Kernel)
		return nil
	})
	_, err := Run(k, nil, m.inputs(randomX(1, 1), 1))
	require.NoError(t, err)
	assert.Equal(t, []string{"ops[0] matmul", "ops[1] bias_add", "ops[2] relu_", "ops[3] matmul", "ops[4] bias_add",
		"ops[5] relu_", "ops[6] matmul", "ops[7] bias_add", "ops[8] softmax"}, places)
}

func TestRunnerRefusesConcurrentUse(t *testing.T) {
	m := newModel(6)
	r, err := NewRunner(nil, Options{})
	require.NoError(t, err)
	in := m.inputs(randomX(1, 1), 1)
	started, release := make(chan struct{}), make(chan struct{})
	blocking := KernelsFunc(func(c *wgrt.Call) error {
		if c.Op.Index == 0 {
			close(started)
			<-release
		}
		return nil
	})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		assert.NoError(t, r.Run(blocking, in, &Outputs{}))
	}()
	<-started
	err = r.Run(GoKernels{}, in, &Outputs{})
	close(release)
	wg.Wait()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "use one Runner per goroutine")
}
