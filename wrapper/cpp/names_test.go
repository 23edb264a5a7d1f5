package cpp_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/synth"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/cpp"
)

// A graph named after a C library function (its namespace would clash with
// the function at global scope, and not compile) is refused by name;
// another name is not.
func TestNamespaceAvoidsCLibraryNames(t *testing.T) {
	for name, refused := range map[string]bool{"random": true, "Exp": true, "index": true, "randomNet": false} {
		g, err := graph.Parse("random.json", synth.Random(0))
		require.NoError(t, err)
		g.Name = name
		p, err := plan.Make(g, plan.Options{})
		require.NoError(t, err)
		_, err = cpp.Generate(p, cpp.Options{})
		if !refused {
			assert.NoError(t, err, name)
			continue
		}
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), `graph name "`+name+`"`, name)
		assert.Contains(t, err.Error(), "a standard library name", name)
	}
}

// A symbol an input gives is no field of Inputs, so it may share the
// input's name (PyTorch names a dynamic axis after its input); a symbol
// the caller gives is a field and may not.
func TestSymbolNamedAfterItsInput(t *testing.T) {
	graphOf := func(shape string) *plan.Plan {
		g, err := graph.Parse("g.json", []byte(`{"name": "g", "symbols": {"past": {"hint": 4, "min": 1, "max": 64}},
			"tensors": {"past": {"dtype": "f32", "shape": `+shape+`}, "y": {"dtype": "f32", "shape": `+shape+`}},
			"inputs": ["past"], "outputs": ["y"], "ops": [{"kernel": "Neg", "inputs": ["past"], "outputs": ["y"]}]}`))
		require.NoError(t, err)
		p, err := plan.Make(g, plan.Options{})
		require.NoError(t, err)
		return p
	}
	_, err := cpp.Generate(graphOf(`["past", 2]`), cpp.Options{})
	assert.NoError(t, err)
	_, err = cpp.Generate(graphOf(`["past*past", 2]`), cpp.Options{})
	assert.ErrorContains(t, err, `symbols["past"]: tensor or symbol name "past" is also used`)
}

func TestFileBaseIsSnakeCase(t *testing.T) {
	for name, want := range map[string]string{
		"tiny_bert": "tiny_bert", "vit_b_16": "vit_b_16", "resnet18": "resnet18", "MyNet2Go": "my_net2_go",
		"my net.v2": "my_net_v2", "__x__": "x", "HTTPServer": "httpserver",
	} {
		require.Equal(t, want, cpp.FileBase(name, "ignored"), "graph %q", name)
	}
	require.Equal(t, "g_x", cpp.FileBase("模型", "gX"), "a name without ASCII letters takes the namespace's")
	long1, long2 := strings.Repeat("veryLong", 10)+"A", strings.Repeat("veryLong", 10)+"B"
	require.LessOrEqual(t, len(cpp.FileBase(long1, "")), 64)
	require.NotEqual(t, cpp.FileBase(long1, ""), cpp.FileBase(long2, ""), "long names keep apart")
}
