package interp

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Sizes and offsets that are not monotonic in n, negative at some values,
// zero at others, or differences of products: what a plan must hold for
// at every value in range, not only at the ones it was made at.
var (
	hostileSizes = []string{"n", "2*n", "n%3*n", "max(n-3, 0)", "min(n, 4)*2", "(n-5)*(n-5)-1", "n*n-4*n+4",
		"2*n-n%4", "n//2+1", "3", "n%2", "max(8-n, 1)", "(n-2)*(n-3)", "n*n-3*n", "min(n*n, 10)", "5*n-n*n"}
	hostileOffsets = []string{"0", "1", "n%3*n", "n-2", "max(n-4, 0)", "n//2", "3-n", "n%4"}
	// Bases mostly large enough for the views, so that many graphs are
	// accepted and run.
	hostileBases = []string{"4*n+8", "n*n+8", "3*n", "n%5*n+6", "2*n", "max(n*n-4*n, 6)"}
)

// hostileGraph is x -> t, a view v of t, u = k(v), w taking over u in
// place, y = k(w, t): every fact a plan relies on (sizes, offsets, a view
// inside its base, an in-place output fitting) depends on n.
func hostileGraph(rng *rand.Rand) string {
	pick := func(xs []string) string { return xs[rng.Intn(len(xs))] }
	minN := rng.Intn(3)
	sym := fmt.Sprintf(`{"hint": %d, "min": %d}`, minN+1, minN)
	if rng.Intn(2) == 0 {
		sym = fmt.Sprintf(`{"hint": %d, "min": %d, "max": %d}`, minN+1, minN, minN+3+rng.Intn(6))
	}
	return fmt.Sprintf(`{"name": "hostile", "symbols": {"n": %s},
 "tensors": {"x": {"dtype": "u8", "shape": ["n"]}, "t": {"dtype": "u8", "shape": [%q]},
   "v": {"view_of": "t", "shape": [%q], "offset": %q}, "u": {"dtype": "u8", "shape": [%q]},
   "w": {"dtype": "u8", "shape": [%q]}, "y": {"dtype": "u8", "shape": [%q]}},
 "inputs": ["x"], "outputs": ["y"],
 "ops": [{"kernel": "k1", "inputs": ["x"], "outputs": ["t"]}, {"kernel": "k1", "inputs": ["v"], "outputs": ["u"]},
   {"kernel": "k1", "inputs": ["u"], "outputs": ["w"], "inplace": {"w": "u"}}, {"kernel": "k2", "inputs": ["w", "t"], "outputs": ["y"]}]}`,
		sym, pick(hostileBases), pick(hostileSizes), pick(hostileOffsets), pick(hostileSizes), pick(hostileSizes), pick(hostileSizes))
}

// patternKernels write each output byte as a function of the tensor's name
// and the byte's address, and check that every input byte still holds its
// tensor's pattern: a storage the plan put over a live one is caught.
type patternKernels struct{ bad error }

func pattern(name string, addr uintptr) byte {
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	h ^= uint32(addr) * 0x9E3779B1
	return byte(h >> 24)
}

func eachByte(t wgrt.Tensor, f func(b *byte)) {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	for i := 0; i < n; i++ {
		off := 0
		rest := i
		for d := len(t.Shape) - 1; d >= 0; d-- {
			off += rest % t.Shape[d] * t.Strides[d]
			rest /= t.Shape[d]
		}
		f(&t.Data[off])
	}
}

func (pk *patternKernels) call(c *wgrt.Call) error {
	for i, in := range c.Inputs {
		root := c.Op.Inputs[i]
		if root == "v" {
			root = "t"
		}
		eachByte(in, func(b *byte) {
			if want := pattern(root, uintptr(unsafe.Pointer(b))); *b != want && pk.bad == nil {
				pk.bad = fmt.Errorf("%s: input %s holds %d, not its pattern %d: another storage was placed over it", c.Op, c.Op.Inputs[i], *b, want)
			}
		})
	}
	for i, out := range c.Outputs {
		name := c.Op.Outputs[i]
		eachByte(out, func(b *byte) { *b = pattern(name, uintptr(unsafe.Pointer(b))) })
	}
	return nil
}

