package plan

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/synth"
)

// BenchmarkPlan measures parse + plan + verify with the default strategy on
// synthetic transformer graphs of 1k, 10k and 100k ops.
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		data, err := synth.Graph(synth.Transformer, n)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				g, err := graph.Parse("synth.json", data)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Make(g, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStrategy measures each strategy alone on a 10k-op graph.
func BenchmarkStrategy(b *testing.B) {
	data, err := synth.Graph(synth.Transformer, 10_000)
	if err != nil {
		b.Fatal(err)
	}
	g, err := graph.Parse("synth.json", data)
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range Strategies() {
		b.Run(s, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Make(g, Options{Strategy: s}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// encoder is a synthetic transformer encoder of the given layers.
func encoder(tb testing.TB, layers int) *graph.Graph {
	data, err := synth.Graph(synth.Transformer, layers*synth.TransformerOpsPerLayer)
	if err != nil {
		tb.Fatal(err)
	}
	g, err := graph.Parse("encoder.json", data)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// BenchmarkInductorEncoder times the ported seed algorithm alone (lowering
// done once) on 96-layer encoders, and on one with 2,208 storages (the
// size the issue measured Inductor's planner (Python) at), to compare with the
// Python on the same buffers (see docs/planner.md).
func BenchmarkInductorEncoder(b *testing.B) {
	for _, layers := range []int{96, 221} {
		g := encoder(b, layers)
		prog, err := lower(g, g.Hints(), g.Hints(), true)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("layers=%d/storages=%d", layers, len(prog.buffers)), func(b *testing.B) {
			for b.Loop() {
				req := &request{buffers: prog.buffers, mode: PoolIntermediates, align: DefaultAlign, bounds: g.Bounds(), hints: g.Hints()}
				if _, err := (inductor{}).place(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDumpEncoderForSeed writes the 96-layer encoder's buffers in the
// format of the harness around Inductor's planner (name hint begin end output) when
// WRAPGEN_DUMP_SEED names a file; it is how the Python comparison is fed.
func TestDumpEncoderForSeed(t *testing.T) {
	path := os.Getenv("WRAPGEN_DUMP_SEED")
	if path == "" {
		t.Skip("set WRAPGEN_DUMP_SEED=FILE to write the encoder's buffers for Inductor's planner (Python)")
	}
	layers := 96
	if v := os.Getenv("WRAPGEN_DUMP_LAYERS"); v != "" {
		fmt.Sscan(v, &layers)
	}
	g := encoder(t, layers)
	prog, err := lower(g, g.Hints(), g.Hints(), true)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, b := range prog.buffers {
		fmt.Fprintf(&sb, "%s %d %d %d %t\n", b.Owner().Name, b.hint, b.Begin, b.End, b.Output)
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	req := &request{buffers: prog.buffers, mode: PoolIntermediates, align: DefaultAlign, bounds: g.Bounds(), hints: g.Hints()}
	placed, err := (inductor{}).place(req)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	for _, p := range placed.pools {
		v, _ := p.Size.Eval(g.Hints())
		sizes = append(sizes, v)
	}
	t.Logf("%d storages, inductor pool sizes %v", len(prog.buffers), sizes)
}
