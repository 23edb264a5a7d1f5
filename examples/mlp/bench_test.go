package mlp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/examples/mlp/naive"
	"github.com/wrapgen/wrapgen/examples/mlp/wgrt"
)

func TestSteadyRunnerAllocatesNothing(t *testing.T) {
	m := newModel(9)
	in := m.inputs(randomX(8, 8), 8)
	r, err := NewRunner(nil, Options{})
	require.NoError(t, err)
	defer r.Close()
	out := Outputs{Y: wgrt.New(wgrt.F32, 8, 10)}
	require.NoError(t, r.Run(GoKernels{}, in, &out))
	allocs := testing.AllocsPerRun(20, func() {
		if err := r.Run(GoKernels{}, in, &out); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, allocs)
}

const benchBatch = 32

func BenchmarkRunSteady(b *testing.B) {
	m := newModel(9)
	in := m.inputs(randomX(benchBatch, 1), benchBatch)
	r, err := NewRunner(nil, Options{})
	require.NoError(b, err)
	defer r.Close()
	out := Outputs{Y: wgrt.New(wgrt.F32, benchBatch, 10)}
	// The first call sizes the pools; steady state is every call after it.
	if err := r.Run(GoKernels{}, in, &out); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Run(GoKernels{}, in, &out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunPlain(b *testing.B) {
	m := newModel(9)
	in := m.inputs(randomX(benchBatch, 1), benchBatch)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(GoKernels{}, nil, in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunNaive(b *testing.B) {
	m := newModel(9)
	in := m.inputs(randomX(benchBatch, 1), benchBatch)
	nin := naive.Inputs(*in)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := naive.Run(GoKernels{}, nil, &nin); err != nil {
			b.Fatal(err)
		}
	}
}
