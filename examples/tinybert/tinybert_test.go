package tinybert

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/examples/tinybert/wgref"
	"github.com/wrapgen/wrapgen/examples/tinybert/wgrt"
)

// expected is what export.py recorded from PyTorch.
type expected struct {
	InputIDs      []int64   `json:"input_ids"`
	AttentionMask []int64   `json:"attention_mask"`
	Shape         []int     `json:"shape"`
	Hidden        []float64 `json:"hidden"`
	Pooled        []float64 `json:"pooled"`
}

func load(t testing.TB) (*Params, *Inputs, expected) {
	var want expected
	data, err := os.ReadFile("expected.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &want))
	p, err := LoadParams("tinybert.safetensors")
	require.NoError(t, err)
	in := &Inputs{
		InputIds:      wgrt.View(want.InputIDs, want.Shape...),
		AttentionMask: wgrt.View(want.AttentionMask, want.Shape...),
	}
	return p, in, want
}

// maxDiff is max |got - want| and the bound the comparison allows:
// 1e-3 * max(1, max |want|).
func maxDiff(got []float32, want []float64) (diff, bound float64) {
	peak := 1.0
	for i, w := range want {
		diff = math.Max(diff, math.Abs(float64(got[i])-w))
		peak = math.Max(peak, math.Abs(w))
	}
	return diff, 1e-3 * peak
}

// The generated wrapper, with the params loaded once and wrapgen's
// reference kernels, gives PyTorch's outputs, call after call.
func TestMatchesPyTorch(t *testing.T) {
	p, in, want := load(t)
	r, err := NewRunner(p, Options{})
	require.NoError(t, err)
	defer r.Close()
	for call := 0; call < 2; call++ {
		var out Outputs
		require.NoError(t, r.Run(RefKernels(), in, &out))
		require.Equal(t, []int{2, 12, 32}, out.Hidden.Shape)
		for _, o := range []struct {
			name string
			got  []float32
			want []float64
		}{{"hidden", out.Hidden.Float32s(), want.Hidden}, {"pooled", out.Pooled.Float32s(), want.Pooled}} {
			d, bound := maxDiff(o.got, o.want)
			t.Logf("%s: max |diff| %.3g (bound %.3g)", o.name, d, bound)
			require.LessOrEqual(t, d, bound, o.name)
		}
	}
}

// A Runner that packs the weights once (wgref.Prepare: the pooler's
// transposed Gemm B) gives Run's outputs, which pack per call, bit for
// bit, and allocates nothing per call.
func TestPreparedRunnerSameBits(t *testing.T) {
	p, in, _ := load(t)
	want, err := Run(RefKernels(), p, in)
	require.NoError(t, err)
	r, err := NewRunner(p, Options{Prepare: wgref.Prepare})
	require.NoError(t, err)
	defer r.Close()
	require.Positive(t, r.PreparedBytes())
	k := RefKernels()
	var out Outputs
	require.NoError(t, r.Run(k, in, &out))
	require.Equal(t, want.Hidden.Float32s(), out.Hidden.Float32s())
	require.Equal(t, want.Pooled.Float32s(), out.Pooled.Float32s())
	out = Outputs{Hidden: wgrt.New(wgrt.F32, 2, 12, 32), Pooled: wgrt.New(wgrt.F32, 2, 32)}
	allocs := testing.AllocsPerRun(10, func() {
		if err := r.Run(k, in, &out); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, allocs)
}

// Options.Threads reaches every kernel call as wgrt.Call.Threads, from a
// Runner and from RunWith (0 when unset: the kernels' default), and the
// reference kernels give the same bits at any count, allocating nothing
// per call.
func TestThreadsReachTheKernels(t *testing.T) {
	p, in, _ := load(t)
	want, err := Run(RefKernels(), p, in)
	require.NoError(t, err)
	seen := map[int]int{} // Call.Threads → calls
	recording := KernelsFunc(func(c *wgrt.Call) error {
		seen[c.Threads]++
		return wgref.Call(c)
	})
	got, err := RunWith(recording, p, in, nil, Options{Threads: 2})
	require.NoError(t, err)
	require.Equal(t, want.Hidden.Float32s(), got.Hidden.Float32s())
	require.Len(t, seen, 1)
	require.Positive(t, seen[2])

	clear(seen)
	_, err = RunWith(recording, p, in, nil, Options{})
	require.NoError(t, err)
	require.Len(t, seen, 1)
	require.Positive(t, seen[0])

	r, err := NewRunner(p, Options{Prepare: wgref.Prepare, Threads: 3})
	require.NoError(t, err)
	defer r.Close()
	clear(seen)
	var out Outputs
	require.NoError(t, r.Run(recording, in, &out))
	require.Len(t, seen, 1)
	require.Positive(t, seen[3])
	require.Equal(t, want.Hidden.Float32s(), out.Hidden.Float32s())
	require.Equal(t, want.Pooled.Float32s(), out.Pooled.Float32s())
	k := RefKernels()
	out = Outputs{Hidden: wgrt.New(wgrt.F32, 2, 12, 32), Pooled: wgrt.New(wgrt.F32, 2, 32)}
	require.Zero(t, testing.AllocsPerRun(10, func() {
		if err := r.Run(k, in, &out); err != nil {
			t.Fatal(err)
		}
	}))
}

// A PrepareFunc's error fails NewRunner with the op it came from, as a
// kernel's error fails Run.
func TestPrepareErrorNamesTheOp(t *testing.T) {
	p, _, _ := load(t)
	bad := errors.New("cannot pack")
	_, err := NewRunner(p, Options{Prepare: func(c *wgrt.Call) (any, int, error) {
		if c.Kernel == "Gemm" {
			return nil, 0, bad
		}
		return wgref.Prepare(c)
	}})
	var opErr *wgrt.OpError
	require.ErrorAs(t, err, &opErr)
	require.ErrorIs(t, err, bad)
	require.Equal(t, "Gemm", opErr.Op.Kernel)
	require.Contains(t, err.Error(), `tinybert: ops[`)
	require.Contains(t, err.Error(), `(kernel "Gemm"): cannot pack`)
}

// A steady Runner with the reference kernels allocates nothing per call,
// with its weights packed per call or once (Options.Prepare), on one
// thread or two.
func BenchmarkRunSteady(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts Options
	}{{"per-call", Options{}}, {"prepared", Options{Prepare: wgref.Prepare}}, {"prepared-2threads", Options{Prepare: wgref.Prepare, Threads: 2}}} {
		b.Run(bc.name, func(b *testing.B) {
			p, in, _ := load(b)
			r, err := NewRunner(p, bc.opts)
			require.NoError(b, err)
			defer r.Close()
			k := RefKernels()
			out := Outputs{Hidden: wgrt.New(wgrt.F32, 2, 12, 32), Pooled: wgrt.New(wgrt.F32, 2, 32)}
			require.NoError(b, r.Run(k, in, &out))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := r.Run(k, in, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
