package plan

import (
	"math/rand"
	"os"
	"testing"
	"time"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/synth"
)

// FuzzParseAndPlan: the reader and validator never panic on any bytes, and
// a graph they accept plans with a plan that verifies.
func FuzzParseAndPlan(f *testing.F) {
	for _, path := range []string{"../examples/mlp/mlp.json", "../examples/rnn/rnn.json", "../cmd/wrapgen/testdata/runtime_sizes/nonzero.json"} {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	for seed := uint64(0); seed < 8; seed++ {
		f.Add(synth.Random(seed))
	}
	f.Add([]byte(`{"name": "x", "tensors": {}, "inputs": [], "outputs": [], "ops": []}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if dump := os.Getenv("WRAPGEN_FUZZ_SLOW"); dump != "" {
			// Finding slow inputs: keep the one that takes over 5 s.
			timer := time.AfterFunc(5*time.Second, func() { os.WriteFile(dump, data, 0o644) })
			defer timer.Stop()
		}
		g, err := graph.Parse("fuzz.json", data)
		if err != nil {
			return
		}
		if _, err := Make(g, Options{}); err != nil {
			// Only a size that cannot be evaluated may stop a valid graph.
			if _, ok := err.(*verifyError); ok {
				t.Fatalf("a valid graph planned to a plan that fails verification: %v", err)
			}
		}
	})
}

// FuzzPipeline: generated graphs (views, in-place chains, mutates, nested
// loops, two devices, symbolic sizes) through a strategy and a memory pool
// mode chosen by the fuzzer: every plan verifies, its figures evaluate at
// random symbol values in range, and it keeps the properties every plan
// must have.
func FuzzPipeline(f *testing.F) {
	for seed := uint64(0); seed < 16; seed++ {
		f.Add(seed, uint8(seed), uint8(seed/3))
	}
	f.Fuzz(func(t *testing.T, seed uint64, strategy, mode uint8) {
		g, err := graph.Parse("random.json", synth.Random(seed))
		if err != nil {
			t.Fatalf("seed %d: the generator made an invalid graph: %v", seed, err)
		}
		names := Strategies()
		s, m := names[int(strategy)%len(names)], MemoryPools[int(mode)%len(MemoryPools)]
		p, err := Make(g, Options{Strategy: s, MemoryPool: m})
		if err != nil {
			t.Fatalf("seed %d strategy %s mode %s: %v", seed, s, m, err)
		}
		checkProperties(t, p, g.Name)
		rng := rand.New(rand.NewSource(int64(seed)))
		for i := 0; i < 4; i++ {
			env := randomEnv(g, rng)
			if _, err := p.Figures(env); err != nil {
				t.Fatalf("seed %d: figures at %v: %v", seed, env, err)
			}
		}
	})
}
