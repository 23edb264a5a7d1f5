// Package report formats a plan for people: the text report of wrapgen
// plan, the SVG memory map, and (ReportJSON) the -json form. The planner
// is package plan; this only reads what it made.
package report

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/wrapgen/wrapgen/internal/quote"
	"github.com/wrapgen/wrapgen/plan"
)

// Bytes prints n with thousands separators and a binary unit, for people.
func Bytes(n int64) string {
	s := groupDigits(n)
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%s (%.2f GiB)", s, float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%s (%.2f MiB)", s, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%s (%.1f KiB)", s, float64(n)/(1<<10))
	}
	return s
}

func groupDigits(n int64) string {
	neg := n < 0
	if neg {
		n = -n
	}
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Options select the parts of a text report.
type Options struct {
	Lines     bool // the AllocFromPool / DeallocFromPool program
	MemoryMap bool // per pool, each buffer's bytes over time (TFLM-style)
}

// WriteReport prints a plan for people: a summary table, one line per
// pool, and optionally the program and a memory map. f holds the figures at
// the symbol values to report.
func WriteReport(w io.Writer, p *plan.Plan, f *plan.Figures, opts Options) error {
	// A 100,000-op program is a million small writes: buffered, not one
	// system call each.
	bw := bufio.NewWriterSize(w, 64<<10)
	ew := &errWriter{w: bw}
	if opts.Lines {
		ew.printf("program:\n")
		for _, l := range p.Lines {
			step := "     "
			if l.Step > 0 {
				step = fmt.Sprintf("%4d ", l.Step)
			}
			ew.printf("  %s%s%s\n", step, strings.Repeat("  ", l.Depth), l)
		}
		ew.printf("\n")
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "graph\t%s\n", quote.Text(p.Graph.Name))
	fmt.Fprintf(tw, "strategy\t%s (memory pool %s, align %d)\n", p.StrategyText(), p.Mode, p.Align)
	fmt.Fprintf(tw, "symbols\t%s\n", plan.EnvText(f.Symbols))
	for _, s := range p.Graph.Symbols {
		if s.RunTime() {
			fmt.Fprintf(tw, "run-time size\t%s, set by %s, planned at its bound %s\n", s.Name, s.SetBy.Place, *s.Bound)
		}
		if s.Doc != "" {
			fmt.Fprintf(tw, "symbol %s\t%s\n", s.Name, quote.Text(s.Doc))
		}
	}
	fmt.Fprintf(tw, "storages\t%d in %d pools, %d steps\n", len(p.Buffers), len(p.Pools), p.LastStep)
	fmt.Fprintf(tw, "lower bound\t%s\n", Bytes(f.LoadBytes))
	if p.AliasedOps > 0 {
		fmt.Fprintf(tw, "in place by may_alias\t%d ops (lower bound with declared inplace only: %s)\n", p.AliasedOps, Bytes(f.DeclaredLoadBytes))
	}
	fmt.Fprintf(tw, "mode bound\t%s (one pool per %s group, outputs' pools hosting intermediates before the outputs; time-split pools can go below)\n", Bytes(f.ModeBoundBytes), p.Mode)
	fmt.Fprintf(tw, "peak\t%s\n", Bytes(f.PeakBytes))
	fmt.Fprintf(tw, "naive\t%s\n", Bytes(f.NaiveBytes))
	fmt.Fprintf(tw, "peak / lower bound\t%.4f\n", f.Ratio())
	if f.RunTimeBytes > 0 && f.RunTimeBytes < f.PeakBytes {
		fmt.Fprintf(tw, "at run time\t%s (%.4f of the lower bound): the wrapper places the storages anew at these sizes, which needs less than the plan's placement\n",
			Bytes(f.RunTimeBytes), float64(f.RunTimeBytes)/float64(max(f.LoadBytes, 1)))
	} else if f.RunTimeBytes > 0 {
		fmt.Fprintf(tw, "at run time\tthe plan's placement (placing the storages anew at these sizes would not need less)\n")
	}
	if len(p.Graph.Symbols) > 0 {
		if r, err := p.Range(); err == nil && r.Points > 0 {
			fmt.Fprintf(tw, "across the range\tworst %.4f at %s, geomean %.4f over %d points (minimums, powers of two up to each max or %d, the hints)\n",
				r.Worst, plan.EnvText(r.WorstAt), r.Geomean, r.Points, p.RangeHorizon())
		} else if err == nil {
			fmt.Fprintf(tw, "across the range\tnot sampled: %d storages, over %d\n", len(p.Buffers), plan.MaxRangeBuffers)
		}
	}
	if len(p.Graph.Params)+len(p.Graph.Constants) > 0 {
		fmt.Fprintf(tw, "params\t%s in %d tensors, bound once, outside the pools\n", Bytes(f.ParamBytes), len(p.Graph.Params))
		fmt.Fprintf(tw, "constants\t%s in %d tensors, embedded in the wrapper\n", Bytes(f.ConstantBytes), len(p.Graph.Constants))
		if f.PackedBytes > 0 {
			fmt.Fprintf(tw, "packed params\t%s: the products' and convolutions' weight params in the reference kernels' panels, packed once by wrapgen run (-pack-weights) and held beside the params (by a generated wrapper's Runner made with Options.Prepare too)\n", Bytes(f.PackedBytes))
		}
		fmt.Fprintf(tw, "peak + params + constants\t%s\n", Bytes(f.PeakBytes+f.ParamBytes+f.ConstantBytes))
	}
	if f.LoadBytes > 0 {
		fmt.Fprintf(tw, "naive / lower bound\t%.2f\n", float64(f.NaiveBytes)/float64(f.LoadBytes))
	}
	for i, g := range p.Graph.Guards {
		label := ""
		if i == 0 {
			label = "guards (checked at run time)"
		}
		fmt.Fprintf(tw, "%s\t%s\n", label, g)
	}
	tw.Flush()
	ew.printf("\npools:\n")
	tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  name\tdevice\tstorages\tsteps\tbytes\tsize\n")
	for i, pool := range p.Pools {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t[%d, %d)\t%s\t%s\n", pool.Name, quote.Text(pool.Device), len(pool.Buffers), pool.Begin, pool.End, groupDigits(f.PoolBytes[i]), plan.ShortExpr(pool.Size.String(), "-json size_expr"))
	}
	tw.Flush()
	if opts.MemoryMap {
		writeMemoryMap(ew, p, f)
	}
	if ew.err != nil {
		return ew.err
	}
	return bw.Flush()
}

// writeMemoryMap prints each pool's storages by offset with their live
// steps, like TFLite Micro's PrintMemoryPlan, so a gap is visible.
func writeMemoryMap(ew *errWriter, p *plan.Plan, f *plan.Figures) {
	for i, pool := range p.Pools {
		ew.printf("\nmemory map of %s (%s bytes):\n", pool.Name, groupDigits(f.PoolBytes[i]))
		bs := append([]*plan.Buffer(nil), pool.Buffers...)
		sort.SliceStable(bs, func(a, b int) bool { return f.Offsets[bs[a].ID] < f.Offsets[bs[b].ID] })
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  offset\tbytes\tsteps\tstorage\n")
		for _, b := range bs {
			fmt.Fprintf(tw, "  %s\t%s\t[%d, %d)\t%s\n", groupDigits(f.Offsets[b.ID]), groupDigits(f.BufferBytes[b.ID]), b.Begin, b.End, strings.Join(b.TensorNames(), " = "))
		}
		tw.Flush()
	}
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(b []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(b)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }
