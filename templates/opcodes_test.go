package templates

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/wrapper/emit"
)

// The C++ runtime numbers opcodes and step kinds as package emit does:
// generated tables are emit's numbers, interpreted by the runtime.
func TestOpcodesMatchEmit(t *testing.T) {
	header, err := FS.ReadFile("runtime/wrapgen_runtime.h")
	require.NoError(t, err)
	for name, v := range map[string]int{
		"kIntConst": emit.IntConst, "kIntSym": emit.IntSym, "kIntAdd": emit.IntAdd, "kIntMul": emit.IntMul,
		"kIntFloorDiv": emit.IntFloorDiv, "kIntMod": emit.IntMod, "kIntMax": emit.IntMax, "kIntMin": emit.IntMin,
		"kStepAcquire": int(emit.Acquire), "kStepRelease": int(emit.Release), "kStepView": int(emit.View),
		"kStepUnview": int(emit.Unview), "kStepCall": int(emit.Call), "kStepLoop": int(emit.Loop), "kStepEndLoop": int(emit.EndLoop),
		"kStepCapacity": int(emit.Capacity), "kStepSetSymbol": int(emit.SetSymbol),
		"kTableVersion": emit.TableVersion,
	} {
		assert.Contains(t, string(header), fmt.Sprintf("%s = %d", name, v))
	}
}

// The C++ runtime names dtypes in format v1's order (emit's numbering).
func TestDTypesMatchTheFormat(t *testing.T) {
	header, err := FS.ReadFile("runtime/wrapgen_runtime.cc")
	require.NoError(t, err)
	var names []string
	for _, d := range graph.DTypes {
		names = append(names, fmt.Sprintf("%q", string(d)))
	}
	assert.Contains(t, strings.Join(strings.Fields(string(header)), " "), "names[] = {"+strings.Join(names, ", ")+"};")
}
