package wgrt

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stopper records the ops called and runs at(i) before op i's "kernel".
type stopper struct {
	ops []int
	at  func(i int)
}

func (s *stopper) CallOp(i int) error {
	s.ops = append(s.ops, i)
	if s.at != nil {
		s.at(i)
	}
	return nil
}

// loopProgram calls op 0, then op 1 inside a loop of symbol 0's count,
// then op 2.
func loopProgram() *Program {
	return &Program{Graph: "g", NumLoops: 1,
		Ops:  []Op{{Index: 0, Place: "ops[0]", Kernel: "a"}, {Index: 1, Place: "ops[1]", Kernel: "b"}, {Index: 2, Place: "ops[2]", Kernel: "c"}},
		Code: []int{intSym, 0, 0},
		Plans: []Plan{{Steps: []int32{
			stepCall, 0, // pc 0
			stepLoop, 0, 0, 11, // pc 2: symbol 0 times, then pc 11
			stepCall, 1, // pc 6
			stepEndLoop, 0, 6, // pc 8 (body at 6)
			stepCall, 2, // pc 11
		}}}}
}

// ExecContext stops before the next op once the context is done (inside
// a loop too), with an error wrapping the context's that names the op;
// the frame then runs in full.
func TestExecContextStopsBetweenOps(t *testing.T) {
	p := loopProgram()
	f := NewFrame(p, 1)
	f.Sym[0] = 3
	require.NoError(t, f.Layout(p))

	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	c := &stopper{at: func(i int) {
		if calls++; calls == 3 { // op 1, its second time round
			cancel()
		}
	}}
	err := f.ExecContext(ctx, p, FreshPools{}, c, nil)
	require.ErrorIs(t, err, context.Canceled)
	assert.EqualError(t, err, `g: stopped before ops[1] (kernel "b"): context canceled`)
	assert.Equal(t, []int{0, 1, 1}, c.ops)
	f.ReleaseAll(p, FreshPools{})

	// The same frame, next call: every op, with or without a context.
	c = &stopper{}
	require.NoError(t, f.Exec(p, FreshPools{}, c, nil))
	assert.Equal(t, []int{0, 1, 1, 1, 2}, c.ops)
	c = &stopper{}
	require.NoError(t, f.ExecContext(context.Background(), p, FreshPools{}, c, nil))
	assert.Equal(t, []int{0, 1, 1, 1, 2}, c.ops)
	c = &stopper{}
	require.NoError(t, f.ExecContext(nil, p, FreshPools{}, c, nil)) //nolint:staticcheck // nil is documented as no context
	assert.Equal(t, []int{0, 1, 1, 1, 2}, c.ops)

	// A context already done runs no op; a deadline stops before the op
	// after the one it passed in.
	c = &stopper{}
	err = f.ExecContext(ctx, p, FreshPools{}, c, nil)
	assert.EqualError(t, err, `g: stopped before ops[0] (kernel "a"): context canceled`)
	assert.Empty(t, c.ops)
	dl, cancelDL := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancelDL()
	c = &stopper{at: func(i int) {
		if i == 0 {
			<-dl.Done()
		}
	}}
	err = f.ExecContext(dl, p, FreshPools{}, c, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.EqualError(t, err, `g: stopped before ops[1] (kernel "b"): context deadline exceeded`)
	assert.Equal(t, []int{0}, c.ops)
}

type countCalls struct{ n int }

func (c *countCalls) CallOp(int) error { c.n++; return nil }

// Checking a live context between ops allocates nothing.
func TestExecContextAllocatesNothing(t *testing.T) {
	p := loopProgram()
	f := NewFrame(p, 1)
	f.Sym[0] = 4
	require.NoError(t, f.Layout(p))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &countCalls{}
	assert.Zero(t, testing.AllocsPerRun(50, func() {
		if err := f.ExecContext(ctx, p, FreshPools{}, c, nil); err != nil {
			t.Fatal(err)
		}
	}))
	assert.Equal(t, 6*51, c.n)
}
