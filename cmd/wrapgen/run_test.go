package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/plan/report"
)

// sharedGraphs holds in-repository copies of ../shared/graphs (the real
// recorded graphs), so a fresh clone tests alone.
const sharedGraphs = "../../graph/testdata"

func runCLI(args ...string) (string, string, error) {
	var out, errb bytes.Buffer
	err := run(args, &out, &errb)
	return out.String(), errb.String(), err
}

func TestPlanJSON(t *testing.T) {
	out, _, err := runCLI("plan", "-json", "-strategy", "inductor", filepath.Join(sharedGraphs, "resnet18.json"))
	require.NoError(t, err)
	var p report.Plan
	require.NoError(t, json.Unmarshal([]byte(out), &p))
	assert.Equal(t, "resnet18", p.Graph)
	assert.Equal(t, "inductor", p.Strategy)
	assert.Equal(t, "intermediates", p.MemoryPool)
	assert.Equal(t, int64(64), p.Align)
	assert.Equal(t, int64(1), p.Symbols["batch"])
	assert.Equal(t, int64(6_422_528), p.LoadBytes)
	assert.Equal(t, int64(8_032_160), p.PeakBytes)
	require.NotEmpty(t, p.Pools)
	require.NotEmpty(t, p.Buffers)
	for _, b := range p.Buffers {
		assert.NotEmpty(t, b.Pool)
		assert.NotEmpty(t, b.SizeExpr)
		assert.NotEmpty(t, b.OffsetExpr)
		assert.Contains(t, b.Names, b.Tensor)
	}
}

func TestPlanAtOtherBatch(t *testing.T) {
	out, _, err := runCLI("plan", "-json", "-strategy", "inductor", "-at", "batch=8", filepath.Join(sharedGraphs, "resnet18.json"))
	require.NoError(t, err)
	var p report.Plan
	require.NoError(t, json.Unmarshal([]byte(out), &p))
	assert.Equal(t, int64(8), p.Symbols["batch"])
	assert.Equal(t, int64(1), p.Hints["batch"], "planned at the hint")
	assert.Equal(t, int64(8*6_422_528), p.LoadBytes)
	assert.Equal(t, int64(8*8_032_160), p.PeakBytes, "every size is linear in batch here")
}

func TestPlanText(t *testing.T) {
	out, _, err := runCLI("plan", filepath.Join(sharedGraphs, "mobilenet_v2.json"))
	require.NoError(t, err)
	for _, want := range []string{"AllocFromPool", "DeallocFromPool", "PoolCreate", "PoolRelease", "lower bound", "peak", "naive", "pool0"} {
		assert.Contains(t, out, want)
	}
}

func TestCLIErrors(t *testing.T) {
	_, _, err := runCLI()
	assert.Equal(t, 2, exitCode(err))
	_, _, err = runCLI("frobnicate")
	assert.ErrorContains(t, err, "unknown command")
	assert.Equal(t, 2, exitCode(err))
	_, _, err = runCLI("plan")
	assert.ErrorContains(t, err, "one graph file")
	_, _, err = runCLI("plan", "-at", "batch", "x.json")
	assert.Equal(t, 2, exitCode(err))
	_, _, err = runCLI("plan", "-at", "seq=3", filepath.Join(sharedGraphs, "resnet18.json"))
	assert.ErrorContains(t, err, `no symbol "seq"`)

	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\"name\": \"g\",\n \"tensors\": [}"), 0o644))
	_, _, err = runCLI("plan", bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad+":2:")
	assert.Equal(t, exitBadInput, exitCode(err))
}

func TestBench(t *testing.T) {
	out, _, err := runCLI("bench", "-strategies", "best,inductor", "-synth", "200", "-batches", "1,8", filepath.Join(sharedGraphs, "resnet18.json"))
	require.NoError(t, err)
	assert.Contains(t, out, "resnet18.json")
	assert.Contains(t, out, "synth-transformer-200")
	assert.Contains(t, out, "1.2506", "inductor's ratio on resnet18")
	assert.Contains(t, out, "best (search won)")
	assert.Regexp(t, `best\s+peak/lb geomean 1\.000\d`, out)
	assert.Regexp(t, `synth-transformer-200\s+best \(\w+ won\)\s+\d+\s+[\d.]+\s+1\.0000\s+1\.0000`, out,
		"outputs' pools host intermediates: the encoder reaches its lower bound")
	_, _, err = runCLI("bench", "-synth", "x")
	assert.Equal(t, 2, exitCode(err))
}

func TestPlanSVGEveryGraph(t *testing.T) {
	graphs, _ := filepath.Glob(filepath.Join(sharedGraphs, "*.json"))
	graphs = append(graphs, "../../examples/mlp/mlp.json", "../../examples/rnn/rnn.json")
	for _, g := range graphs {
		svg := filepath.Join(t.TempDir(), "plan.svg")
		out, _, err := runCLI("plan", "-json", "-svg", svg, g)
		require.NoError(t, err, g)
		var p report.Plan
		require.NoError(t, json.Unmarshal([]byte(out), &p))
		data, err := os.ReadFile(svg)
		require.NoError(t, err)
		var doc struct {
			Groups []struct {
				Rects []struct {
					Class string `xml:"class,attr"`
				} `xml:"rect"`
			} `xml:"g"`
		}
		require.NoError(t, xml.Unmarshal(data, &doc), "%s: the SVG is not well-formed", g)
		shapes := 0
		for _, grp := range doc.Groups {
			for _, r := range grp.Rects {
				if r.Class == "storage" {
					shapes++
				}
			}
		}
		assert.Equal(t, len(p.Buffers), shapes, "%s: one shape per storage", g)
	}
}
