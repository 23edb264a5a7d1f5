package graph

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharedGraphs holds in-repository copies of ../shared/graphs (the real
// recorded graphs), so a fresh clone tests alone.
const sharedGraphs = "testdata"

func TestLoadSharedGraphs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sharedGraphs, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no graphs in %s", sharedGraphs)
	for _, f := range files {
		g, err := Load(f)
		require.NoError(t, err, f)
		assert.NotEmpty(t, g.Ops, f)
		assert.NotEmpty(t, g.Outputs, f)
		for _, tn := range g.Tensors {
			if tn.Root != nil && !tn.IsView() {
				_, err := tn.StorageBytes().Eval(g.Hints())
				assert.NoError(t, err, "%s: %s", f, tn.Name)
			}
		}
	}
}

func TestSpecExample(t *testing.T) {
	g, err := Parse("mlp.json", []byte(specExample))
	require.NoError(t, err)
	assert.Equal(t, "mlp", g.Name)
	ht := g.Tensor("ht")
	require.NotNil(t, ht)
	assert.Equal(t, g.Tensor("h2"), ht.ViewOf)
	assert.Equal(t, DType("f32"), ht.DType, "view dtype defaults to the base's")
	assert.Equal(t, "cpu", ht.Device)
	head := g.Ops[2]
	require.Len(t, head.Attrs, 3)
	assert.Equal(t, []string{"scale", "pad", "n"}, []string{head.Attrs[0].Name, head.Attrs[1].Name, head.Attrs[2].Name}, "attrs keep the written order")
	assert.Equal(t, AttrFloat, head.Attrs[0].Kind)
	assert.Equal(t, AttrInts, head.Attrs[1].Kind)
	assert.Equal(t, "2*batch", head.Attrs[2].Int.String())
	require.NotNil(t, g.Ops[3].Loop)
	assert.Equal(t, "batch", g.Ops[3].Loop.Count.String())
	assert.Equal(t, "784*batch", g.Tensor("x").ExtentElems.String())
	assert.Equal(t, "512*batch", g.Tensor("h").StorageBytes().String())
	assert.Equal(t, int64(8), g.Symbol("batch").Hint)
	assert.Equal(t, int64(4096), g.Symbol("batch").Max)
}

const specExample = `{
  "name": "mlp",
  "symbols": {"batch": {"hint": 8, "min": 1, "max": 4096}},
  "tensors": {
    "x":   {"dtype": "f32", "shape": ["batch", 784]},
    "w1":  {"dtype": "f32", "shape": [784, 128]},
    "h":   {"dtype": "f32", "shape": ["batch", 128]},
    "h2":  {"dtype": "f32", "shape": ["batch", 128]},
    "ht":  {"view_of": "h2", "shape": [128, "batch"], "strides": [1, 128]},
    "y":   {"dtype": "f32", "shape": ["batch", 10], "device": "cpu"}
  },
  "inputs":  ["x", "w1"],
  "outputs": ["y"],
  "ops": [
    {"kernel": "matmul", "inputs": ["x", "w1"], "outputs": ["h"]},
    {"kernel": "relu_", "inputs": ["h"], "outputs": ["h2"], "inplace": {"h2": "h"}},
    {"kernel": "head", "inputs": ["ht"], "outputs": ["y"], "attrs": {"scale": 0.5, "pad": [1, 1], "n": {"expr": "batch*2"}}},
    {"loop": {"count": "batch", "body": [ {"kernel": "step", "inputs": ["y"], "outputs": [], "mutates": ["y"]} ]}}
  ]
}`

// small builds a graph text from tensors and ops fragments.
func small(symbols, tensors, inputs, outputs, ops string) string {
	if symbols == "" {
		symbols = `{"n": {"hint": 4, "min": 1, "max": 64}}`
	}
	return `{"name": "g", "symbols": ` + symbols + `, "tensors": {` + tensors + `}, "inputs": [` + inputs + `], "outputs": [` + outputs + `], "ops": [` + ops + `]}`
}

