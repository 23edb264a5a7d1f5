package emit

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// runtimeProgram is the Go runtime's form of m's tables, as the Go
// backend prints it.
func runtimeProgram(m *Model) *wgrt.Program {
	t := m.Tables()
	i32 := func(xs []int) []int32 {
		out := make([]int32, len(xs))
		for i, x := range xs {
			out[i] = int32(x)
		}
		return out
	}
	p := &wgrt.Program{Graph: m.Graph.Name, Devices: t.Devices, Dims: i32(t.Dims), Inputs: i32(t.Inputs), Outputs: i32(t.Outputs),
		Align: int(m.Plan.Align), NumLoops: t.NumLoops}
	for _, in := range t.Code {
		p.Code = append(p.Code, in.Op, int(in.A), int(in.B))
	}
	for _, r := range t.Tensors {
		p.Tensors = append(p.Tensors, int32(r.DType), int32(r.Device), int32(len(r.Tensor.Shape)), int32(r.Dims))
	}
	for _, l := range t.Lists {
		p.Lists = append(p.Lists, int32(len(l)))
		p.Lists = append(p.Lists, i32(l)...)
	}
	for _, v := range t.InputViews {
		p.InputViews = append(p.InputViews, i32([]int{v.Tensor, v.Input, v.Start, v.End})...)
	}
	for _, pt := range t.Plans {
		pl := wgrt.Plan{PoolDevices: pt.PoolDevices, OutputPools: i32(pt.OutputPools)}
		for _, r := range pt.Ranges {
			pl.Ranges = append(pl.Ranges, int(r))
		}
		for _, s := range pt.Steps {
			pl.Steps = append(pl.Steps, int32(s.Kind))
			pl.Steps = append(pl.Steps, i32(s.Args)...)
		}
		for _, st := range pt.Storages {
			pl.Storages = append(pl.Storages, i32(st.Args())...)
		}
		p.Plans = append(p.Plans, pl)
	}
	for _, x := range m.Graph.Inputs {
		p.InputNames = append(p.InputNames, x.Name)
	}
	for _, x := range m.Graph.Outputs {
		p.OutputNames = append(p.OutputNames, x.Name)
	}
	for i, op := range m.Ops {
		p.Ops = append(p.Ops, wgrt.Op{Index: i, Place: op.Place, Kernel: op.Kernel})
	}
	return p
}

// recorder is an OpCaller that notes which ops ran and checks that every
// tensor an op touches has exactly its storage's bytes.
type recorder struct {
	t     *testing.T
	m     *Model
	f     *wgrt.Frame
	env   expr.Env
	calls []int
}

func (r *recorder) CallOp(i int) error {
	r.calls = append(r.calls, i)
	op := r.m.Ops[i]
	for _, x := range append(append(op.Args(), op.Outputs...), op.Mutates...) {
		want, err := x.StorageBytes().Eval(r.env)
		require.NoError(r.t, err)
		assert.Len(r.t, r.f.T[r.m.Tables().TensorIndex[x]].Data, int(want), "op %d, tensor %s", i, x.Name)
	}
	return nil
}

// bindInputs gives every input zeroed data of its layout's size.
func bindInputs(t *testing.T, m *Model, p *wgrt.Program, f *wgrt.Frame) {
	var ins []*wgrt.Tensor
	for _, x := range m.Graph.Inputs {
		lay := f.T[m.Tables().TensorIndex[x]]
		n := lay.ExtentElements() * lay.DType.Size()
		ins = append(ins, &wgrt.Tensor{DType: lay.DType, Device: lay.Device, Shape: lay.Shape, Strides: lay.Strides, Data: make([]byte, n)})
	}
	require.NoError(t, f.BindInputs(p, ins))
}

// The rnn example's loop runs as many times as the steps symbol says,
// none included, and every tensor an op sees has its storage's size.
func TestTablesRunTheRNN(t *testing.T) {
	m := program(t, "../../examples/rnn/rnn.json")
	p := runtimeProgram(m)
	for _, steps := range []int{0, 1, 3} {
		f := wgrt.NewFrame(p, 2)
		f.Sym[0], f.Sym[1] = 2, steps
		f.Layout(p)
		bindInputs(t, m, p, f)
		r := &recorder{t: t, m: m, f: f, env: expr.Env{"batch": 2, "steps": int64(steps)}}
		require.NoError(t, f.Exec(p, wgrt.FreshPools{}, r, nil))
		want := []int{0, 1}
		for i := 0; i < steps; i++ {
			want = append(want, 2, 3, 4)
		}
		assert.Equal(t, append(want, 5), r.calls, "steps=%d", steps)
	}
}

// Eleven loops counted by a symbol named iter10: every body runs iter10
// times (the regression behind issue 15 skipped the last loop).
func TestTablesRunElevenLoops(t *testing.T) {
	m := program(t, "../../cmd/wrapgen/testdata/hostile/names_and_loops.json")
	p := runtimeProgram(m)
	f := wgrt.NewFrame(p, len(m.Graph.Symbols))
	env := expr.Env{}
	for i, s := range m.Graph.Symbols {
		v := int64(2)
		if s.Name == "iter10" {
			v = 3
		}
		f.Sym[i], env[s.Name] = int(v), v
	}
	f.Layout(p)
	bindInputs(t, m, p, f)
	r := &recorder{t: t, m: m, f: f, env: env}
	require.NoError(t, f.Exec(p, wgrt.FreshPools{}, r, nil))
	want := []int{0}
	for loop := 1; loop <= 11; loop++ {
		want = append(want, loop, loop, loop)
	}
	assert.Equal(t, append(want, 12), r.calls)
}

