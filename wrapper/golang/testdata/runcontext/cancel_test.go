package m

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"example.com/user/m/wgrt"
)

// kernels serves the mlp's kernels plainly; before op `at` runs, stall is
// called (when set) and returns once the run is to be stopped. calls counts
// the kernel calls.
type kernels struct {
	at    int
	stall func()
	calls atomic.Int64
}

func (k *kernels) call(c *wgrt.Call) error {
	k.calls.Add(1)
	if k.stall != nil && c.Op.Index == k.at {
		k.stall()
	}
	out := c.Outputs[0].Float32s()
	in := c.Inputs[0].Float32s()
	switch c.Kernel {
	case "matmul":
		w := c.Inputs[1].Float32s()
		m, kk, n := c.Inputs[0].Shape[0], c.Inputs[0].Shape[1], c.Inputs[1].Shape[1]
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s float32
				for p := 0; p < kk; p++ {
					s += in[i*kk+p] * w[p*n+j]
				}
				out[i*n+j] = s
			}
		}
	case "bias_add":
		b := c.Inputs[1].Float32s()
		n := len(b)
		for i := range c.Outputs[0].NumElements() {
			out[i] = in[i] + b[i%n]
		}
	case "relu_":
		for i := range c.Outputs[0].NumElements() {
			out[i] = max(in[i], 0)
		}
	case "softmax":
		n := c.Inputs[0].Shape[1]
		for r := 0; r < c.Inputs[0].Shape[0]; r++ {
			row, o := in[r*n:(r+1)*n], out[r*n:(r+1)*n]
			hi := row[0]
			for _, v := range row {
				hi = max(hi, v)
			}
			var sum float32
			for j, v := range row {
				o[j] = float32(math.Exp(float64(v - hi)))
				sum += o[j]
			}
			for j := range o {
				o[j] /= sum
			}
		}
	default:
		return errors.New("no kernel " + c.Kernel)
	}
	return nil
}

func inputs(batch int) *Inputs {
	r := rand.New(rand.NewPCG(1, 2))
	fill := func(shape ...int) wgrt.Tensor {
		t := wgrt.New(wgrt.F32, shape...)
		xs := t.Float32s()
		for i := range xs {
			xs[i] = float32(r.NormFloat64() * 0.1)
		}
		return t
	}
	return &Inputs{X: fill(batch, 784), W1: fill(784, 128), B1: fill(128), W2: fill(128, 64), B2: fill(64), W3: fill(64, 10), B3: fill(10)}
}

func fresh(t *testing.T, in *Inputs) []float32 {
	r, err := NewRunner(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out Outputs
	k := &kernels{}
	if err := r.Run(KernelsFunc(k.call), in, &out); err != nil {
		t.Fatal(err)
	}
	return append([]float32(nil), out.Y.Float32s()...)
}

func same(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: value %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}

// A Runner cancelled mid-run (from another goroutine, while a kernel is
// running), stopped by a deadline, or given a context already done stops
// before the next op with the context's error, naming that op; its next
// call runs in full and gives a fresh Runner's answer.
func TestRunContextStopsBetweenOps(t *testing.T) {
	in := inputs(3)
	want := fresh(t, in)
	r, err := NewRunner(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		ctx    func() (context.Context, context.CancelFunc)
		at     int
		stall  func(ctx context.Context) func()
		target error
		msg    string
		calls  int64
	}{
		{"cancel", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, 3,
			func(ctx context.Context) func() { return func() { <-ctx.Done() } }, // the test cancels it from another goroutine
			context.Canceled, `mlp: stopped before ops[4] (kernel "bias_add"): context canceled`, 4},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, 6, func(ctx context.Context) func() { return func() { <-ctx.Done() } },
			context.DeadlineExceeded, `mlp: stopped before ops[7] (kernel "bias_add"): context deadline exceeded`, 7},
		{"done before", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, -1, nil, context.Canceled, `mlp: stopped before ops[0] (kernel "matmul"): context canceled`, 0},
	} {
		ctx, cancel := c.ctx()
		k := &kernels{at: c.at}
		if c.stall != nil {
			k.stall = c.stall(ctx)
		}
		if c.name == "cancel" {
			go func() {
				for k.calls.Load() < 4 {
					time.Sleep(time.Millisecond)
				}
				cancel()
			}()
		}
		var out Outputs
		err := r.RunContext(ctx, KernelsFunc(k.call), in, &out)
		cancel()
		if !errors.Is(err, c.target) {
			t.Fatalf("%s: error %v, want %v", c.name, err, c.target)
		}
		if err.Error() != c.msg {
			t.Fatalf("%s: error %q, want %q", c.name, err, c.msg)
		}
		if got := k.calls.Load(); got != c.calls {
			t.Fatalf("%s: %d kernel calls, want %d", c.name, got, c.calls)
		}
		// The same Runner, next call: in full, with the right answer, with
		// and without a context.
		if err := r.Run(KernelsFunc((&kernels{}).call), in, &out); err != nil {
			t.Fatalf("%s: the next Run: %v", c.name, err)
		}
		same(t, c.name+": the next Run", out.Y.Float32s(), want)
		ctx, cancel = context.WithCancel(context.Background())
		if err := r.RunContext(ctx, KernelsFunc((&kernels{}).call), in, &out); err != nil {
			t.Fatalf("%s: the next RunContext: %v", c.name, err)
		}
		cancel()
		same(t, c.name+": the next RunContext", out.Y.Float32s(), want)
	}

	// The package-level call stops the same way, and then runs.
	ctx, cancel := context.WithCancel(context.Background())
	k := &kernels{at: 1, stall: cancel}
	_, err = RunContext(ctx, KernelsFunc(k.call), nil, in, nil, Options{})
	if !errors.Is(err, context.Canceled) || err.Error() != `mlp: stopped before ops[2] (kernel "relu_"): context canceled` {
		t.Fatalf("RunContext: %v", err)
	}
	out, err := RunContext(context.Background(), KernelsFunc((&kernels{}).call), nil, in, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "RunContext", out.Y.Float32s(), want)
}
