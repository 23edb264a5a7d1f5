package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"github.com/wrapgen/wrapgen/plan"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// guideSVG is the part of the picture the guides tests read.
type guideSVG struct {
	Groups []struct {
		Class string `xml:"class,attr"`
		Top   string `xml:"data-top,attr"`
		Rects []struct {
			Class  string `xml:"class,attr"`
			Kernel string `xml:"data-kernel,attr"`
			Begin  string `xml:"data-begin,attr"`
			X      string `xml:"x,attr"`
			Fill   string `xml:"fill,attr"`
			Title  string `xml:"title"`
		} `xml:"rect"`
		Texts []struct {
			Class string `xml:"class,attr"`
			Y     string `xml:"y,attr"`
			Text  string `xml:",chardata"`
		} `xml:"text"`
		Lines []struct {
			Class string `xml:"class,attr"`
			Step  string `xml:"data-step,attr"`
			X1    string `xml:"x1,attr"`
		} `xml:"line"`
	} `xml:"g"`
}

func drawGuides(t *testing.T, path string, opts plan.Options) (*plan.Plan, *plan.Figures, guideSVG) {
	t.Helper()
	p, f := planOf(t, path, opts)
	var buf bytes.Buffer
	require.NoError(t, WriteSVG(&buf, p, f, ""))
	var doc guideSVG
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &doc))
	return p, f, doc
}

func float(t *testing.T, s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err, "%q", s)
	return v
}

// The legend lists each kernel that colours a storage once, with that
// colour, and every storage's colour is in it.
func TestSVGLegendNamesEveryColour(t *testing.T) {
	p, _, doc := drawGuides(t, "../../graph/testdata/resnet18.json", plan.Options{})
	swatches := map[string]string{} // kernel -> fill
	fills := map[string]string{}    // fill -> kernel
	storageFills := map[string]bool{}
	for _, g := range doc.Groups {
		for _, r := range g.Rects {
			switch r.Class {
			case "swatch":
				require.NotContains(t, swatches, r.Kernel, "kernel %s listed twice", r.Kernel)
				swatches[r.Kernel], fills[r.Fill] = r.Fill, r.Kernel
			case "storage":
				storageFills[r.Fill] = true
				_, by, ok := strings.Cut(r.Title, "written by ")
				require.True(t, ok, r.Title)
				assert.Equal(t, colour(by), r.Fill)
			}
		}
	}
	require.NotEmpty(t, swatches)
	assert.Contains(t, swatches, "convolution")
	for fill := range storageFills {
		assert.Contains(t, fills, fill, "a storage colour with no legend entry")
	}
	for k, fill := range swatches {
		assert.True(t, storageFills[fill], "legend entry %s colours no storage", k)
	}
	assert.Len(t, legendKernels(p, producers(p)), len(swatches))
}

func TestStepTicks(t *testing.T) {
	for _, c := range []struct {
		steps int
		every int
	}{{0, 1}, {7, 1}, {10, 1}, {11, 2}, {25, 5}, {89, 10}, {90, 10}, {1000, 100}, {21_005, 2000}, {50_001, 5000}} {
		ticks := stepTicks(c.steps)
		require.NotEmpty(t, ticks)
		assert.Equal(t, 0, ticks[0])
		for i := 1; i < len(ticks); i++ {
			assert.Equal(t, c.every, ticks[i]-ticks[i-1], "steps %d", c.steps)
		}
		last := ticks[len(ticks)-1]
		assert.True(t, last <= c.steps && c.steps-last < c.every, "steps %d: last tick %d", c.steps, last)
		assert.LessOrEqual(t, len(ticks), svgTargetTick+1, "steps %d", c.steps)
	}
}

// The axis's ticks sit where storages that begin at those steps are drawn.
func TestSVGStepAxisMatchesStorages(t *testing.T) {
	p, _, doc := drawGuides(t, "../../examples/mlp/mlp.json", plan.Options{})
	tickX := map[string]float64{}
	for _, g := range doc.Groups {
		if g.Class != "step-axis" {
			continue
		}
		for _, l := range g.Lines {
			if l.Class == "tick" {
				tickX[l.Step] = float(t, l.X1)
			}
		}
	}
	require.Len(t, tickX, len(stepTicks(p.LastStep+1)))
	matched := 0
	for _, g := range doc.Groups {
		for _, r := range g.Rects {
			if x, ok := tickX[r.Begin]; ok && r.Class == "storage" {
				assert.InDelta(t, x, float(t, r.X), 0.01, "storage beginning at step %s", r.Begin)
				matched++
			}
		}
	}
	assert.Positive(t, matched)
}

// Every pool gets its name and size, however thin, and no two labels
// overlap: 104 pools, most a few pixels high.
func TestSVGEveryPoolLabelled(t *testing.T) {
	p, f, doc := drawGuides(t, "../../graph/testdata/resnet18.json", plan.Options{MemoryPool: plan.PoolNone})
	require.Greater(t, len(p.Pools), 100)
	var baselines []float64
	chartTop := 0.0
	for _, g := range doc.Groups {
		if g.Class == "chart" {
			chartTop = float(t, g.Top)
		}
	}
	seen := 0
	for _, g := range doc.Groups {
		if g.Class != "pool" {
			continue
		}
		i := seen
		seen++
		var text []string
		for _, tx := range g.Texts {
			if tx.Class == "pool-label" {
				text = append(text, tx.Text)
				baselines = append(baselines, float(t, tx.Y))
			}
		}
		label := strings.Join(text, " ")
		assert.Contains(t, label, p.Pools[i].Name, "pool %d", i)
		bytesShown := strings.Contains(label, Bytes(f.PoolBytes[i])) || strings.Contains(label, shortBytes(f.PoolBytes[i]))
		assert.True(t, bytesShown, "pool %d label %q shows its size", i, label)
	}
	require.Equal(t, len(p.Pools), seen)
	for i := 1; i < len(baselines); i++ {
		assert.GreaterOrEqual(t, baselines[i]-baselines[i-1], float64(svgLineH)-0.01, "labels %d and %d overlap", i-1, i)
	}
	assert.Less(t, baselines[len(baselines)-1], chartTop, "the labels end above the chart")
}

func TestShortBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 320: "320 B", 4096: "4.0 KiB", 6_422_528: "6.12 MiB", 3 << 30: "3.00 GiB"} {
		assert.Equal(t, want, shortBytes(n), fmt.Sprint(n))
	}
}
