package plan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
)

// Graphs whose sizes once made validation or placement exponential: 30
// symbols multiplied into one size (a proof expanded 2^30 terms), 25
// tensors of a non-affine size live together (nested maxima doubled per
// tensor), a sum of 3,000 % terms (parsed one addition at a time, and
// multiplied out by an emptiness factor). Each must read, plan and verify;
// were the cost exponential again, the test would not finish.
func TestPathologicalSizesPlan(t *testing.T) {
	type tensor struct {
		DType string   `json:"dtype"`
		Shape []string `json:"shape"`
	}
	type op struct {
		Kernel  string   `json:"kernel"`
		Inputs  []string `json:"inputs"`
		Outputs []string `json:"outputs"`
	}
	doc := func(symbols map[string]any, tensors map[string]tensor, ops []op) []byte {
		data, err := json.Marshal(map[string]any{"name": "p", "symbols": symbols, "tensors": tensors, "inputs": []string{"x"}, "outputs": []string{"y"}, "ops": ops})
		require.NoError(t, err)
		return data
	}

	symbols := map[string]any{}
	var names []string
	for i := 0; i < 30; i++ {
		name := fmt.Sprintf("s%d", i)
		symbols[name] = map[string]int{"hint": 2, "min": 1, "max": 3}
		names = append(names, name)
	}
	product := strings.Join(names, "*")
	productGraph := doc(symbols, map[string]tensor{"x": {"u8", []string{product}}, "y": {"u8", []string{product}}},
		[]op{{"k", []string{"x"}, []string{"y"}}})

	live := map[string]tensor{"x": {"u8", []string{"n"}}, "y": {"u8", []string{"n"}}}
	var liveOps []op
	var all []string
	for i := 0; i < 25; i++ {
		name := fmt.Sprintf("a%d", i)
		live[name] = tensor{"u8", []string{"5%n*58+3"}}
		liveOps = append(liveOps, op{"k", []string{"x"}, []string{name}})
		all = append(all, name)
	}
	liveGraph := doc(map[string]any{"n": map[string]int{"hint": 2, "min": 1}}, live, append(liveOps, op{"kk", all, []string{"y"}}))

	var terms []string
	for i := 2; i < 3002; i++ {
		terms = append(terms, fmt.Sprintf("n%%%d", i))
	}
	sumGraph := doc(map[string]any{"n": map[string]int{"hint": 5, "min": 1}},
		map[string]tensor{"x": {"u8", []string{"n"}}, "y": {"u8", []string{strings.Join(terms, "+")}}}, []op{{"k", []string{"x"}, []string{"y"}}})

	for name, data := range map[string][]byte{"product of 30 symbols": productGraph, "25 live non-affine sizes": liveGraph, "sum of 3000 mod terms": sumGraph} {
		g, err := graph.Parse(name+".json", data)
		require.NoError(t, err, name)
		p, err := Make(g, Options{})
		require.NoError(t, err, name)
		assert.NoError(t, verify(p), name)
	}
}
