package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// g builds a small graph around the given tensors, inputs, outputs and ops
// (each a JSON fragment), with symbol n.
func g(symbols, tensors, inputs, outputs, ops string) string {
	if symbols == "" {
		symbols = `{"n": {"hint": 2, "min": 1, "max": 64}}`
	}
	return fmt.Sprintf(`{"name": "bad", "symbols": %s, "tensors": {%s}, "inputs": [%s], "outputs": [%s], "ops": [%s]}`,
		symbols, tensors, inputs, outputs, ops)
}

// gp is g with params.
func gp(tensors, inputs, params, outputs, ops string) string {
	return strings.Replace(g("", tensors, inputs, outputs, ops), `"outputs":`, `"params": [`+params+`], "outputs":`, 1)
}

const okT = `"a": {"dtype": "f32", "shape": ["n", 4]}, "b": {"dtype": "f32", "shape": ["n", 4]}, "c": {"dtype": "f32", "shape": ["n", 4]}`

// badInputs is the corpus: every case in the spec's Errors section and the
// mistakes users make by accident. want is a piece of the message (the
// place and what is wrong); lang limits a case to one backend.
var badInputs = []struct {
	name, graph, want, lang string
}{
	{"empty file", ``, "empty", ""},
	{"JSON array", `[1, 2]`, "object", ""},
	{"malformed JSON", "{\"name\": \"x\",\n  \"tensors\": {,}}", "bad.json:2:", ""},
	{"truncated JSON", `{"name": "x", "tensors": {`, "bad.json:1:", ""},
	{"missing name", `{"tensors": {}, "inputs": [], "outputs": [], "ops": []}`, "name", ""},
	{"wrong field type", g("", `"a": {"dtype": "f32", "shape": "n"}`, `"a"`, ``, ``), `tensors["a"].shape`, ""},
	{"unknown dtype", g("", `"a": {"dtype": "f33", "shape": [1]}`, `"a"`, ``, ``), `f33`, ""},
	{"name defined twice", g("", `"a": {"dtype": "f32", "shape": [1]}, "a": {"dtype": "f32", "shape": [1]}`, `"a"`, ``, ``), `bad.json:1:118: tensors: key "a" is given twice (first at line 1, col 81)`, ""},
	{"duplicate inplace key", g("", okT, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}, {"kernel": "r", "inputs": ["b"], "outputs": ["c"], "inplace": {"c": "b", "c": "b"}}`), `ops[1].inplace: key "c" is given twice`, ""},
	{"duplicate attribute", g("", okT, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"], "attrs": {"x": 1, "x": 2}}`), `ops[0].attrs: key "x" is given twice`, ""},
	{"two outputs take over one input", g("", okT+`, "d": {"dtype": "f32", "shape": ["n", 4]}`, `"a"`, `"c", "d"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}, {"kernel": "r", "inputs": ["b"], "outputs": ["c", "d"], "inplace": {"c": "b", "d": "b"}}`), `ops[1] (kernel "r"): inplace["d"]: "b" is already taken over by "c"`, ""},
	{"lone surrogate", g("", okT, `"a"`, `"b"`, `{"kernel": "k\udc00", "inputs": ["a"], "outputs": ["b"]}`), `ops[0].kernel: malformed JSON: lone UTF-16 surrogate \udc00`, ""},
	{"invalid UTF-8", g("", okT, `"a"`, `"b"`, "{\"kernel\": \"k\xc3\x28\", \"inputs\": [\"a\"], \"outputs\": [\"b\"]}"), `ops[0].kernel: malformed JSON: invalid UTF-8 byte 0xc3`, ""},
	{"division by a symbol that can be 0", g(`{"n": {"hint": 4, "min": 0, "max": 8}}`, okT, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"], "attrs": {"d": {"expr": "64 // n"}}}`), `ops[0] (kernel "k"): attrs["d"]: expression "64 // n" divides by n, which is 0 at n=0`, ""},
	{"modulo by 0 inside a size", g(`{"n": {"hint": 4, "min": 1, "max": 8}}`, `"a": {"dtype": "f32", "shape": ["n", "8 % (n - 1)"]}`, `"a"`, ``, ``), `tensors["a"].shape[1]: expression "8 % (n - 1)" divides by n - 1, which is 0 at n=1`, ""},
	{"view outside its base at one combination of symbol values", g(`{"n": {"hint": 4, "min": 1, "max": 8}, "m": {"hint": 4, "min": 1, "max": 32}}`, `"a": {"dtype": "f32", "shape": ["n", 4]}, "v": {"view_of": "a", "shape": ["m"]}`, `"a"`, ``, ``), `tensors["v"]: view reaches element 5 but base "a" spans only 4 elements at m=5, n=1`, ""},
	{"input never declared", g("", okT, `"zz"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), `"zz"`, ""},
	{"tensor used but never defined", g("", okT, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["b"], "outputs": ["c"]}`), `ops[0] (kernel "k")`, ""},
	{"use before definition", g("", okT, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["b"], "outputs": ["c"]}, {"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), `before it is defined`, ""},
	{"output never defined", g("", okT, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), `"c"`, ""},
	{"cycle of views", g("", `"a": {"dtype": "f32", "shape": [4]}, "v": {"view_of": "w", "shape": [4]}, "w": {"view_of": "v", "shape": [4]}`, `"a"`, ``, ``), `cycle`, ""},
	{"view outside its base", g("", `"a": {"dtype": "f32", "shape": [4]}, "v": {"view_of": "a", "shape": [4], "offset": 2}`, `"a"`, ``, ``), `tensors["v"]`, ""},
	{"view with another dtype", g("", `"a": {"dtype": "f32", "shape": [4]}, "v": {"view_of": "a", "dtype": "f16", "shape": [4]}`, `"a"`, ``, ``), `tensors["v"]`, ""},
	{"inplace input read later", g("", okT, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}, {"kernel": "r", "inputs": ["b"], "outputs": ["c"], "inplace": {"c": "b"}}, {"kernel": "s", "inputs": ["b"], "outputs": [], "mutates": ["c"]}`), `taken over in place`, ""},
	{"inplace of an input", g("", okT, `"a"`, `"b"`, `{"kernel": "r", "inputs": ["a"], "outputs": ["b"], "inplace": {"b": "a"}}`), `ops[0] (kernel "r")`, ""},
	{"inplace output bigger", g("", `"a": {"dtype": "f32", "shape": [4]}, "b": {"dtype": "f32", "shape": [4]}, "c": {"dtype": "f32", "shape": [8]}`, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}, {"kernel": "r", "inputs": ["b"], "outputs": ["c"], "inplace": {"c": "b"}}`), `needs 32 bytes`, ""},
	{"writes an input", g("", okT, `"a"`, `"a"`, `{"kernel": "k", "inputs": [], "outputs": ["a"]}`), `writes graph input "a"`, ""},
	{"mutates an input", g("", okT, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"], "mutates": ["a"]}`), `mutates "a"`, ""},
	{"inconsistent outputs", g("", okT, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}, {"kernel": "k", "inputs": ["b"], "outputs": ["c", "a"]}`), `share one signature`, ""},
	{"inconsistent attributes", g("", okT, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"], "attrs": {"x": 1}}, {"kernel": "k", "inputs": ["b"], "outputs": ["c"], "attrs": {"x": 1.5}}`), `share one signature`, ""},
	{"expression does not parse", g("", `"a": {"dtype": "f32", "shape": ["n +* 2"]}`, `"a"`, ``, ``), `tensors["a"].shape[0]`, ""},
	{"undeclared symbol", g("", `"a": {"dtype": "f32", "shape": ["batch"]}`, `"a"`, ``, ``), `batch`, ""},
	{"negative size", g("", `"a": {"dtype": "f32", "shape": [-3]}`, `"a"`, ``, ``), `tensors["a"].shape[0]`, ""},
	{"size overflows int64", g("", `"a": {"dtype": "f64", "shape": [4611686018427387904, 4]}`, `"a"`, ``, ``), `overflow`, ""},
	{"overflow only at the symbol's max", g(`{"n": {"hint": 2, "min": 1, "max": 9223372036854775807}}`, `"a": {"dtype": "f32", "shape": ["n", 4]}`, `"a"`, ``, ``), `overflow`, ""},
	{"hint outside range", g(`{"n": {"hint": 100, "min": 1, "max": 64}}`, okT, `"a"`, ``, ``), `symbols["n"]`, ""},
	{"negative min", g(`{"n": {"hint": 1, "min": -1}}`, okT, `"a"`, ``, ``), `symbols["n"]`, ""},
	{"negative loop count", g("", okT, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}, {"loop": {"count": "0 - n", "body": [{"kernel": "s", "inputs": ["b"], "outputs": [], "mutates": ["b"]}]}}`), `loop count`, ""},
	{"output defined only in a loop", g("", okT, `"a"`, `"b"`, `{"loop": {"count": 2, "body": [{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}]}}`), `inside the loop`, ""},
	{"kernel name with no letters", g("", okT, `"a"`, `"b"`, `{"kernel": "+++", "inputs": ["a"], "outputs": ["b"]}`), `cannot become a`, ""},
	{"kernel names collide", g("", okT, `"a"`, `"c"`, `{"kernel": "k.x", "inputs": ["a"], "outputs": ["b"]}, {"kernel": "k_x", "inputs": ["b"], "outputs": ["c"]}`), `both become`, ""},
	{"tensor names collide", g("", `"a.b": {"dtype": "f32", "shape": [4]}, "a_b": {"dtype": "f32", "shape": [4]}, "c": {"dtype": "f32", "shape": [4]}`, `"a.b", "a_b"`, `"c"`, `{"kernel": "k", "inputs": ["a.b", "a_b"], "outputs": ["c"]}`), `tensors["a_b"]: tensor or symbol names "a.b" and "a_b" both become`, ""},
	{"C++ keyword as a tensor name", g("", `"class": {"dtype": "f32", "shape": [4]}, "c": {"dtype": "f32", "shape": [4]}`, `"class"`, `"c"`, `{"kernel": "k", "inputs": ["class"], "outputs": ["c"]}`), `tensors["class"]: tensor or symbol name "class" becomes C++ identifier "class"`, "cpp"},
	{"C++ keyword as the graph name", strings.Replace(g("", okT, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), `"bad"`, `"namespace"`, 1), `name: graph name "namespace"`, "cpp"},
	{"param written", gp(okT+`, "w": {"dtype": "f32", "shape": [4]}`, `"a"`, `"w"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"], "mutates": ["w"]}`), `mutates "w", which is (a view of) param "w"`, ""},
	{"param as an output", gp(okT+`, "w": {"dtype": "f32", "shape": [4]}`, `"a"`, `"w"`, `"w"`, ``), `output "w" is a param`, ""},
	{"param with a symbolic shape", gp(okT+`, "w": {"dtype": "f32", "shape": ["n"]}`, `"a"`, `"w"`, `"b"`, `{"kernel": "k", "inputs": ["a", "w"], "outputs": ["b"]}`), `param "w" has shape dimension n`, ""},
	{"param also an input", gp(okT, `"a"`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), `"a" is both an input and a param`, ""},
	{"param taken over in place", gp(okT+`, "w": {"dtype": "f32", "shape": ["n", 4]}`, `"a"`, `"w"`, `"b"`, `{"kernel": "r", "inputs": ["w"], "outputs": ["b"], "inplace": {"b": "w"}}`), `takes over param "w"`, ""},
	{"constant with too few elements", g("", okT+`, "k": {"dtype": "i64", "shape": [3], "data": [1, 2]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a", "k"], "outputs": ["b"]}`), `tensors["k"].data: has 2 elements, the shape holds 3`, ""},
	{"constant element out of range", g("", okT+`, "k": {"dtype": "u8", "shape": [2], "data": [1, 256]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a", "k"], "outputs": ["b"]}`), `tensors["k"].data[1]: 256 is not an integer of dtype u8`, ""},
	{"constant with a symbolic shape", g("", okT+`, "k": {"dtype": "f32", "shape": ["n"], "data": [1]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a", "k"], "outputs": ["b"]}`), `a constant's shape must not depend on symbols`, ""},
	{"constant written", g("", okT+`, "k": {"dtype": "f32", "shape": [1], "data": [1]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"], "mutates": ["k"]}`), `(a view of) constant "k"`, ""},
	{"rank above the C++ runtime's", g("", `"a": {"dtype": "f32", "shape": [1,1,1,1,1,1,1,1,1]}, "b": {"dtype": "f32", "shape": [1]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), `rank 9`, "cpp"},
}

// TestBadInputs runs gen on every bad graph with both backends: each must
// fail with a message naming the file and the place, without panicking,
// and leave the existing output exactly as it was.
func TestBadInputs(t *testing.T) {
	require.GreaterOrEqual(t, len(badInputs), 30)
	// An earlier wrapper (with wrapgen's banner: gen would replace it).
	precious := "// " + wrapgenBanner + "\nprecious"
	for _, c := range badInputs {
		t.Run(c.name, func(t *testing.T) {
			dir := tempModule(t)
			path := filepath.Join(dir, "bad.json")
			require.NoError(t, os.WriteFile(path, []byte(c.graph), 0o644))
			for _, lang := range []string{"go", "cpp"} {
				out := filepath.Join(dir, "out", "w.go")
				if lang == "cpp" {
					out = filepath.Join(dir, "cppout")
					require.NoError(t, os.MkdirAll(out, 0o755))
					require.NoError(t, os.WriteFile(filepath.Join(out, "bad.h"), []byte(precious), 0o644))
				} else {
					require.NoError(t, os.MkdirAll(filepath.Dir(out), 0o755))
					require.NoError(t, os.WriteFile(out, []byte(precious), 0o644))
				}
				_, _, err := runCLI("gen", "-lang", lang, "-o", out, path)
				if c.lang != "" && c.lang != lang {
					assert.NoError(t, err, "%s is valid for %s", c.name, lang)
					continue
				}
				require.Error(t, err, lang)
				assert.Contains(t, err.Error(), "bad.json", "%s: the message names the file", lang)
				assert.Contains(t, err.Error(), c.want, lang)
				if lang == "go" {
					have, _ := os.ReadFile(out)
					assert.Equal(t, precious, string(have), "the existing output is untouched")
					entries, _ := os.ReadDir(filepath.Dir(out))
					assert.Len(t, entries, 1, "nothing else written")
				} else {
					entries, _ := os.ReadDir(out)
					assert.Len(t, entries, 1, "nothing else written")
				}
			}
		})
	}
}

// A huge file with a mistake at its end: the position is still exact.
func TestHugeBadFile(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"name": "huge", "tensors": {`)
	for i := 0; i < 200000; i++ {
		fmt.Fprintf(&b, "\n  \"t%d\": {\"dtype\": \"f32\", \"shape\": [4]},", i)
	}
	b.WriteString("\n  \"last\": {\"dtype\": \"f32\", \"shape\": [4]\n}")
	path := filepath.Join(t.TempDir(), "huge.json")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	_, _, err := runCLI("plan", path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "huge.json:200003:")
}
