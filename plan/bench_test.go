package plan

import (
	"fmt"
	"testing"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/synth"
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
