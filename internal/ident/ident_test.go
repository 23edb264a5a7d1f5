package ident

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCamel(t *testing.T) {
	cases := map[string]string{
		"matmul":                  "Matmul",
		"bias_add":                "BiasAdd",
		"relu_":                   "Relu_",
		"add_Tensor":              "AddTensor",
		"add__Tensor":             "Add_Tensor",
		"max_pool2d_with_indices": "MaxPool2dWithIndices",
		"a.b":                     "AB",
		"cuda:0":                  "Cuda0",
		"1x":                      "X1x",
		"_private":                "Private",
		"t234":                    "T234",
	}
	for in, want := range cases {
		got, ok := Camel(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "___", "..", "é"} {
		_, ok := Camel(bad)
		assert.False(t, ok, bad)
	}
	l, ok := Lower("BiasAdd")
	require.True(t, ok)
	assert.Equal(t, "biasAdd", l)
}

func TestNamerCollisionsAndKeywords(t *testing.T) {
	n := &Namer{Lang: "Go", Kind: "tensor"}
	assert.Equal(t, "AB", n.Name("g.json", `tensors["a.b"]`, "a.b"))
	n.Name("g.json", `tensors["a_b"]`, "a_b")
	require.Len(t, n.Problems(), 1)
	assert.Contains(t, n.Problems()[0].Error(), `g.json: tensors["a_b"]: tensor names "a.b" and "a_b" both become Go identifier "AB"`)
	// The same name asked twice is not a collision.
	n.Name("g.json", `tensors["a.b"]`, "a.b")
	assert.Len(t, n.Problems(), 1)

	p := &Namer{Lang: "Go", Kind: "attribute", Lower: true, Reserved: GoKeywords, Suffix: "_"}
	assert.Equal(t, "range_", p.Name("g.json", "x", "range"))
	assert.Empty(t, p.Problems())

	c := &Namer{Lang: "C++", Kind: "tensor", Lower: true, Reserved: CppKeywords}
	c.Name("g.json", `tensors["class"]`, "class")
	require.Len(t, c.Problems(), 1)
	assert.Contains(t, c.Problems()[0].Msg, "cannot declare there")

	e := &Namer{Lang: "Go", Kind: "kernel"}
	e.Name("g.json", "ops[0]", "+++")
	require.Len(t, e.Problems(), 1)
	assert.Contains(t, e.Problems()[0].Msg, "cannot become a Go identifier")
}

// TestGraphNamesCannotReachGeneratedFamilies draws names from an alphabet
// rich in underscores and checks that no identifier made from them is in
// the namespace of generated families.
func TestGraphNamesCannotReachGeneratedFamilies(t *testing.T) {
	alphabet := []byte("_aZz09_.é_")
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		b := make([]byte, 1+rng.IntN(12))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		for _, conv := range []func(string) (string, bool){Camel, Lower} {
			if id, ok := conv(string(b)); ok {
				require.False(t, Unreachable(id), "%q becomes %q", b, id)
			}
		}
	}
	for _, id := range []string{"loop_iter", "const_ints", "k_attr_ints", "own_pool"} {
		assert.True(t, Unreachable(id), id)
	}
	assert.Equal(t, "loop_iter10", Numbered("loop_iter", 10))
	assert.Panics(t, func() { Numbered("iter", 0) })
}

// A tensor and a symbol with the same name share the Inputs struct: the
// second is a collision, not the first one's identifier again.
func TestSameNameAtTwoPlacesCollides(t *testing.T) {
	n := &Namer{Lang: "Go", Kind: "tensor or symbol"}
	assert.Equal(t, "F", n.Name("g.json", `tensors["f"]`, "f"))
	assert.Equal(t, "F", n.Name("g.json", `tensors["f"]`, "f"), "same place, same identifier")
	assert.NotEqual(t, "F", n.Name("g.json", `symbols["f"]`, "f"))
	require.Len(t, n.Problems(), 1)
	assert.Contains(t, n.Problems()[0].Error(), `symbols["f"]: tensor or symbol name "f" is also used`)
}
