package cpp_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/cpp"
)

// Each constant's array has a comment naming the tensor and spelling its
// values (all when few, the first then how many when many), above bytes
// that hold those values: 1.5 is 0x3fc00000 little-endian, -2 0xc0000000.
func TestConstantsCommentTheirValues(t *testing.T) {
	var many []string
	for range 40 {
		many = append(many, "0.5")
	}
	src := `{"name": "consts", "tensors": {
	  "k": {"dtype": "f32", "shape": [2], "data": [1.5, -2]},
	  "n": {"dtype": "i64", "shape": [1], "data": [-3]},
	  "big": {"dtype": "f32", "shape": [4, 10], "data": [` + strings.Join(many, ", ") + `]},
	  "s": {"dtype": "f32", "shape": [2]}, "y": {"dtype": "f32", "shape": [2]}},
	 "inputs": [], "outputs": ["y"], "ops": [
	  {"kernel": "Add", "inputs": ["k", "k"], "outputs": ["s"]},
	  {"kernel": "Add3", "inputs": ["s", "n", "big"], "outputs": ["y"]}]}`
	g, err := graph.Parse("consts.json", []byte(src))
	require.NoError(t, err)
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	files, err := cpp.Generate(p, cpp.Options{})
	require.NoError(t, err)
	cc := string(files[1].Content)
	var names []string
	for _, c := range g.Constants {
		names = append(names, c.Name)
	}
	require.Equal(t, []string{"k", "n", "big"}, names, "constants in graph order")
	assert.Contains(t, cc, "// k_const_0: \"k\": f32 [2] = 1.5, -2\n"+
		"alignas(64) const uint8_t k_const_0[] = {0, 0, 192, 63, 0, 0, 0, 192, 0};\n")
	assert.Contains(t, cc, "// k_const_1: \"n\": i64 [1] = -3\n"+
		"alignas(64) const uint8_t k_const_1[] = {253, 255, 255, 255, 255, 255, 255, 255, 0};\n")
	assert.Contains(t, cc, "// k_const_2: \"big\": f32 [4, 10] = 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, …\n// (40 values)\n"+
		"alignas(64) const uint8_t k_const_2[] = {0, 0, 0, 63,")
}
