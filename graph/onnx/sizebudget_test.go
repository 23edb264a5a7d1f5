package onnx

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
)

// hostileResizeModel has resizes Resizes, the j-th of x_j [h_j], to
// floor(float(h_1 + ... + h_symbols) * (10+j) / float(max(h_1, ...,
// h_symbols))): every size depends on every input size, and interval
// arithmetic over the box of symbols dimensions is far from tight (the
// true bound is symbols*(10+j), reached when all are equal), so the bound
// search splits boxes until its budget ends.
// With inexact, each h_i is scaled by 11/10 in float first, so that no
// part of the sum folds into an integer expression.
func hostileResizeModel(symbols, resizes int, inexact bool) []byte {
	var inputs []tInput
	var nodes []tNode
	f32 := map[string]int64{"to": 1}
	if inexact {
		nodes = append(nodes,
			tNode{op: "Constant", outs: []string{"num"}, constI64: []int64{11}},
			tNode{op: "Constant", outs: []string{"den"}, constI64: []int64{10}},
			tNode{op: "Cast", ins: []string{"num"}, outs: []string{"numf"}, ints: f32},
			tNode{op: "Cast", ins: []string{"den"}, outs: []string{"denf"}, ints: f32},
			tNode{op: "Div", ins: []string{"numf", "denf"}, outs: []string{"k"}})
	}
	for i := 0; i < symbols; i++ {
		x, s, f := fmt.Sprintf("x%d", i), fmt.Sprintf("s%d", i), fmt.Sprintf("f%d", i)
		inputs = append(inputs, tInput{x, 1, []any{fmt.Sprintf("h%d", i)}})
		cast := f
		if inexact {
			cast = "exact" + f
		}
		nodes = append(nodes,
			tNode{op: "Shape", ins: []string{x}, outs: []string{s}},
			tNode{op: "Cast", ins: []string{s}, outs: []string{cast}, ints: f32})
		if inexact {
			nodes = append(nodes, tNode{op: "Mul", ins: []string{cast, "k"}, outs: []string{f}})
		}
	}
	sum, most := "f0", "f0"
	for i := 1; i < symbols; i++ {
		nextSum, nextMost := fmt.Sprintf("sum%d", i), fmt.Sprintf("most%d", i)
		nodes = append(nodes,
			tNode{op: "Add", ins: []string{sum, fmt.Sprintf("f%d", i)}, outs: []string{nextSum}},
			tNode{op: "Max", ins: []string{most, fmt.Sprintf("f%d", i)}, outs: []string{nextMost}})
		sum, most = nextSum, nextMost
	}
	var outputs []any
	for j := 0; j < resizes; j++ {
		c, cf, m, q, r, size, y := fmt.Sprintf("c%d", j), fmt.Sprintf("cf%d", j), fmt.Sprintf("m%d", j),
			fmt.Sprintf("q%d", j), fmt.Sprintf("r%d", j), fmt.Sprintf("size%d", j), fmt.Sprintf("y%d", j)
		nodes = append(nodes,
			tNode{op: "Constant", outs: []string{c}, constI64: []int64{int64(10 + j)}},
			tNode{op: "Cast", ins: []string{c}, outs: []string{cf}, ints: f32},
			tNode{op: "Mul", ins: []string{sum, cf}, outs: []string{m}},
			tNode{op: "Div", ins: []string{m, most}, outs: []string{q}},
			tNode{op: "Floor", ins: []string{q}, outs: []string{r}},
			tNode{op: "Cast", ins: []string{r}, outs: []string{size}, ints: map[string]int64{"to": 7}},
			tNode{op: "Resize", ins: []string{fmt.Sprintf("x%d", j%symbols), "", "", size}, outs: []string{y}})
		outputs = append(outputs, y)
	}
	return chainModel(inputs, nodes, outputs...)
}

func hostileMax(symbols int) map[string]int64 {
	max := map[string]int64{}
	for i := 0; i < symbols; i++ {
		max[fmt.Sprintf("h%d", i)] = 1000
	}
	return max
}

// The model: 8 Resizes over 24 input sizes, a file of a few KB,
// took 114 s to import (the search was capped per size, not per model).
// Imported or refused, it must take at most 5 s (the test allows a loaded
// machine 20).
func TestHostileResizeSizesImportWithinBudget(t *testing.T) {
	testenv.SkipUnlessLong(t, "imports models whose size bounds take the whole budget")
	for _, c := range []struct {
		symbols int
		inexact bool
	}{{24, false}, {8, true}} {
		model := hostileResizeModel(c.symbols, 8, c.inexact)
		require.Less(t, len(model), 1<<20)
		start := time.Now()
		g, _, err := Parse("hostile.onnx", model, Options{Max: hostileMax(c.symbols)})
		took := time.Since(start)
		t.Logf("%+v: %d bytes, 8 Resizes: %s", c, len(model), took)
		assert.Less(t, took, 20*time.Second)
		require.NoError(t, err)
		for j := 0; j < 8; j++ {
			s := g.Tensor(fmt.Sprintf("y%d", j)).Shape[0].Symbols()
			require.Len(t, s, 1)
			sym := g.Symbol(s[0])
			require.NotNil(t, sym)
			assert.GreaterOrEqual(t, sym.Max, int64(c.symbols*(10+j)), "sound: at least the true largest size")
		}
	}
}
