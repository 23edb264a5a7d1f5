// Package naive is the MLP wrapper generated with -memory-pool none: every
// storage is allocated separately at its first use and dropped after its
// last. It exists as the baseline the benchmarks in examples/mlp compare
// the pooled wrapper and its Runner against.
package naive

//go:generate go run github.com/wrapgen/wrapgen/cmd/wrapgen gen -lang go -memory-pool none -runtime ../wgrt -o naive_wrapper.go ../mlp.json
