package report

import (
	"bytes"
	"encoding/xml"
	"github.com/wrapgen/wrapgen/plan"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/synth"
)

type svgDoc struct {
	XMLName xml.Name  `xml:"svg"`
	Groups  []svgNode `xml:"g"`
}

type svgNode struct {
	Class  string     `xml:"class,attr"`
	Attrs  []xml.Attr `xml:",any,attr"`
	Rects  []svgNode  `xml:"rect"`
	Lines  []svgNode  `xml:"line"`
	Polys  []svgNode  `xml:"polyline"`
	Title  string     `xml:"title"`
	Points string     `xml:"points,attr"`
}

func (n svgNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n svgNode) num(t *testing.T, name string) float64 {
	v, err := strconv.ParseFloat(n.attr(name), 64)
	require.NoError(t, err, "attribute %s", name)
	return v
}

// checkSVG parses the picture and checks it against the plan: one shape per
// storage, in its pool, at a position that follows from its offset.
func checkSVG(t *testing.T, p *plan.Plan) {
	f, err := p.Figures(nil)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteSVG(&buf, p, f, ""))
	var doc svgDoc
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &doc), "the SVG is not well-formed XML")
	storages := map[int]bool{}
	pools := 0
	for _, g := range doc.Groups {
		switch g.Class {
		case "pool":
			pools++
			poolBytes := g.num(t, "data-bytes")
			top, height := g.num(t, "data-y"), g.num(t, "data-height")
			for _, r := range g.Rects {
				if r.Class != "storage" {
					continue
				}
				id := int(r.num(t, "data-buffer"))
				require.False(t, storages[id], "storage %d drawn twice", id)
				storages[id] = true
				b := p.Buffers[id]
				assert.Equal(t, b.Pool.Name, g.attr("data-pool"))
				assert.Equal(t, float64(f.Offsets[id]), r.num(t, "data-offset"))
				assert.Equal(t, float64(f.BufferBytes[id]), r.num(t, "data-bytes"))
				want := top
				if poolBytes > 0 {
					want += float64(f.Offsets[id]) * height / poolBytes
				}
				assert.InDelta(t, want, r.num(t, "y"), 0.01, "storage %d is drawn where its offset says", id)
				assert.LessOrEqual(t, r.num(t, "y")+r.num(t, "height"), top+height+0.51, "storage %d stays inside its pool", id)
				assert.NotEmpty(t, r.Title, "storage %d has a tooltip", id)
			}
		case "chart":
			require.Len(t, g.Polys, 2)
			require.Len(t, g.Lines, 1)
			assert.Equal(t, "lower-bound", g.Lines[0].Class)
			assert.NotEmpty(t, g.Polys[0].Points)
		}
	}
	assert.Equal(t, len(p.Pools), pools)
	assert.Len(t, storages, len(p.Buffers), "one shape per storage")
}

func TestSVGSmallGraph(t *testing.T) {
	g, err := graph.Load("../../examples/mlp/mlp.json")
	require.NoError(t, err)
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	checkSVG(t, p)
}

func TestSVGManyStorages(t *testing.T) {
	data, err := synth.Graph(synth.Transformer, 6000)
	require.NoError(t, err)
	g, err := graph.Parse("synth.json", data)
	require.NoError(t, err)
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	require.Greater(t, len(p.Buffers), 2500)
	checkSVG(t, p)
}

func TestSVGEveryMode(t *testing.T) {
	g, err := graph.Load("../../examples/mlp/mlp.json")
	require.NoError(t, err)
	for _, m := range plan.MemoryPools {
		p, err := plan.Make(g, plan.Options{MemoryPool: m})
		require.NoError(t, err)
		checkSVG(t, p)
	}
}
