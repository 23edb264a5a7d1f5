// Package plan turns a validated graph into a memory plan: wrapper lines,
// buffers with live ranges, and a placement of every buffer in a pool at a
// symbolic offset. It knows nothing of any backend.
//
// Make runs three stages in order (plan.go: prepare, the strategy's
// place, finish); each has its files:
//
//   - Options and the result: options.go (Options, MemoryPool, alignment),
//     plan.go (Plan, Make and its stages), buffer.go (Buffer, Pool),
//     lines.go (Line).
//   - Prepare, lowering: lower.go emits the wrapper lines and groups
//     storages into buffers with live ranges; lower_alias.go chooses the
//     in-place reuse the kernels' traits allow.
//   - Place: strategy.go is the strategy interface and the table that
//     -strategy names; strategy_placement.go what a strategy returns;
//     strategy_groups*.go which buffers may share a pool; one
//     strategy_<name>*.go per algorithm (greedy with its best-fit offsets
//     and their proofs, split, inductor, best).
//   - Finish, pool lines: poollines.go rewrites Alloc and Free to pool views and
//     adds the pools' create and release lines.
//   - Verification: verify.go checks every plan Make returns, with
//     verify_alias.go for in-place reuse and verify_countable.go for int64
//     overflow at the symbols' maximums.
//   - Figures: figures.go (peak, lower bounds) and figures_range.go (the
//     same across the symbols' ranges); env.go holds the symbol values
//     both evaluate at.
//
// The plan holds for every symbol value in range. The size stage happens
// later, in the wrapper's runtime (wgrt's place.go, and the C++ runtime's
// PlaceBest): at the sizes of a call, it places the storages anew from
// the live ranges and size expressions the tables carry, and keeps that
// placement when it needs less memory than this plan's. Reports ask it
// through Figures.RunTimeBytes (wrapgen plan -at).
package plan
