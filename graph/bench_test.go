package graph_test

import (
	"fmt"
	"testing"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/synth"
)

// BenchmarkParse measures reading and validating synthetic transformer
// graphs: the first part of every plan.
func BenchmarkParse(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		data, err := synth.Graph(synth.Transformer, n)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if _, err := graph.Parse("synth.json", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
