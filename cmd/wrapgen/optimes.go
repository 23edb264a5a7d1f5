package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/wrapgen/wrapgen/internal/interp"
	"github.com/wrapgen/wrapgen/internal/quote"
)

// printOpTimes prints run -op-times: the n ops whose kernels took the
// most time per call (averaged over calls calls), then the time by
// kernel, each with its share of the time all kernels took.
func printOpTimes(w io.Writer, ops []interp.OpTime, n, calls int) {
	var total time.Duration
	byKernel := map[string]time.Duration{}
	count := map[string]int{}
	for _, o := range ops {
		total += o.Total
		byKernel[o.Kernel] += o.Total
		count[o.Kernel]++
	}
	if total == 0 || calls < 1 {
		return
	}
	perCall := func(d time.Duration) float64 { return float64(d) / float64(calls) / 1e6 }
	share := func(d time.Duration) float64 { return 100 * float64(d) / float64(total) }
	n = min(n, len(ops))
	fmt.Fprintf(w, "kernels: %.3f ms per call (mean of %d calls); the %d longest ops, ms and share:\n", perCall(total), calls, n)
	for _, o := range ops[:n] {
		shape := strings.Join(strings.Fields(strings.Trim(fmt.Sprint(o.Shape), "[]")), ",")
		fmt.Fprintf(w, "%9.3f %5.1f%%  %s %s -> %s [%s]\n", perCall(o.Total), share(o.Total), o.Place, quote.Text(o.Kernel), quote.Text(o.Output), shape)
	}
	kernels := make([]string, 0, len(byKernel))
	for k := range byKernel {
		kernels = append(kernels, k)
	}
	sort.Slice(kernels, func(i, j int) bool {
		if byKernel[kernels[i]] != byKernel[kernels[j]] {
			return byKernel[kernels[i]] > byKernel[kernels[j]]
		}
		return kernels[i] < kernels[j]
	})
	fmt.Fprintln(w, "by kernel, ms and share:")
	for _, k := range kernels {
		fmt.Fprintf(w, "%9.3f %5.1f%%  %s (%d op%s)\n", perCall(byKernel[k]), share(byKernel[k]), quote.Text(k), count[k], plural(count[k]))
	}
}
