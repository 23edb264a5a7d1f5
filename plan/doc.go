// Package plan turns a validated graph into a memory plan: wrapper lines,
// buffers with live ranges, and a placement of every buffer in a pool at a
// symbolic offset. It knows nothing of any backend.
//
// Make runs the stages in order; each has its files:
//
//   - Options and the result: options.go (Options, MemoryPool, alignment),
//     plan.go (Plan, Make), buffer.go (Buffer, Pool), lines.go (Line).
//   - Lowering: lower.go emits the wrapper lines and groups storages into
//     buffers with live ranges; lower_alias.go chooses the in-place reuse
//     the kernels' traits allow.
//   - Placement: strategy.go is the strategy interface and the table that
//     -strategy names; strategy_placement.go what a strategy returns;
//     strategy_groups*.go which buffers may share a pool; one
//     strategy_<name>*.go per algorithm (greedy with its best-fit offsets
//     and their proofs, split, inductor, best).
//   - Pool lines: poollines.go rewrites Alloc and Free to pool views and
//     adds the pools' create and release lines.
//   - Verification: verify.go checks every plan Make returns, with
//     verify_alias.go for in-place reuse and verify_countable.go for int64
//     overflow at the symbols' maximums.
//   - Figures: figures.go (peak, lower bounds) and figures_range.go (the
//     same across the symbols' ranges); env.go holds the symbol values
//     both evaluate at.
package plan