// Every hostile graph is refused (with a place and the values), or runs at
// every value of n in range, each run either clean or stopped by a guard
// that names the fact: never a panic, a bounds error or a storage
// overwritten while live. WRAPGEN_HOSTILE_DIR=dir also writes the first
// accepted graphs there, as hostile_<i>_<min>_<max>.json, for CI to run
// through generated C++ under sanitizers at every n of that range.
func TestHostileGraphsAreRefusedGuardedOrSound(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	refused, guarded, clean := 0, 0, 0
	dir, written := os.Getenv("WRAPGEN_HOSTILE_DIR"), 0
	for i := 0; i < 1000; i++ {
		src := hostileGraph(rng)
		g, err := graph.Parse("hostile.json", []byte(src))
		if err != nil {
			require.Regexp(t, `hostile\.json:\d+:\d+: `, err.Error(), "a refusal has a position\n%s", src)
			refused++
			continue
		}
		p, err := plan.Make(g, plan.Options{})
		require.NoError(t, err, src)
		m := New(p)
		s := g.Symbols[0]
		hi := s.Min + 8
		if s.HasMax {
			hi = s.Max
		}
		if dir != "" && written < 12 {
			name := fmt.Sprintf("hostile_%d_%d_%d.json", written, s.Min, hi)
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(strings.Replace(src, `"name": "hostile"`, fmt.Sprintf(`"name": "hostile%d"`, written), 1)), 0o644))
			written++
		}
		for n := s.Min; n <= hi; n++ {
			x := wgrt.New(wgrt.U8, int(n))
			eachByte(x, func(b *byte) { *b = pattern("x", uintptr(unsafe.Pointer(b))) })
			var pk patternKernels
			_, err := runRecovered(m, pk.call, map[string]int{"n": int(n)}, []wgrt.Tensor{x})
			switch {
			case err != nil && strings.Contains(err.Error(), "does not hold"):
				guarded++
			case err != nil:
				t.Fatalf("at n=%d: %v\n%s", n, err, src)
			case pk.bad != nil:
				t.Fatalf("at n=%d: %v\n%s", n, pk.bad, src)
			default:
				clean++
			}
		}
		m.Close()
	}
	t.Logf("1000 graphs: %d refused; runs at every n in range: %d clean, %d stopped by a guard", refused, clean, guarded)
	require.Positive(t, refused)
	require.Positive(t, guarded)
	require.Positive(t, clean)
}

func runRecovered(m *Model, k wgrt.KernelFunc, at map[string]int, in []wgrt.Tensor) (outs []wgrt.Tensor, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return m.Run(k, at, in)
}

// The cases a reliability hunt found, each refused with the value where it
// fails.
func TestInteriorValuesRefused(t *testing.T) {
	for _, tc := range []struct{ sym, tensors, ops, want string }{
		{`{"hint": 3, "min": 3, "max": 6}`, `"t": {"dtype": "f32", "shape": ["2*n"]}, "v": {"view_of": "t", "shape": ["n"], "offset": "n%3*n"}, "y": {"dtype": "f32", "shape": ["n"]}`,
			`{"kernel": "k", "inputs": ["x"], "outputs": ["t"]}, {"kernel": "k", "inputs": ["v"], "outputs": ["y"]}`,
			`tensors["v"]: view reaches element 15 but base "t" spans only 10 elements at n=5`},
		{`{"hint": 3, "min": 3, "max": 6}`, `"t": {"dtype": "f32", "shape": ["n"]}, "u": {"dtype": "f32", "shape": ["n%3*n"]}, "y": {"dtype": "f32", "shape": ["n"]}`,
			`{"kernel": "k", "inputs": ["x"], "outputs": ["t"]}, {"kernel": "k", "inputs": ["t"], "outputs": ["u"], "inplace": {"u": "t"}}, {"kernel": "k", "inputs": ["u"], "outputs": ["y"]}`,
			`inplace "u" needs 40 bytes but "t" has only 20 at n=5`},
		{`{"hint": 1, "min": 1, "max": 10}`, `"y": {"dtype": "f32", "shape": ["(n-5)*(n-5)-1"]}`,
			`{"kernel": "k", "inputs": ["x"], "outputs": ["y"]}`, `is negative (-1) at n=5`},
		{`{"hint": 1, "min": 1, "max": 10}`, `"y": {"dtype": "u8", "shape": ["n%7*2000000000000000000"]}`,
			`{"kernel": "k", "inputs": ["x"], "outputs": ["y"]}`, `overflows int64 at n=5`},
	} {
		src := fmt.Sprintf(`{"name": "h", "symbols": {"n": %s}, "tensors": {"x": {"dtype": "f32", "shape": ["n"]}, %s},
 "inputs": ["x"], "outputs": ["y"], "ops": [%s]}`, tc.sym, tc.tensors, tc.ops)
		_, err := graph.Parse("h.json", []byte(src))
		require.ErrorContains(t, err, tc.want)
	}
}

// Without a max the same view is neither provable nor refutable: the
// wrapper checks it and stops at n=5 naming it.
func TestGuardStopsTheRun(t *testing.T) {
	src := `{"name": "h", "symbols": {"n": {"hint": 3, "min": 3}},
 "tensors": {"x": {"dtype": "u8", "shape": ["n"]}, "t": {"dtype": "u8", "shape": ["2*n"]}, "v": {"view_of": "t", "shape": ["n"], "offset": "n%3*n"}, "y": {"dtype": "u8", "shape": ["n"]}},
 "inputs": ["x"], "outputs": ["y"], "ops": [{"kernel": "k", "inputs": ["x"], "outputs": ["t"]}, {"kernel": "k", "inputs": ["v"], "outputs": ["y"]}]}`
	g, err := graph.Parse("h.json", []byte(src))
	require.NoError(t, err)
	require.Len(t, g.Guards, 1)
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	m := New(p)
	defer m.Close()
	var pk patternKernels
	for _, n := range []int{3, 4, 6} {
		_, err := m.Run(pk.call, nil, []wgrt.Tensor{wgrt.New(wgrt.U8, n)})
		require.NoError(t, err, "n=%d", n)
	}
	_, err = m.Run(pk.call, nil, []wgrt.Tensor{wgrt.New(wgrt.U8, 5)})
	require.EqualError(t, err, `h: at n=5, tensors["v"]: view "v" lies inside its base "t" does not hold (wrapgen could not prove it for every symbol value in range, so the wrapper checks it)`)
}
