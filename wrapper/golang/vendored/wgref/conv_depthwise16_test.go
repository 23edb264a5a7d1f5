package wgref

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// depthwiseBlockWidths are the channel blocks this CPU runs: 16 with
// AVX-512, 8 with AVX2.
func depthwiseBlockWidths() []int {
	var ws []int
	if depthwise16Vector {
		ws = append(ws, 16)
	}
	if depthwise8Vector {
		ws = append(ws, 8)
	}
	return ws
}

// useDepthwiseBlocks takes blocks of lanes channels (0: tap rows).
func useDepthwiseBlocks(lanes int) {
	depthwise16Vector, depthwise8Vector = lanes == 16, lanes == 8
}

// Depthwise convolutions taken sixteen or eight channels at a time,
// against the definition and against the tap rows: channel counts that leave some
// planes over, MobileNet's and EfficientNet's small planes, strides 1 and
// 2, 3x3 to 7x7 kernels, dilations, asymmetric and large pads, batches,
// inputs whose rows are apart in memory, planes taken in bands of rows,
// and rows too wide for a band (which take the tap rows).
func TestConvDepthwise16MatchesDirect(t *testing.T) {
	widths := depthwiseBlockWidths()
	if len(widths) == 0 {
		t.Skip("no AVX2 on this CPU: no blocks of channels are taken")
	}
	defer func(v, v8 bool) { depthwise16Vector, depthwise8Vector = v, v8 }(depthwise16Vector, depthwise8Vector)
	for _, lanes := range widths {
		testConvDepthwiseBlocks(t, lanes)
	}
}

func testConvDepthwiseBlocks(t *testing.T, lanes int) {
	r := rand.New(rand.NewSource(27))
	cases := []convCase{
		{n: 1, ch: 16, mult: 1, in: []int{7, 7}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true},
		{n: 2, ch: 35, mult: 1, in: []int{14, 14}, k: []int{5, 5}, s: []int{1, 1}, d: []int{1, 1}, p: []int{2, 2, 2, 2}, bias: true},
		{n: 1, ch: 32, mult: 1, in: []int{14, 14}, k: []int{5, 5}, s: []int{2, 2}, d: []int{1, 1}, p: []int{2, 2, 2, 2}},
		{n: 1, ch: 17, mult: 1, in: []int{9, 11}, k: []int{3, 5}, s: []int{2, 1}, d: []int{2, 1}, p: []int{0, 3, 2, 1}, bias: true},
		{n: 1, ch: 16, mult: 1, in: []int{5, 6}, k: []int{7, 7}, s: []int{1, 1}, d: []int{1, 1}, p: []int{3, 3, 3, 3}, bias: true},
		{n: 1, ch: 16, mult: 1, in: []int{3, 3}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{4, 5, 4, 5}, bias: true},
		{n: 2, ch: 20, mult: 1, in: []int{12, 10}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true, rowGap: 3},
		{n: 1, ch: 16, mult: 1, in: []int{1, 1}, k: []int{1, 1}, s: []int{1, 1}, d: []int{1, 1}, p: []int{0, 0, 0, 0}},
		{n: 1, ch: 16, mult: 1, in: []int{56, 56}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true},   // bands of 11 rows
		{n: 1, ch: 18, mult: 1, in: []int{112, 112}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, p: []int{0, 0, 1, 1}, bias: true}, // bands of a row
		{n: 1, ch: 16, mult: 1, in: []int{28, 28}, k: []int{5, 5}, s: []int{1, 1}, d: []int{1, 1}, p: []int{2, 2, 2, 2}, bias: true},
		{n: 2, ch: 16, mult: 1, in: []int{57, 56}, k: []int{5, 5}, s: []int{2, 2}, d: []int{1, 1}, p: []int{2, 2, 2, 2}, rowGap: 2},
		{n: 1, ch: 16, mult: 1, in: []int{5, 400}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}}, // rows too wide: tap rows
		{n: 1, ch: 16, mult: 2, in: []int{7, 7}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}},   // a multiplier: tap rows
		// Eight-channel blocks: 9 and 13 channels, a 3x3 stride-2 plane.
		{n: 1, ch: 9, mult: 1, in: []int{13, 13}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true},
		{n: 1, ch: 13, mult: 1, in: []int{6, 5}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true},
		{n: 1, ch: 8, mult: 1, in: []int{4, 1}, k: []int{3, 1}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 0, 1, 0}},
	}
	// Rows of 1 to 17 positions at strides 1 and 2: every group the
	// kernels take a row's positions in (eights, then the last one to
	// seven together).
	for ow := 1; ow <= 17; ow++ {
		for s := 1; s <= 2; s++ {
			cases = append(cases, convCase{n: 1, ch: 16, mult: 1, in: []int{3, (ow-1)*s + 1}, k: []int{3, 3}, s: []int{s, s}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true})
		}
	}
	for _, tc := range cases {
		tc.step = 1
		useDepthwiseBlocks(lanes)
		got, want, c := tc.run(t, r)
		requireClose(t, want.Float32s(), got.Float32s(), 1e-5, "%d lanes: %s", lanes, tc.String())
		assert.Zero(t, testing.AllocsPerRun(3, func() { _ = Call(c) }), "%d lanes: %v allocates", lanes, tc)
		useDepthwiseBlocks(0)
		rows := wgrt.New(wgrt.F32, got.Shape...)
		c.Outputs[0] = rows
		require.NoError(t, Call(c))
		requireClose(t, rows.Float32s(), got.Float32s(), 1e-6, "%d lanes: %s against tap rows", lanes, tc.String())
	}
}

// The activation a fused depthwise convolution ends in runs on the
// blocks as on the planes.
func TestConvDepthwise16Activations(t *testing.T) {
	widths := depthwiseBlockWidths()
	if len(widths) == 0 {
		t.Skip("no AVX2 on this CPU: no blocks of channels are taken")
	}
	defer func(v, v8 bool) { depthwise16Vector, depthwise8Vector = v, v8 }(depthwise16Vector, depthwise8Vector)
	for _, lanes := range widths {
		testConvDepthwiseBlockActivations(t, lanes)
	}
}

func testConvDepthwiseBlockActivations(t *testing.T, lanes int) {
	r := rand.New(rand.NewSource(28))
	tc := convCase{n: 1, ch: 24, mult: 1, in: []int{7, 7}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true, step: 1}
	c := tc.call(r)
	x, w, bias := c.Inputs[0], c.Inputs[1], &c.Inputs[2]
	ca := convAttrs{kernel: tc.k, strides: tc.s, pads: tc.p, dilations: tc.d, group: tc.ch}
	for _, act := range []fusedAct{{kind: "Relu"}, {kind: "HardSwish"}, {kind: "SiLU"}, {kind: "Clip", alpha: 0, beta: 6}} {
		want := wgrt.New(wgrt.F32, c.Outputs[0].Shape...)
		convDirect(x, w, bias, want, ca)
		act.apply(want.Float32s())
		got := wgrt.New(wgrt.F32, want.Shape...)
		useDepthwiseBlocks(lanes)
		require.True(t, convDepthwiseF32(x, w, bias, got, ca, act, defaultThreads))
		requireClose(t, want.Float32s(), got.Float32s(), 1e-5, "%d lanes: %s", lanes, fmt.Sprint(act.kind))
	}
}
