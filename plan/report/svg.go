package report

import (
	"bufio"
	"fmt"
	"github.com/wrapgen/wrapgen/plan"
	"hash/fnv"
	"html"
	"io"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
)

// SVG layout, in pixels.
const (
	svgWidth     = 1200
	svgLeft      = 150 // pool labels
	svgRight     = 20
	svgTop       = 56 // title and summary
	svgPoolsH    = 560
	svgPoolGap   = 6
	svgChartGap  = 40
	svgChartH    = 180
	svgBottom    = 12
	svgMinPoolH  = 4
	svgLabelMinH = 11 // pools shorter than twice this get a one-line label
)

// WriteSVG draws the plan's memory map at the figures' symbol values: time
// (steps) across, offset down, one rectangle per storage in its pool (its
// tooltip names it), pools stacked with their sizes, and below them the
// live bytes at each step against the lower bound and the peak of the
// pools alive, so the gap between peak and bound is visible. Rectangles
// carry data-* attributes with the numbers they are drawn from. bucket,
// when not empty, ends the title: which size bucket's plan p is.
func WriteSVG(w io.Writer, p *plan.Plan, f *plan.Figures, bucket string) error {
	bw := bufio.NewWriter(w)
	ew := &errWriter{w: bw}
	steps := max(p.LastStep+1, 1)
	plotW := float64(svgWidth - svgLeft - svgRight)
	x := func(step int) float64 { return svgLeft + plotW*float64(step)/float64(steps) }

	// plan.Pool heights: proportional to bytes, with a floor so small pools show.
	var total int64
	for _, b := range f.PoolBytes {
		total += b
	}
	avail := float64(svgPoolsH - svgPoolGap*max(len(p.Pools)-1, 0))
	heights := make([]float64, len(p.Pools))
	for i, b := range f.PoolBytes {
		h := svgMinPoolH * 1.0
		if total > 0 {
			h = max(h, avail*float64(b)/float64(total))
		}
		heights[i] = h
	}
	tops := make([]float64, len(p.Pools))
	poolsEnd := float64(svgTop)
	for i, h := range heights {
		tops[i] = poolsEnd
		poolsEnd += h + svgPoolGap
	}
	labels := placePoolLabels(p, f, tops, heights)
	prod := producers(p)
	kernels := legendKernels(p, prod)
	chartTop := max(poolsEnd, labelsBottom(labels)) + svgChartGap
	axisY := chartTop + svgChartH
	legendTop := axisY + svgAxisH + 22
	height := legendTop + float64(legendRows(kernels)*svgLegendRow) + svgBottom

	ew.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="sans-serif" font-size="11">`+"\n", svgWidth, height, svgWidth, height)
	ew.printf("<title>%s</title>\n", esc(fmt.Sprintf("wrapgen memory plan of %s", p.Graph.Name)))
	ew.printf(`<rect x="0" y="0" width="%d" height="%.0f" fill="#ffffff"/>`+"\n", svgWidth, height)
	ew.printf(`<text x="10" y="20" font-size="15" font-weight="bold">%s</text>`+"\n",
		esc(fmt.Sprintf("%s: %s, memory pools %s, at %s%s", p.Graph.Name, p.StrategyText(), p.Mode, plan.EnvText(f.Symbols), bucket)))
	ew.printf(`<text x="10" y="40">%s</text>`+"\n", esc(fmt.Sprintf("%d storages in %d pools over %d steps · lower bound %s · peak %s (%.4f×) · naive %s",
		len(p.Buffers), len(p.Pools), p.LastStep, Bytes(f.LoadBytes), Bytes(f.PeakBytes), f.Ratio(), Bytes(f.NaiveBytes))))

	// Pools and their storages.
	writeStepAxis(ew, steps, x, svgTop, axisY)
	thin := len(p.Buffers) > 500
	aliased := p.AliasedBuffers()
	for i, pool := range p.Pools {
		y, h := tops[i], heights[i]
		ew.printf(`<g class="pool" data-pool="%s" data-bytes="%d" data-y="%.3f" data-height="%.3f">`+"\n", pool.Name, f.PoolBytes[i], y, h)
		ew.printf(`<rect x="%.2f" y="%.3f" width="%.2f" height="%.3f" fill="#f4f4f4" stroke="#999" stroke-width="0.5"><title>%s</title></rect>`+"\n",
			x(pool.Begin), y, x(pool.End)-x(pool.Begin), h, esc(fmt.Sprintf("%s on %s: %s, steps [%d, %d), size %s", pool.Name, pool.Device, Bytes(f.PoolBytes[i]), pool.Begin, pool.End, pool.Size)))
		writePoolLabel(ew, labels[i], x(pool.Begin))
		scale := 0.0
		if f.PoolBytes[i] > 0 {
			scale = h / float64(f.PoolBytes[i])
		}
		for _, b := range pool.Buffers {
			by := y + float64(f.Offsets[b.ID])*scale
			bh := max(float64(f.BufferBytes[b.ID])*scale, 0.5)
			stroke := ` stroke="#333" stroke-width="0.3"`
			if thin {
				stroke = ""
			}
			class := "storage"
			if aliased[b] { // joined by the planner's in-place reuse: outlined dashed
				class, stroke = "storage aliased", ` stroke="#000" stroke-width="1" stroke-dasharray="3 2"`
			}
			ew.printf(`<rect class="%s" data-buffer="%d" data-pool="%s" data-offset="%d" data-bytes="%d" data-begin="%d" data-end="%d" x="%.2f" y="%.3f" width="%.2f" height="%.3f" fill="%s"%s><title>%s</title></rect>`+"\n",
				class, b.ID, pool.Name, f.Offsets[b.ID], f.BufferBytes[b.ID], b.Begin, b.End, x(b.Begin), by, max(x(b.End)-x(b.Begin), 0.5), bh, colour(producer(prod, b)), stroke, esc(storageTitle(prod, f, b)))
		}
		ew.printf("</g>\n")
	}

	// Live bytes over time against the lower bound and the pools' peak.
	live, pools := liveSeries(p, f)
	top := max(f.PeakBytes, f.LoadBytes, 1)
	cy := func(v int64) float64 { return chartTop + svgChartH - svgChartH*float64(v)/float64(top) }
	ew.printf(`<g class="chart" data-top="%.3f" data-height="%d" data-max="%d">`+"\n", chartTop, svgChartH, top)
	ew.printf(`<rect x="%d" y="%.2f" width="%.2f" height="%d" fill="none" stroke="#999" stroke-width="0.5"/>`+"\n", svgLeft, chartTop, plotW, svgChartH)
	ew.printf(`<text x="%d" y="%.2f" text-anchor="end">%s</text>`+"\n", svgLeft-6, chartTop+10, esc(Bytes(top)))
	ew.printf(`<text x="%d" y="%.2f" text-anchor="end">0</text>`+"\n", svgLeft-6, chartTop+svgChartH)
	ew.printf(`<polyline class="pools-alive" fill="none" stroke="#d62728" stroke-width="1.2" points="%s"><title>bytes of pools alive (peak %s)</title></polyline>`+"\n", steps2points(pools, x, cy), esc(Bytes(f.PeakBytes)))
	ew.printf(`<polyline class="live" fill="none" stroke="#1f77b4" stroke-width="1.2" points="%s"><title>bytes of live storages</title></polyline>`+"\n", steps2points(live, x, cy))
	ew.printf(`<line class="lower-bound" x1="%d" x2="%.2f" y1="%.2f" y2="%.2f" stroke="#2ca02c" stroke-dasharray="4 3"><title>lower bound %s</title></line>`+"\n",
		svgLeft, svgLeft+plotW, cy(f.LoadBytes), cy(f.LoadBytes), esc(Bytes(f.LoadBytes)))
	ly := axisY + svgAxisH + 8
	ew.printf(`<text x="%d" y="%.2f"><tspan fill="#1f77b4">━ live storage bytes</tspan>  <tspan fill="#d62728">━ pools alive (peak %s)</tspan>  <tspan fill="#2ca02c">┅ lower bound %s</tspan></text>`+"\n",
		svgLeft, ly, esc(Bytes(f.PeakBytes)), esc(Bytes(f.LoadBytes)))
	ew.printf("</g>\n")
	writeLegend(ew, kernels, legendTop)
	ew.printf("</svg>\n")
	if ew.err != nil {
		return ew.err
	}
	return bw.Flush()
}

// liveSeries gives, for each step, the aligned bytes of live storages and
// the bytes of pools alive (the quantities behind LoadBytes and PeakBytes).
func liveSeries(p *plan.Plan, f *plan.Figures) (live, pools []int64) {
	n := p.LastStep + 2
	dl, dp := make([]int64, n+1), make([]int64, n+1)
	for _, b := range p.Buffers {
		sz := plan.AlignUp(f.BufferBytes[b.ID], p.Align)
		dl[min(b.Begin, n)] += sz
		dl[min(b.End, n)] -= sz
	}
	for i, pool := range p.Pools {
		dp[min(pool.Begin, n)] += f.PoolBytes[i]
		dp[min(pool.End, n)] -= f.PoolBytes[i]
	}
	live, pools = make([]int64, n), make([]int64, n)
	var l, q int64
	for s := 0; s < n; s++ {
		l += dl[s]
		q += dp[s]
		live[s], pools[s] = l, q
	}
	return live, pools
}

// steps2points draws a step function: each value holds from its step to
// the next.
func steps2points(vals []int64, x func(int) float64, y func(int64) float64) string {
	var b strings.Builder
	for s, v := range vals {
		if s+1 >= len(vals) {
			break
		}
		fmt.Fprintf(&b, "%.2f,%.2f %.2f,%.2f ", x(s), y(v), x(s+1), y(v))
	}
	return strings.TrimSpace(b.String())
}

func storageTitle(prod map[*graph.Tensor]string, f *plan.Figures, b *plan.Buffer) string {
	names := b.TensorNames()
	return fmt.Sprintf("%s: %s at offset %s of %s, steps [%d, %d), written by %s", strings.Join(names, " → "),
		Bytes(f.BufferBytes[b.ID]), groupDigits(f.Offsets[b.ID]), b.Pool.Name, b.Begin, b.End, producer(prod, b))
}

// producers maps each storage owner to the kernel that first writes it
// (the storage's colour).
func producers(p *plan.Plan) map[*graph.Tensor]string {
	m := map[*graph.Tensor]string{}
	graph.Walk(p.Graph.Ops, func(op *graph.Op, _ []*graph.Op) {
		for _, t := range append(op.Outputs, op.Mutates...) {
			if _, ok := m[t.Root]; !ok {
				m[t.Root] = op.Kernel
			}
		}
	})
	return m
}

func producer(m map[*graph.Tensor]string, b *plan.Buffer) string {
	if k, ok := m[b.Owner()]; ok {
		return k
	}
	return "(none)"
}

// colour picks a stable, distinct colour per kernel name.
func colour(kernel string) string {
	h := fnv.New32a()
	h.Write([]byte(kernel))
	v := h.Sum32()
	return fmt.Sprintf("hsl(%d, %d%%, %d%%)", v%360, 45+v/360%30, 55+v/10800%20)
}

func esc(s string) string { return html.EscapeString(s) }