const okTensors = `"a": {"dtype": "f32", "shape": ["n", 4]}, "b": {"dtype": "f32", "shape": ["n", 4]}, "c": {"dtype": "f32", "shape": ["n", 4]}`

// TestBadGraphs covers the spec's Errors section: each bad graph gets an
// error naming the file, a line:col and the place.
func TestBadGraphs(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // substrings of the error
	}{
		{"malformed JSON", "{\n  \"name\": \"g\",\n  \"tensors\": {,}\n}", []string{"bad.json:3:", "malformed JSON"}},
		{"truncated JSON", `{"name": "g", "tensors": {`, []string{"malformed JSON", "unexpected end of file"}},
		{"empty file", "  \n", []string{"file is empty"}},
		{"array instead of object", `[1, 2]`, []string{"bad.json:1:1", "expected a JSON object"}},
		{"name wrong type", small("", okTensors, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`)[:9] + `5, "x": ` + small("", okTensors, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`)[9:], []string{"name: expected a string, found a number"}},
		{"shape wrong type", small("", `"a": {"dtype": "f32", "shape": "n"}, "b": {"dtype": "f32", "shape": [4]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{`tensors["a"].shape: expected an array, found a string`}},
		{"unknown field", small("", `"a": {"dtype": "f32", "shape": [4], "stride": [1]}, "b": {"dtype": "f32", "shape": [4]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{`unknown field "stride"`}},
		{"unknown dtype", small("", `"a": {"dtype": "f31", "shape": [4]}, "b": {"dtype": "f32", "shape": [4]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{`tensors["a"].dtype: unknown dtype "f31"`}},
		{"tensor defined twice", small("", `"a": {"dtype": "f32", "shape": [4]}, "a": {"dtype": "f32", "shape": [4]}, "b": {"dtype": "f32", "shape": [4]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{`bad.json:1:116: tensors: key "a" is given twice (first at line 1, col 79)`}},
		{"duplicate inplace key", small("", okTensors, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}, {"kernel": "r", "inputs": ["b"], "outputs": ["c"], "inplace": {"c": "b", "c": "b"}}`), []string{`ops[1].inplace: key "c" is given twice (first at line 1, col`}},
		{"run-time size with a hint", small(`{"n": {"hint": 4}, "k": {"bound": "n", "hint": 2}}`, `"a": {"dtype": "f32", "shape": ["n", 4]}, "y": {"dtype": "i64", "shape": ["k"]}, "c": {"dtype": "i64", "shape": []}, "z": {"dtype": "i64", "shape": ["k"]}`, `"a"`, `"z"`, `{"kernel": "nz", "inputs": ["a"], "outputs": ["y", "c"], "sets": {"k": "c"}}, {"kernel": "neg", "inputs": ["y"], "outputs": ["z"]}`), []string{"a symbol with a \"bound\" is set at run time: it has no \"hint\""}},
		{"run-time size set by no op", small(`{"n": {"hint": 4, "min": 1, "max": 64}, "k": {"bound": "3*n"}}`, `"a": {"dtype": "f32", "shape": ["n", 4]}, "y": {"dtype": "i64", "shape": ["k"]}, "c": {"dtype": "i64", "shape": []}, "z": {"dtype": "i64", "shape": ["k"]}`, `"a"`, `"y"`, `{"kernel": "nz", "inputs": ["a"], "outputs": ["y", "c"]}`), []string{"symbol \"k\" has a bound but no op sets it"}},
		{"bound over a run-time size", small(`{"n": {"hint": 4}, "k": {"bound": "n"}, "j": {"bound": "k"}}`, `"a": {"dtype": "f32", "shape": ["n", 4]}, "y": {"dtype": "i64", "shape": ["k"]}, "c": {"dtype": "i64", "shape": []}, "z": {"dtype": "i64", "shape": ["k"]}`, `"a"`, `"z"`, `{"kernel": "nz", "inputs": ["a"], "outputs": ["y", "c"], "sets": {"k": "c"}}, {"kernel": "neg", "inputs": ["y"], "outputs": ["z"]}`), []string{"bound k uses \"k\", a size set at run time"}},
		{"sets a given symbol", small(`{"n": {"hint": 4, "min": 1, "max": 64}, "k": {"bound": "3*n"}}`, `"a": {"dtype": "f32", "shape": ["n", 4]}, "y": {"dtype": "i64", "shape": ["k"]}, "c": {"dtype": "i64", "shape": []}, "z": {"dtype": "i64", "shape": ["k"]}`, `"a"`, `"z"`, `{"kernel": "nz", "inputs": ["a"], "outputs": ["y", "c"], "sets": {"n": "c"}}, {"kernel": "neg", "inputs": ["y"], "outputs": ["z"]}`), []string{"sets: symbol \"n\" has no \"bound\""}},
		{"count not a scalar", small(`{"n": {"hint": 4, "min": 1, "max": 64}, "k": {"bound": "3*n"}}`, `"a": {"dtype": "f32", "shape": ["n", 4]}, "y": {"dtype": "i64", "shape": ["k"]}, "c": {"dtype": "i64", "shape": []}, "z": {"dtype": "i64", "shape": ["k"]}`, `"a"`, `"z"`, `{"kernel": "nz", "inputs": ["a"], "outputs": ["y", "z"], "sets": {"k": "z"}}`), []string{"sets.k: output \"z\" must be an i64 scalar of its own"}},
		{"run-time size used before it is set", small(`{"n": {"hint": 4, "min": 1, "max": 64}, "k": {"bound": "3*n"}}`, `"a": {"dtype": "f32", "shape": ["n", 4]}, "y": {"dtype": "i64", "shape": ["k"]}, "c": {"dtype": "i64", "shape": []}, "z": {"dtype": "i64", "shape": ["k"]}`, `"a"`, `"z"`, `{"kernel": "early", "inputs": ["a"], "outputs": ["z"]}, {"kernel": "nz", "inputs": ["a"], "outputs": ["y", "c"], "sets": {"k": "c"}}`), []string{"output \"z\" is shaped by k, which is set at run time by ops[1], not before this op"}},
		{"duplicate attribute", small("", okTensors, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"], "attrs": {"x": 1, "y": [], "x": 2}}`), []string{`ops[0].attrs: key "x" is given twice`}},
		{"duplicate symbol field", small(`{"n": {"hint": 4, "min": 1, "hint": 64}}`, okTensors, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{`symbols.n: key "hint" is given twice`}},
		{"duplicate in a loop body op", small("", okTensors, `"a"`, `"b"`, `{"loop": {"count": 1, "body": [{"kernel": "k", "inputs": ["a"], "outputs": ["b"], "kernel": "k"}]}}`), []string{`ops[0].loop.body[0]: key "kernel" is given twice`}},
		{"lone surrogate", small("", okTensors+`, "d\ud800": {"dtype": "f32", "shape": [4]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{`tensors: malformed JSON: lone UTF-16 surrogate \ud800`}},
		{"lone low surrogate in an attribute", small("", okTensors, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"], "attrs": {"s": "\udc01x"}}`), []string{`ops[0].attrs.s: malformed JSON: lone UTF-16 surrogate \udc01`}},
		{"invalid UTF-8", small("", okTensors, `"a"`, `"b"`, "{\"kernel\": \"k\xff\", \"inputs\": [\"a\"], \"outputs\": [\"b\"]}"), []string{`ops[0].kernel: malformed JSON: invalid UTF-8 byte 0xff`}},
		{"two outputs take over one input", small("", okTensors+`, "d": {"dtype": "f32", "shape": ["n", 4]}`, `"a"`, `"c", "d"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}, {"kernel": "r", "inputs": ["b"], "outputs": ["c", "d"], "inplace": {"c": "b", "d": "b"}}`), []string{`ops[1] (kernel "r"): inplace["d"]: "b" is already taken over by "c"`}},
		{"name never defined", small("", okTensors, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["zz"], "outputs": ["b"]}`), []string{`ops[0] (kernel "k"): inputs[0]: tensor "zz" is not defined`}},
		{"output defined twice", small("", okTensors, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}, {"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{`ops[1] (kernel "k"): tensor "b" is defined twice (already by ops[0]`}},
		{"use before definition", small("", okTensors, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["b"], "outputs": ["c"]}, {"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{`ops[0] (kernel "k"): input "b" is used before it is defined`}},
		{"output never defined", small("", okTensors, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{`output "c" is never defined`}},
		{"cycle of views", small("", okTensors+`, "v1": {"view_of": "v2", "shape": [4]}, "v2": {"view_of": "v1", "shape": [4]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{"views form a cycle"}},
		{"view outside base", small("", okTensors+`, "v": {"view_of": "b", "shape": ["n", 5]}`, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}, {"kernel": "k", "inputs": ["v"], "outputs": ["c"]}`), []string{`tensors["v"]: view reaches element`}},
		{"view offset outside base", small("", okTensors+`, "v": {"view_of": "b", "shape": [4], "offset": "4*n"}`, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}, {"kernel": "k", "inputs": ["v"], "outputs": ["c"]}`), []string{`tensors["v"]: view reaches element`}},
		{"inplace input read later", small("", okTensors, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}, {"kernel": "r", "inputs": ["b"], "outputs": ["c"], "inplace": {"c": "b"}}, {"kernel": "s", "inputs": ["b"], "outputs": [], "mutates": ["c"]}`), []string{`ops[2] (kernel "s"): input "b" was taken over in place by ops[1]`}},
		{"inplace of a graph input", small("", okTensors, `"a"`, `"b"`, `{"kernel": "r", "inputs": ["a"], "outputs": ["b"], "inplace": {"b": "a"}}`), []string{`takes over graph input "a"`}},
		{"inplace too large", small("", `"a": {"dtype": "f32", "shape": [4]}, "b": {"dtype": "f32", "shape": [4]}, "c": {"dtype": "f32", "shape": [8]}`, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}, {"kernel": "r", "inputs": ["b"], "outputs": ["c"], "inplace": {"c": "b"}}`), []string{`inplace "c" needs 32 bytes but "b" has only 16`}},
		{"write to input via output", small("", okTensors, `"a"`, `"a"`, `{"kernel": "k", "inputs": [], "outputs": ["a"]}`), []string{`writes graph input "a"`}},
		{"write to input via mutates", small("", okTensors, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"], "mutates": ["a"]}`), []string{`mutates "a", which is (a view of) graph input "a"`}},
		{"write to input via view", small("", okTensors+`, "v": {"view_of": "a", "shape": [4]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b", "v"]}`), []string{`output "v" is a view of graph input "a"`}},
		{"inconsistent outputs", small("", okTensors, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}, {"kernel": "k", "inputs": ["b"], "outputs": []}, {"kernel": "j", "inputs": ["b"], "outputs": ["c"]}`), []string{`ops[1] (kernel "k"): has 0 outputs but ops[0] (kernel "k") has 1`}},
		{"inconsistent attrs", small("", okTensors, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"], "attrs": {"x": 1}}, {"kernel": "k", "inputs": ["b"], "outputs": ["c"], "attrs": {"x": 1.5}}`), []string{`has attributes (x float) but ops[0] (kernel "k") has (x int)`}},
		{"expression does not parse", small("", `"a": {"dtype": "f32", "shape": ["n +* 2"]}, "b": {"dtype": "f32", "shape": [4]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{`tensors["a"].shape[0]: expression "n +* 2" does not parse`}},
		{"undeclared symbol", small("", `"a": {"dtype": "f32", "shape": ["batch"]}, "b": {"dtype": "f32", "shape": [4]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{`uses undeclared symbol "batch"`}},
		{"negative size", small("", `"a": {"dtype": "f32", "shape": [-4]}, "b": {"dtype": "f32", "shape": [4]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{`tensors["a"].shape[0]: is negative (-4)`}},
		{"negative symbolic size", small("", `"a": {"dtype": "f32", "shape": ["n - 8"]}, "b": {"dtype": "f32", "shape": [4]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{`size n - 8 is negative`}},
		{"size overflows int64", small("", `"a": {"dtype": "f32", "shape": [4611686018427387904, 4]}, "b": {"dtype": "f32", "shape": [4]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{`tensors["a"]`, "overflows int64"}},
		{"overflow only at max", small(`{"n": {"hint": 4, "max": 4611686018427387904}}`, `"a": {"dtype": "f32", "shape": ["n", 4]}, "b": {"dtype": "f32", "shape": [4]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{`tensors["a"]: storage size overflows int64 at n=4611686018427387904`}},
		{"hint outside range", small(`{"n": {"hint": 100, "min": 1, "max": 64}}`, okTensors, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`), []string{`symbols["n"]: hint 100 is outside [1, 64]`}},
		{"read after loop", small("", okTensors, `"a"`, `"c"`, `{"loop": {"count": 2, "body": [{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}]}}, {"kernel": "j", "inputs": ["b"], "outputs": ["c"]}`), []string{`input "b" is defined inside the loop at ops[0]`}},
		{"inplace over a tensor from outside the loop", small("", okTensors, `"a"`, `"c"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}, {"loop": {"count": 2, "body": [{"kernel": "r", "inputs": ["b"], "outputs": ["c"], "inplace": {"c": "b"}}]}}`), []string{`ops[1].loop.body[0] (kernel "r"): inplace takes over "b", defined outside the enclosing loop`}},
		{"float in int list", small("", okTensors, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"], "attrs": {"p": [1, 2.5]}}`), []string{`attrs["p"][1]: expected an integer, found 2.5`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("bad.json", []byte(c.src))
			require.Error(t, err)
			var list ErrorList
			require.ErrorAs(t, err, &list)
			msg := err.Error()
			assert.True(t, strings.HasPrefix(msg, "bad.json"), "error names the file: %s", msg)
			for _, w := range c.want {
				assert.Contains(t, msg, w)
			}
		})
	}
}

func TestErrorsAreCollected(t *testing.T) {
	src := small("", `"a": {"dtype": "f31", "shape": [4]}, "b": {"dtype": "f32", "shape": [-1]}, "c": {"dtype": "f32", "shape": ["zz"]}`, `"a"`, `"b"`, `{"kernel": "k", "inputs": ["a"], "outputs": ["b"]}`)
	_, err := Parse("bad.json", []byte(src))
	var list ErrorList
	require.ErrorAs(t, err, &list)
	assert.GreaterOrEqual(t, len(list), 3, "all problems reported at once: %v", err)
	for _, p := range list {
		assert.Positive(t, p.Line, "every problem has a position: %v", p)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.json"))
	require.ErrorContains(t, err, "nope.json")
	dir := t.TempDir()
	_, err = Load(dir)
	require.ErrorContains(t, err, "is a directory")
	p := filepath.Join(dir, "g.json")
	require.NoError(t, os.WriteFile(p, []byte(specExample), 0o644))
	_, err = Load(p)
	require.NoError(t, err)
}

// TestCopiesMatchShared: the in-repository copies are the graphs CI gets in
// ../shared/graphs, byte for byte; new shared graphs are only extra.
func TestCopiesMatchShared(t *testing.T) {
	const shared = "../../shared/graphs"
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("%s is not beside the repository; the copies in %s are what the tests use", shared, sharedGraphs)
	}
	copies, err := filepath.Glob(filepath.Join(sharedGraphs, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, copies)
	for _, c := range copies {
		want, err := os.ReadFile(filepath.Join(shared, filepath.Base(c)))
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		got, err := os.ReadFile(c)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(want, got), "%s differs from %s: copy it again", c, filepath.Join(shared, filepath.Base(c)))
	}
}
