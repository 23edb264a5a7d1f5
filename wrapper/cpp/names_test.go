package cpp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/synth"
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
