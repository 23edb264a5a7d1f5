package report

import (
	"fmt"
	"github.com/wrapgen/wrapgen/plan"
	"math"
	"sort"

	"github.com/wrapgen/wrapgen/graph"
)

// The picture's guides: pool labels that never collide, the step axis and
// the legend of kernel colours.

const (
	svgLineH      = 12  // baseline distance between label lines
	svgAxisH      = 30  // step axis: ticks, numbers and its name
	svgLegendRow  = 16  // legend row height
	svgLegendCol  = 195 // legend column width
	svgLegendMax  = 60  // kernels listed; the rest are counted
	svgTargetTick = 10  // about this many ticks on the step axis
)

// poolLabel is where a pool's name and size are written in the left
// margin: two lines inside a tall pool, else one line, moved down past the
// label above it when pools are thin, with a leader line to its pool.
type poolLabel struct {
	lines    []string
	baseline float64 // of the first line
	leader   bool    // drawn away from its pool: connect them
	poolMid  float64
}

// placePoolLabels lays out one label per pool, top to bottom, at least a
// line apart; tops and heights are the pools' in the picture.
func placePoolLabels(p *plan.Plan, f *plan.Figures, tops, heights []float64) []poolLabel {
	labels := make([]poolLabel, len(p.Pools))
	floor := math.Inf(-1) // lowest baseline allowed for the next label
	for i, pool := range p.Pools {
		y, h := tops[i], heights[i]
		l := poolLabel{poolMid: y + h/2}
		if h >= 2*svgLabelMinH {
			l.lines = []string{fmt.Sprintf("%s on %s", pool.Name, pool.Device), Bytes(f.PoolBytes[i])}
			l.baseline = y + 10
		} else {
			l.lines = []string{fmt.Sprintf("%s · %s", pool.Name, shortBytes(f.PoolBytes[i]))}
			l.baseline = y + h/2 + 4
		}
		if l.baseline < floor {
			l.baseline = floor
			// Moved out of its pool's height: draw a line to the pool.
			mid := l.baseline - 4
			l.leader = mid < y-1 || mid > y+h+1
		}
		floor = l.baseline + svgLineH*float64(len(l.lines))
		labels[i] = l
	}
	return labels
}

// labelsBottom is the lowest point the labels reach.
func labelsBottom(labels []poolLabel) float64 {
	if len(labels) == 0 {
		return 0
	}
	l := labels[len(labels)-1]
	return l.baseline + svgLineH*float64(len(l.lines)-1) + 4
}

func writePoolLabel(ew *errWriter, l poolLabel, poolX float64) {
	for j, line := range l.lines {
		ew.printf(`<text class="pool-label" x="%d" y="%.2f" text-anchor="end">%s</text>`+"\n", svgLeft-6, l.baseline+float64(j*svgLineH), esc(line))
	}
	if l.leader {
		ew.printf(`<polyline class="pool-leader" fill="none" stroke="#999" stroke-width="0.5" points="%d,%.2f %.2f,%.2f"/>`+"\n",
			svgLeft-3, l.baseline-4, poolX, l.poolMid)
	}
}

// shortBytes is a size in at most a few characters, for one-line labels.
func shortBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// stepTicks are the steps marked on the axis: multiples of 1, 2 or 5
// times a power of ten, about svgTargetTick of them from 0 to steps.
func stepTicks(steps int) []int {
	every := 1
	for scale := 1; ; scale *= 10 {
		found := false
		for _, m := range []int{1, 2, 5} {
			if steps/(m*scale) <= svgTargetTick {
				every, found = m*scale, true
				break
			}
		}
		if found {
			break
		}
	}
	var ticks []int
	for s := 0; s <= steps; s += every {
		ticks = append(ticks, s)
	}
	return ticks
}

