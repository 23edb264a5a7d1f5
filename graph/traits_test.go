package graph

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// traitsGraph is a two-op graph whose "kernels" object is filled in by each
// test case.
const traitsGraph = `{
  "name": "g",
  "tensors": {
    "x": {"dtype": "f32", "shape": [4]},
    "y": {"dtype": "f32", "shape": [4]},
    "a": {"dtype": "f32", "shape": [4]},
    "b": {"dtype": "f32", "shape": [4]}
  },
  "inputs": ["x", "y"], "outputs": ["b"],
  "ops": [
    {"kernel": "add_Tensor", "inputs": ["x", "y"], "outputs": ["a"]},
    {"kernel": "relu", "inputs": ["a"], "outputs": ["b"]}
  ],
  "kernels": KERNELS
}`

func parseTraits(kernels string) (*Graph, error) {
	return Parse("t.json", []byte(strings.Replace(traitsGraph, "KERNELS", kernels, 1)))
}

func TestKernelTraits(t *testing.T) {
	g, err := parseTraits(`{"add_Tensor": {"may_alias": [[0, 1], [0, 0]]}, "relu": {}}`)
	require.NoError(t, err)
	assert.Equal(t, []AliasPair{{0, 1}, {0, 0}}, g.Traits["add_Tensor"].MayAlias, "pairs keep the file order")
	assert.True(t, g.MayAlias("add_Tensor", 0, 0))
	assert.True(t, g.MayAlias("add_Tensor", 0, 1))
	assert.False(t, g.MayAlias("relu", 0, 0), "a kernel listed without pairs allows none")
	assert.False(t, g.MayAlias("conv2d", 0, 0))
	ks := g.Kernels()
	require.Len(t, ks, 2)
	assert.Equal(t, []AliasPair{{0, 1}, {0, 0}}, ks[0].MayAlias)
	assert.Empty(t, ks[1].MayAlias)
}

func TestKernelTraitsAbsent(t *testing.T) {
	g, err := Parse("t.json", []byte(strings.Replace(traitsGraph, `,
  "kernels": KERNELS`, "", 1)))
	require.NoError(t, err)
	assert.Empty(t, g.Traits)
	assert.False(t, g.MayAlias("add_Tensor", 0, 0))
}

func TestKernelTraitsErrors(t *testing.T) {
	cases := []struct{ kernels, want string }{
		{`[]`, `t.json:14:14: kernels: expected an object`},
		{`{"conv2d": {"may_alias": [[0, 0]]}}`, `t.json:14:15: kernels["conv2d"]: no op calls kernel "conv2d"`},
		{`{"relu": {"may_alias": [[1, 0]]}}`, `kernels["relu"].may_alias[0][0]: output index 1 is out of range: the kernel has 1 outputs`},
		{`{"relu": {"may_alias": [[0, 1]]}}`, `kernels["relu"].may_alias[0][1]: input index 1 is out of range: the kernel has 1 inputs`},
		{`{"relu": {"may_alias": [[0, -1]]}}`, `kernels["relu"].may_alias[0][1]: input index -1 is out of range`},
		{`{"relu": {"may_alias": [[0]]}}`, `kernels["relu"].may_alias[0]: expected a pair [output index, input index]`},
		{`{"relu": {"may_alias": [0, 0]}}`, `kernels["relu"].may_alias[0]: expected a pair`},
		{`{"relu": {"may_alias": [["0", 0]]}}`, `kernels["relu"].may_alias[0][0]: expected an integer, found a string`},
		{`{"relu": {"may_alias": [[0.5, 0]]}}`, `kernels["relu"].may_alias[0][0]: expected an integer, found 0.5`},
		{`{"relu": {"may_alias": [[0, 0], [0, 0]]}}`, `kernels["relu"].may_alias[1]: pair [0, 0] is listed twice`},
		{`{"relu": {"may_alias": {"0": 0}}}`, `kernels["relu"].may_alias: expected an array of [output index, input index] pairs`},
		{`{"relu": {"mayAlias": []}}`, `kernels["relu"]: unknown field "mayAlias" (known: may_alias, fuse)`},
		{`{"relu": 3}`, `kernels["relu"]: expected an object`},
		{`{"relu": {"fuse": true}}`, `kernels["relu"].fuse: wrapgen fuses ops into FusedConv, FusedGemm and FusedMatMul only, not "relu"`},
		{`{"FusedConv": {"fuse": 1}}`, `kernels["FusedConv"].fuse: expected true or false, found a number`},
		{`{"FusedConv": {"may_alias": [[0, 3]]}}`, `kernels["FusedConv"]: no op calls kernel "FusedConv"`},
		{`{"FusedConv": {"fuse": true, "may_alias": [[0, 4]]}}`, `kernels["FusedConv"].may_alias[0][1]: input index 4 is out of range: the kernel has 4 inputs`},
	}
	for _, c := range cases {
		_, err := parseTraits(c.kernels)
		require.Error(t, err, c.kernels)
		assert.Contains(t, err.Error(), c.want, c.kernels)
		assert.Contains(t, err.Error(), "t.json:", c.kernels)
	}
}

// TestKernelTraitsVariadic checks input indices against the call with the
// fewest inputs: a pair must be valid at every op of the kernel.
func TestKernelTraitsVariadic(t *testing.T) {
	src := strings.Replace(traitsGraph, `{"kernel": "relu", "inputs": ["a"]`, `{"kernel": "add_Tensor", "inputs": ["a"]`, 1)
	src = strings.Replace(src, "KERNELS", `{"add_Tensor": {"may_alias": [[0, 1]]}}`, 1)
	_, err := Parse("t.json", []byte(src))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `kernels["add_Tensor"].may_alias[0][1]: input index 1 is out of range: the kernel has 1 inputs (the fewest of any call)`)
}

// TestKernelTraitsFuse: a fused kernel the graph's kernels implement may
// be declared before any op calls it, its pairs bounded by its largest
// call.
func TestKernelTraitsFuse(t *testing.T) {
	g, err := parseTraits(`{"FusedConv": {"fuse": true, "may_alias": [[0, 2], [0, 3]]}}`)
	require.NoError(t, err)
	assert.True(t, g.Fuses("FusedConv"))
	assert.False(t, g.Fuses("FusedGemm"))
	assert.False(t, g.Fuses("FusedMatMul"))
	assert.True(t, g.MayAlias("FusedConv", 0, 3))
}

func TestAliasDoc(t *testing.T) {
	g, err := parseTraits(`{"add_Tensor": {"may_alias": [[0, 0], [0, 1]]}, "relu": {}}`)
	require.NoError(t, err)
	ks := g.Kernels()
	assert.Equal(t, "; out0 may share memory with in0 or in1 (read those inputs before writing it)", ks[0].AliasDoc())
	assert.Empty(t, ks[1].AliasDoc())
}
