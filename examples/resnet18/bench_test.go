package resnet18

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/examples/resnet18/naive"
	"github.com/wrapgen/wrapgen/examples/resnet18/wgrt"
	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/internal/ident"
)

var dtypes = map[graph.DType]wgrt.DType{"f32": wgrt.F32, "i64": wgrt.I64, "u8": wgrt.U8}

// inputs builds every input of the graph at a batch size, zero-filled, by
// field name (the wrapper names fields after the graph's tensors).
func inputs(t testing.TB, batch int, in any) {
	g, err := graph.Load("resnet18.json")
	require.NoError(t, err)
	env := expr.Env{"batch": int64(batch)}
	v := reflect.ValueOf(in).Elem()
	for _, tn := range g.Inputs {
		var shape []int
		for _, s := range tn.Shape {
			n, err := s.Eval(env)
			require.NoError(t, err)
			shape = append(shape, int(n))
		}
		name, _ := ident.Camel(tn.Name)
		v.FieldByName(name).Set(reflect.ValueOf(wgrt.New(dtypes[tn.DType], shape...)))
	}
}

func TestSteadyRunnerAllocatesNothing(t *testing.T) {
	var in Inputs
	inputs(t, 2, &in)
	r, err := NewRunner(nil, Options{})
	require.NoError(t, err)
	defer r.Close()
	y := wgrt.New(wgrt.F32, 2, 1000)
	out := Outputs{T234: y}
	require.NoError(t, r.Run(NoopKernels{}, &in, &out))
	allocs := testing.AllocsPerRun(20, func() {
		if err := r.Run(NoopKernels{}, &in, &out); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, allocs)
}

func benchInputs(b *testing.B, batch int) *Inputs {
	var in Inputs
	inputs(b, batch, &in)
	return &in
}

func BenchmarkRunSteady(b *testing.B) {
	in := benchInputs(b, 1)
	r, err := NewRunner(nil, Options{})
	require.NoError(b, err)
	defer r.Close()
	out := Outputs{T234: wgrt.New(wgrt.F32, 1, 1000)}
	// The first call sizes the pools; steady state is every call after it.
	if err := r.Run(NoopKernels{}, in, &out); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Run(NoopKernels{}, in, &out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunPlain(b *testing.B) {
	in := benchInputs(b, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(NoopKernels{}, nil, in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunNaive(b *testing.B) {
	in := benchInputs(b, 1)
	var nin naive.Inputs
	reflect.ValueOf(&nin).Elem().Set(reflect.ValueOf(*in).Convert(reflect.TypeOf(nin)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := naive.Run(NoopKernels{}, nil, &nin); err != nil {
			b.Fatal(err)
		}
	}
}
