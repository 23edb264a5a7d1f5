package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
)

// Each graph in testdata/hostile holds one class of generated code that
// once did not compile or compiled to the wrong thing; selftest builds it
// in both languages (go vet, and C++ with -Wall -Wextra -Wshadow
// -Wconversion -Werror and sanitizers) and runs it:
//   - quoting: a graph name with `"`, `%s`, `??=` and a trailing `\`,
//     tensor names with a newline and `*/`, string attributes with `??=`
//     and control characters, an INT64_MIN attribute;
//   - names_and_loops: symbols named after generated identifiers
//     (attrInts0, opTable, kAttrInts0, own0, iter0, iter10, loop_iter0,
//     obs, bound, ...), eleven loops counted by iter10, a kernel whose
//     method would be BeginOp, max/min with one and three arguments;
//   - no_ops_long_name: no kernel op, a symbol used only in a stride (no
//     bound array), a 300-character graph name (file names bounded);
//   - scalars: rank-0 tensors and an empty int-list attribute (no
//     append with no values, which go vet refuses);
//   - params: params (one named like the Outputs.Map method, one read
//     through a transposed view) and inline constants of extreme values in
//     every kind of dtype (INT64_MIN, UINT64_MAX, -inf, NaN, f16's max);
//   - no_inputs: no input at all, the output computed from a constant (as
//     an imported model folded at import time can be): InputsFrom picks
//     nothing;
//   - scratch_attr: a MatMul with an attribute named "scratch", which the
//     method's scratch parameter (with -kernels ref) must not clash with.
var hostileCases = map[string]string{
	"quoting.json":          "6 kernel calls",
	"names_and_loops.json":  "105 kernel calls", // 1 + 11 loops × 3 + 1 per run, three runs: every loop ran
	"no_ops_long_name.json": "0 kernel calls",
	"scalars.json":          "6 kernel calls",
	"params.json":           "6 kernel calls",
	"no_inputs.json":        "3 kernel calls",
	"scratch_attr.json":     "3 kernel calls",
}

// namesOnTrial are the hostile graphs whose names are what is tested: their
// C++ is built with every compiler found, the others' with one.
var namesOnTrial = map[string]bool{"quoting.json": true, "names_and_loops.json": true, "no_ops_long_name.json": true}

func TestHostileGraphsSelftest(t *testing.T) {
	testenv.SkipUnlessLong(t, "builds and runs generated code")
	for file, calls := range hostileCases {
		for _, lang := range []string{"go", "cpp"} {
			t.Run(file+"/"+lang, func(t *testing.T) {
				if lang == "cpp" {
					if _, err := exec.LookPath("g++"); err != nil {
						t.Skip("no g++")
					}
				}
				t.Parallel()
				args := []string{"selftest", "-lang", lang, filepath.Join("testdata", "hostile", file)}
				if lang == "cpp" && !namesOnTrial[file] {
					args = append(args[:3], append(oneCompiler(), args[3:]...)...)
				}
				if lang == "go" && file == "scratch_attr.json" {
					args = []string{"selftest", "-kernels", "ref", "-lang", lang, filepath.Join("testdata", "hostile", file)}
				}
				out, _, err := runCLI(args...)
				require.NoError(t, err)
				assert.Contains(t, out, "selftest: ok")
				assert.Contains(t, out, calls)
			})
		}
	}
}

func TestLongGraphNameGivesBoundedFileNames(t *testing.T) {
	dir := t.TempDir()
	_, _, err := runCLI("gen", "-lang", "cpp", "-o", dir, filepath.Join("testdata", "hostile", "no_ops_long_name.json"))
	require.NoError(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 4) // the wrapper .h and .cc, the runtime .h and .cc
	for _, e := range entries {
		assert.LessOrEqual(t, len(e.Name()), 64+3, e.Name())
	}
}
