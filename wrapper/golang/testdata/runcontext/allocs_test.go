//go:build !race

package m

import (
	"context"
	"testing"
)

// A steady Runner allocates nothing per call with a context that can be
// cancelled, as without one.
func TestRunContextAllocatesNothing(t *testing.T) {
	in := inputs(2)
	r, err := NewRunner(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := KernelsFunc((&kernels{}).call)
	var out Outputs
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for name, run := range map[string]func() error{
		"Run":        func() error { return r.Run(k, in, &out) },
		"RunContext": func() error { return r.RunContext(ctx, k, in, &out) },
	} {
		if err := run(); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(20, func() { _ = run() }); n != 0 {
			t.Fatalf("%s: %v allocations per call, want 0", name, n)
		}
	}
}