// The values Code computes are the expressions' values, for every shape,
// stride, pool size and view of graphs with affine, floor-division and
// nested max expressions, at random symbol values in range.
func TestCodeComputesEveryValue(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, file := range []string{"../../graph/testdata/vit_b_16.json", "../../examples/rnn/rnn.json",
		"../../cmd/wrapgen/testdata/hostile/names_and_loops.json", "../../golden/testdata/attrs.json"} {
		m := program(t, file)
		p := runtimeProgram(m)
		tb := m.Tables()
		for trial := 0; trial < 5; trial++ {
			f := wgrt.NewFrame(p, len(m.Graph.Symbols))
			env := expr.Env{}
			for i, s := range m.Graph.Symbols {
				hi := s.Min + 64
				if s.HasMax {
					hi = min(hi, s.Max)
				}
				v := s.Min + rng.Int63n(hi-s.Min+1)
				f.Sym[i], env[s.Name] = int(v), v
			}
			f.Layout(p)
			eval := func(e expr.Expr) int {
				v, err := e.Eval(env)
				require.NoError(t, err)
				return int(v)
			}
			for i, x := range m.Graph.Tensors {
				for d := range x.Shape {
					assert.Equal(t, eval(x.Shape[d]), f.T[i].Shape[d], "%s: %s shape[%d] at %v", file, x.Name, d, env)
					assert.Equal(t, eval(x.Strides[d]), f.T[i].Strides[d], "%s: %s strides[%d] at %v", file, x.Name, d, env)
				}
			}
			for i, pool := range m.Plan.Pools {
				assert.Equal(t, eval(pool.Size), f.Vals[tb.Plans[0].PoolSize[i]], "%s: pool %d size at %v", file, i, env)
			}
			rows := tb.Plans[0].Steps
			for _, s := range m.Buckets[0].Steps {
				if s.Kind == Reuse {
					continue
				}
				row := rows[0]
				rows = rows[1:]
				if s.Kind == View {
					assert.Equal(t, s.Buffer.ID, row.Args[2], "%s: storage of %s", file, s.Tensor.Name)
					assert.Equal(t, eval(s.Start), f.Vals[row.Args[3]], "%s: view of %s at %v", file, s.Tensor.Name, env)
					assert.Equal(t, eval(expr.Add(s.Start, s.Bytes)), f.Vals[row.Args[4]], "%s: end of %s at %v", file, s.Tensor.Name, env)
				}
			}
			assert.Empty(t, rows, "%s: a row per step", file)
		}
	}
}

// Equal expressions are computed once: the values are fewer than the
// numbers that name them.
func TestCodeSharesValues(t *testing.T) {
	m := program(t, "../../graph/testdata/resnet18.json")
	tb := m.Tables()
	assert.Less(t, len(tb.Code)*10, len(tb.Dims), "%d values for %d shape and stride entries", len(tb.Code), len(tb.Dims))
	seen := map[Instr]bool{}
	for _, in := range tb.Code {
		assert.False(t, seen[in], "instruction %v twice", in)
		seen[in] = true
	}
}

// Every step row has its kind's width, and every loop's jumps land on
// its own end and body.
func TestStepRows(t *testing.T) {
	m := program(t, "../../cmd/wrapgen/testdata/hostile/names_and_loops.json")
	tb := m.Tables()
	steps := tb.Plans[0].Steps
	pcs := StepPC(steps)
	at := map[int]int{} // pc -> row
	for i, pc := range pcs[:len(steps)] {
		at[pc] = i
	}
	for i, s := range steps {
		require.Len(t, s.Args, StepWidth[s.Kind], "row %d", i)
		switch s.Kind {
		case Loop:
			end, ok := at[s.Args[2]-1-StepWidth[EndLoop]]
			require.True(t, ok)
			assert.Equal(t, EndLoop, steps[end].Kind)
			assert.Equal(t, s.Args[0], steps[end].Args[0], "loop %d ends at its own end", s.Args[0])
			assert.Equal(t, pcs[i+1], steps[end].Args[1], "loop %d's end jumps to its body", s.Args[0])
		}
	}
}

// Every op's row holds exactly what its kernel's CallOf layout reads: the
// writer (Tables) and the readers (each backend's CallOp, interp) share
// one layout.
func TestRowsFollowCallLayout(t *testing.T) {
	for _, file := range []string{"../../cmd/wrapgen/testdata/hostile/names_and_loops.json", "../../golden/testdata/attrs.json"} {
		m := program(t, file)
		tb := m.Tables()
		for i, op := range m.Ops {
			k := m.Kernel[op.Kernel]
			l := CallOf(k)
			row := tb.OpArgs[i]
			n := 0
			for _, o := range l.Operands {
				at := o.At
				if o.AfterList {
					at += n
				}
				switch o.Role {
				case RoleOutput:
					assert.Equal(t, tb.TensorIndex[op.Outputs[o.Index]], row[at], "%s output %d", op.Label(), o.Index)
				case RoleInput:
					assert.Equal(t, tb.TensorIndex[op.Args()[o.Index]], row[at], "%s input %d", op.Label(), o.Index)
				case RoleInputs:
					assert.Equal(t, len(op.Args()), row[l.ListAt], op.Label())
					n = l.ListAt + 1 + row[l.ListAt]
				case RoleAttr:
					assert.Less(t, at, len(row), op.Label())
				}
			}
			if !k.Variadic {
				assert.Len(t, row, 1+len(l.Operands), op.Label())
			} else {
				assert.Len(t, row, n+len(op.Attrs), op.Label())
			}
		}
	}
}
