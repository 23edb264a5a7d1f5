package wgref

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Grouped convolutions in eight-channel blocks (mix8AVX2, mix8AccAVX2),
// against the definition and against the tap rows: 2, 4, 8 and 16
// channels a group,
// strides 1 and 2, rows of 1 to 17 positions,
// pads, dilations, batches and rows apart in memory, the filters laid out
// per block or once (Prepare); then with a fused
// activation. Cases it does not suit (more channels a group, more outputs
// than inputs, 5x5 kernels) take the other paths.
func TestConvMixed8MatchesDirect(t *testing.T) {
	if !mix8Vector {
		t.Skip("no AVX2 on this CPU: the mixed blocks are not taken")
	}
	defer func(v, v16 bool) { mix8Vector, depthwise16Vector = v, v16 }(mix8Vector, depthwise16Vector)
	// With AVX-512, sixteen channels a group take blocks of sixteen;
	// without (depthwise16Vector off), two blocks of eight inputs.
	widths := []bool{false}
	if depthwise16Vector {
		widths = append(widths, true)
	}
	for _, wide := range widths {
		depthwise16Vector = wide
		testConvMixed8MatchesDirect(t, wide)
	}
}

func testConvMixed8MatchesDirect(t *testing.T, wide bool) {
	r := rand.New(rand.NewSource(29))
	cases := []convCase{
		{n: 1, ch: 48, mult: 1, group: 6, in: []int{56, 56}, k: []int{3, 3}, s: []int{2, 2}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true}, // RegNet's first
		{n: 1, ch: 104, mult: 1, group: 13, in: []int{28, 28}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true},
		{n: 2, ch: 16, mult: 1, group: 4, in: []int{13, 15}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, rowGap: 3},
		{n: 1, ch: 24, mult: 1, group: 12, in: []int{7, 7}, k: []int{3, 3}, s: []int{1, 1}, d: []int{2, 2}, p: []int{2, 2, 2, 2}, bias: true},
		{n: 1, ch: 16, mult: 1, group: 2, in: []int{9, 11}, k: []int{3, 1}, s: []int{2, 2}, d: []int{1, 1}, p: []int{0, 1, 2, 0}, bias: true},
		{n: 1, ch: 32, mult: 1, group: 4, in: []int{5, 3}, k: []int{1, 1}, s: []int{1, 1}, d: []int{1, 1}, p: []int{0, 0, 0, 0}},
		{n: 1, ch: 16, mult: 1, group: 2, in: []int{12, 12}, k: []int{3, 3}, s: []int{3, 3}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true}, // stride 3: one by one
		{n: 1, ch: 32, mult: 1, group: 2, in: []int{9, 9}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}},               // 16 a group: not taken
		{n: 1, ch: 16, mult: 2, group: 4, in: []int{9, 9}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}},               // twice the outputs: not taken
		{n: 1, ch: 16, mult: 1, group: 4, in: []int{9, 9}, k: []int{5, 5}, s: []int{1, 1}, d: []int{1, 1}, p: []int{2, 2, 2, 2}},               // 25 taps: not taken
	}
	// Rows of 1 to 17 positions at strides 1 and 2, eight and sixteen
	// channels a group: every group the kernels take a row's positions
	// in (eights, then the last one to seven, in one to four chains).
	for ow := 1; ow <= 17; ow++ {
		for s := 1; s <= 2; s++ {
			for _, ch := range []int{16, 32} {
				cases = append(cases, convCase{n: 1, ch: ch, mult: 1, group: 2, in: []int{3, (ow-1)*s + 1}, k: []int{3, 3}, s: []int{s, s}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true})
			}
		}
	}
	for _, tc := range cases {
		tc.step = 1
		mix8Vector = true
		got, want, c := tc.run(t, r)
		requireClose(t, want.Float32s(), got.Float32s(), 1e-4, "wide %v: %s", wide, tc.String())
		assert.Zero(t, testing.AllocsPerRun(3, func() { _ = Call(c) }), "%v allocates", tc)
		// Filters laid out once by Prepare give the same bits.
		p, bytes, err := Prepare(c)
		require.NoError(t, err)
		g := c.Attrs[4].Int
		assert.Equal(t, 4*ConvMixedFloats(c.Inputs[1].Shape, g, false), bytes, "%v", tc)
		if p != nil {
			c.Prepared, c.Outputs[0] = p, wgrt.New(wgrt.F32, got.Shape...)
			require.NoError(t, Call(c))
			assert.Equal(t, got.Float32s(), c.Outputs[0].Float32s(), "wide %v: %s prepared", wide, tc.String())
			assert.Zero(t, testing.AllocsPerRun(3, func() { _ = Call(c) }), "%v prepared allocates", tc)
			c.Prepared, c.Outputs[0] = nil, got
		}
		mix8Vector = false
		rows := wgrt.New(wgrt.F32, got.Shape...)
		c.Outputs[0] = rows
		require.NoError(t, Call(c))
		requireClose(t, rows.Float32s(), got.Float32s(), 1e-4, "wide %v: %s against tap rows", wide, tc.String())
	}
	tc := convCase{n: 1, ch: 16, mult: 1, group: 2, in: []int{10, 10}, k: []int{3, 3}, s: []int{1, 1}, d: []int{1, 1}, p: []int{1, 1, 1, 1}, bias: true, step: 1}
	c := tc.call(r)
	x, w, bias := c.Inputs[0], c.Inputs[1], &c.Inputs[2]
	ca := convAttrs{kernel: tc.k, strides: tc.s, pads: tc.p, dilations: tc.d, group: tc.group}
	for _, act := range []fusedAct{{kind: "Relu"}, {kind: "SiLU"}} {
		want := wgrt.New(wgrt.F32, c.Outputs[0].Shape...)
		convDirect(x, w, bias, want, ca)
		act.apply(want.Float32s())
		got := wgrt.New(wgrt.F32, want.Shape...)
		mix8Vector = true
		require.True(t, convMixed8F32(x, w, bias, got, ca, act, nil, defaultThreads))
		requireClose(t, want.Float32s(), got.Float32s(), 1e-4, "%s", act.kind)
	}
}
