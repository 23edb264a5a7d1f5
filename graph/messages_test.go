package graph

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One mistake, one message: a symbol whose value is not an integer is
// reported once, not again by its range check or at each use.
func TestOneMistakeOneMessage(t *testing.T) {
	for _, c := range []struct{ symbols, want string }{
		{`{"n": {"hint": 4.5, "min": 1, "max": 8}}`, `symbols["n"].hint: expected an integer, found 4.5`},
		{`{"n": 2.5}`, `symbols["n"]: expected an integer, found 2.5`},
	} {
		g := `{"name": "g", "symbols": ` + c.symbols + `, "tensors": {"a": {"dtype": "f32", "shape": ["n"]}, "b": {"dtype": "f32", "shape": ["n", "n"]}},
		"inputs": ["a"], "outputs": ["b"], "ops": [{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}]}`
		_, err := Parse("g.json", []byte(g))
		require.Error(t, err)
		var list ErrorList
		require.ErrorAs(t, err, &list)
		require.Len(t, list, 1, "%v", err)
		assert.Contains(t, err.Error(), c.want)
	}
}

// A float attribute too small for a float64 is refused, as one too large
// is, rather than becoming 0.
func TestUnrepresentableFloatAttributes(t *testing.T) {
	for _, v := range []string{"1e-400", "1e400"} {
		g := `{"name": "g", "tensors": {"a": {"dtype": "f32", "shape": [1]}, "b": {"dtype": "f32", "shape": [1]}},
		"inputs": ["a"], "outputs": ["b"], "ops": [{"kernel": "k", "inputs": ["a"], "outputs": ["b"], "attrs": {"x": ` + v + `}}]}`
		_, err := Parse("g.json", []byte(g))
		require.Error(t, err, v)
		assert.Contains(t, err.Error(), `attrs["x"]: float `+v)
	}
	g := `{"name": "g", "tensors": {"a": {"dtype": "f32", "shape": [1]}, "b": {"dtype": "f32", "shape": [1]}},
	"inputs": ["a"], "outputs": ["b"], "ops": [{"kernel": "k", "inputs": ["a"], "outputs": ["b"], "attrs": {"x": -0.0e10, "y": 5e-324}}]}`
	_, err := Parse("g.json", []byte(g))
	assert.NoError(t, err, "zero and the smallest subnormal are representable")
}

// A cycle of many views is one short line: its first few members and its
// length.
func TestLongViewCycleMessageIsShort(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"name": "c", "tensors": {"a": {"dtype": "f32", "shape": [4]}`)
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, `, "v%d": {"view_of": "v%d", "shape": [4]}`, i, (i+1)%20000)
	}
	b.WriteString(`}, "inputs": ["a"], "outputs": [], "ops": []}`)
	_, err := Parse("c.json", []byte(b.String()))
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 300, err.Error())
	assert.Contains(t, err.Error(), "(20000 views in all)")
}