// stepAxis draws the step axis below the chart at y, with faint grid
// lines from top down to it so steps can be read off the pools too.
func writeStepAxis(ew *errWriter, steps int, x func(int) float64, top, y float64) {
	ew.printf(`<g class="step-axis" data-y="%.2f">`+"\n", y)
	ew.printf(`<line x1="%d" x2="%.2f" y1="%.2f" y2="%.2f" stroke="#666" stroke-width="0.8"/>`+"\n", svgLeft, x(steps), y, y)
	for _, s := range stepTicks(steps) {
		ew.printf(`<line class="grid" x1="%.2f" x2="%.2f" y1="%.2f" y2="%.2f" stroke="#000" stroke-opacity="0.07" stroke-width="0.5"/>`+"\n", x(s), x(s), top, y)
		ew.printf(`<line class="tick" data-step="%d" x1="%.2f" x2="%.2f" y1="%.2f" y2="%.2f" stroke="#666" stroke-width="0.8"/>`+"\n", s, x(s), x(s), y, y+4)
		ew.printf(`<text x="%.2f" y="%.2f" text-anchor="middle">%d</text>`+"\n", x(s), y+15, s)
	}
	ew.printf(`<text x="%.2f" y="%.2f" text-anchor="end">step →</text>`+"\n", x(steps), y+27)
	ew.printf("</g>\n")
}

// kernelUse is one legend entry: a kernel and how many storages it writes
// first (so has coloured).
type kernelUse struct {
	kernel   string
	storages int
}

// legendKernels lists the kernels whose colour some storage has, most
// storages first, then by name.
func legendKernels(p *plan.Plan, prod map[*graph.Tensor]string) []kernelUse {
	count := map[string]int{}
	for _, b := range p.Buffers {
		count[producer(prod, b)]++
	}
	uses := make([]kernelUse, 0, len(count))
	for k, n := range count {
		uses = append(uses, kernelUse{k, n})
	}
	sort.Slice(uses, func(i, j int) bool {
		if uses[i].storages != uses[j].storages {
			return uses[i].storages > uses[j].storages
		}
		return uses[i].kernel < uses[j].kernel
	})
	return uses
}

// legendRows is how many rows the legend of uses takes, its title included.
func legendRows(uses []kernelUse) int {
	shown := min(len(uses), svgLegendMax)
	if len(uses) > shown {
		shown++ // the "and N more" entry
	}
	cols := (svgWidth - 20) / svgLegendCol
	return 1 + (shown+cols-1)/cols
}

// legend draws a swatch and the name of each kernel, in columns from y.
func writeLegend(ew *errWriter, uses []kernelUse, y float64) {
	ew.printf(`<g class="legend" data-kernels="%d">`+"\n", len(uses))
	ew.printf(`<text x="10" y="%.2f"><tspan font-weight="bold">colour: kernel that first writes the storage (storages)</tspan>; (none): no op writes it; outlined dashed: two or more tensors share it by the planner's in-place reuse</text>`+"\n", y+11)
	cols := (svgWidth - 20) / svgLegendCol
	for i, u := range uses {
		col, row := i%cols, 1+i/cols
		lx, ly := 10+float64(col*svgLegendCol), y+float64(row*svgLegendRow)
		if i == svgLegendMax {
			ew.printf(`<text x="%.2f" y="%.2f">and %d more kernels (see tooltips)</text>`+"\n", lx, ly+11, len(uses)-i)
			break
		}
		ew.printf(`<rect class="swatch" data-kernel="%s" x="%.2f" y="%.2f" width="12" height="12" fill="%s" stroke="#333" stroke-width="0.3"/>`+"\n",
			esc(u.kernel), lx, ly+1, colour(u.kernel))
		ew.printf(`<text x="%.2f" y="%.2f">%s</text>`+"\n", lx+17, ly+11, esc(fmt.Sprintf("%s (%d)", clip(u.kernel, 24), u.storages)))
	}
	ew.printf("</g>\n")
}

// clip shortens s to n runes with an ellipsis, so legend columns keep apart.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
