package interp

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/onnx"
	"github.com/wrapgen/wrapgen/internal/onnxtest"
	"github.com/wrapgen/wrapgen/internal/refscratch"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/emit"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// knownNodeFailures are the node tests that import but cannot match, with
// why; any other mismatch fails TestNodeTests.
var knownNodeFailures = map[string]string{
	"test_castlike_BFLOAT16_to_FLOAT":          "the test's input \"like\" has shape [1], the model declares [3, 4]: refused as a wrong input",
	"test_castlike_BFLOAT16_to_FLOAT_expanded": "the test's input \"like\" has shape [1], the model declares [3, 4]: refused as a wrong input",
	"test_castlike_FLOAT_to_BFLOAT16":          "the test's input \"like\" has shape [1], the model declares [3, 4]: refused as a wrong input",
	"test_castlike_FLOAT_to_BFLOAT16_expanded": "the test's input \"like\" has shape [1], the model declares [3, 4]: refused as a wrong input",
	"test_bernoulli":                           "Bernoulli draws random numbers (the test's come from numpy's generator): the reference kernel gives 0/1 values of the right dtype and shape, not the same ones",
	"test_bernoulli_double":                    "Bernoulli draws random numbers (the test's come from numpy's generator): the reference kernel gives 0/1 values of the right dtype and shape, not the same ones",
	"test_bernoulli_seed":                      "Bernoulli draws random numbers (the test's come from numpy's generator): the reference kernel gives 0/1 values of the right dtype and shape, not the same ones",
	"test_bernoulli_expanded":                  "Bernoulli draws random numbers (the test's come from numpy's generator): the reference kernel gives 0/1 values of the right dtype and shape, not the same ones",
	"test_bernoulli_double_expanded":           "Bernoulli draws random numbers (the test's come from numpy's generator): the reference kernel gives 0/1 values of the right dtype and shape, not the same ones",
	"test_bernoulli_seed_expanded":             "Bernoulli draws random numbers (the test's come from numpy's generator): the reference kernel gives 0/1 values of the right dtype and shape, not the same ones",
	"test_training_dropout":                    "training-mode Dropout drops random elements (numpy's generator): the reference kernels run inference only",
	"test_training_dropout_default":            "training-mode Dropout drops random elements (numpy's generator): the reference kernels run inference only",
	"test_training_dropout_default_mask":       "training-mode Dropout drops random elements (numpy's generator): the reference kernels run inference only",
	"test_training_dropout_mask":               "training-mode Dropout drops random elements (numpy's generator): the reference kernels run inference only",
}

// nodeTestDirs are the node tests' folders, those matching
// WRAPGEN_NODE_RUN when it is set; it skips t when there are none.
func nodeTestDirs(t *testing.T) []string {
	dirs, err := filepath.Glob(filepath.Join(onnxtest.Dir, "test_*"))
	require.NoError(t, err)
	if len(dirs) == 0 {
		t.Skipf("no ONNX node tests in %s (install Debian's libonnx-testdata)", onnxtest.Dir)
	}
	if re := os.Getenv("WRAPGEN_NODE_RUN"); re != "" {
		pick := regexp.MustCompile(re)
		var keep []string
		for _, d := range dirs {
			if pick.MatchString(filepath.Base(d)) {
				keep = append(keep, d)
			}
		}
		dirs = keep
	}
	return dirs
}

// nodeResult is how one node test went.
type nodeResult struct {
	name, op string
	imported bool
	err      string // "" when every output matched
	allocs   string // "" when no kernel call allocated
}

// TestNodeTests runs every ONNX node test that imports through the
// reference kernels and compares each output with the test's expected one.
// WRAPGEN_NODE_REPORT=file writes every test's result; WRAPGEN_NODE_RUN=re
// runs only the tests whose folder name matches.
func TestNodeTests(t *testing.T) {
	dirs := nodeTestDirs(t)
	var results []nodeResult
	imported, matched := 0, 0
	for _, dir := range dirs {
		r := runNodeTest(dir, wgref.Call, true)
		results = append(results, r)
		if r.imported {
			imported++
			if r.err == "" {
				matched++
			}
		}
	}
	t.Logf("node tests: %d, imported %d, matched %d (%.1f%% of those imported)", len(dirs), imported, matched, 100*float64(matched)/float64(max(imported, 1)))
	for _, r := range results {
		if r.allocs != "" {
			t.Errorf("%s: %s: scratch comes from the plan, so a call allocates nothing", r.name, r.allocs)
		}
		if !r.imported || r.err == "" {
			continue
		}
		if cause, known := knownNodeFailures[r.name]; known {
			t.Logf("%s: fails as known: %s", r.name, cause)
			continue
		}
		t.Errorf("%s (kernel %s): %s", r.name, r.op, r.err)
	}
	if os.Getenv("WRAPGEN_NODE_RUN") == "" {
		assert.GreaterOrEqual(t, float64(matched), 0.98*float64(imported), "at least 98%% of the node tests that import match")
	}
	if out := os.Getenv("WRAPGEN_ONNX_COVERAGE"); out != "" {
		require.NoError(t, os.WriteFile(out, []byte(coverageDoc(results, imported, matched)), 0o644))
	}
	if out := os.Getenv("WRAPGEN_NODE_REPORT"); out != "" {
		var b strings.Builder
		sort.Slice(results, func(i, j int) bool { return results[i].name < results[j].name })
		for _, r := range results {
			switch {
			case !r.imported:
				fmt.Fprintf(&b, "%s\t%s\tnot imported\t%s\n", r.name, r.op, oneLine(r.err))
			case r.err != "":
				fmt.Fprintf(&b, "%s\t%s\tFAIL\t%s\n", r.name, r.op, oneLine(r.err))
			default:
				fmt.Fprintf(&b, "%s\t%s\tok\n", r.name, r.op)
			}
		}
		require.NoError(t, os.WriteFile(out, []byte(b.String()), 0o644))
	}
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// runNodeTest imports, plans and runs one node test through kernel and
// compares; with countAllocs, it runs again counting each kernel call's
// heap allocations (Go kernels).
func runNodeTest(dir string, kernel wgrt.KernelFunc, countAllocs bool) (r nodeResult) {
	r.name = filepath.Base(dir)
	res, data, _, err := onnxtest.Import(dir)
	r.op = onnx.MainOp(data)
	if err != nil {
		r.err = err.Error()
		return r
	}
	g, err := graph.Parse(r.name+".json", res.JSON)
	if err == nil {
		err = g.AddScratch(refscratch.Rule)
	}
	if err != nil {
		r.err = err.Error()
		return r
	}
	r.imported = true
	defer func() {
		if p := recover(); p != nil {
			r.err = fmt.Sprintf("panic: %v", p)
		}
	}()
	names, err := onnx.InputNames(data)
	if err != nil {
		r.err = err.Error()
		return r
	}
	given := map[string]wgrt.Tensor{}
	for i, name := range names {
		pb, err := os.ReadFile(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("input_%d.pb", i)))
		if err != nil {
			continue // an initializer
		}
		w, err := onnx.DecodeTensor(pb)
		if err != nil {
			r.err = fmt.Sprintf("input_%d.pb: %v", i, err)
			return r
		}
		given[name] = tensorOf(w)
	}
	params := map[string]wgrt.Tensor{}
	for _, w := range res.Weights {
		params[w.Name] = tensorOf(w)
	}
	var inputs []wgrt.Tensor
	for _, in := range g.Inputs {
		x, ok := given[in.Name]
		if !ok {
			r.err = fmt.Sprintf("no data for input %q", in.Name)
			return r
		}
		if x.DType == wgrt.U16 && in.DType == "bf16" {
			x.DType = wgrt.BF16 // the test data stores bfloat16 as uint16
		}
		inputs = append(inputs, x)
	}
	p, err := plan.Make(g, plan.Options{})
	if err != nil {
		r.err = "plan: " + err.Error()
		return r
	}
	m := New(p)
	defer m.Close()
	if err := m.BindParams(params); err != nil {
		r.err = err.Error()
		return r
	}
	done := make(chan struct{})
	var outs []wgrt.Tensor
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}()
		outs, err = m.Run(kernel, nil, inputs)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		r.err = "timed out after 20 s"
		return r
	}
	if err != nil {
		r.err = err.Error()
		return r
	}
	for i, out := range outs {
		pb, err := os.ReadFile(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("output_%d.pb", i)))
		if err != nil {
			r.err = err.Error()
			return r
		}
		w, err := onnx.DecodeTensor(pb)
		if err != nil {
			r.err = fmt.Sprintf("output_%d.pb: %v", i, err)
			return r
		}
		want := tensorOf(w)
		if want.DType == wgrt.U16 && out.DType == wgrt.BF16 {
			want.DType = wgrt.BF16 // the test data stores bfloat16 as uint16
		}
		if msg := Compare(out, want, ONNXTolerance); msg != "" {
			r.err = fmt.Sprintf("output %d (%q): %s", i, g.Outputs[i].Name, msg)
			return r
		}
	}
	if !countAllocs {
		return r
	}
	// Run again, counting each kernel call's heap allocations (its outputs
	// were checked above; calling a kernel twice only rewrites them).
	_, err = m.Run(func(c *wgrt.Call) error {
		if n := testing.AllocsPerRun(1, func() { _ = wgref.Call(c) }); n > 0 && r.allocs == "" {
			r.allocs = fmt.Sprintf("kernel %s allocates %.0f times per call", c.Kernel, n)
		}
		return wgref.Call(c)
	}, nil, inputs)
	if err != nil {
		r.err = "second run: " + err.Error()
	}
	return r
}

// tensorOf is a decoded tensor as a row-major wgrt.Tensor.
func tensorOf(w onnx.Weight) wgrt.Tensor {
	shape := make([]int, len(w.Shape))
	for i, d := range w.Shape {
		shape[i] = int(d)
	}
	return wgrt.Tensor{DType: wgrt.DType(emit.DTypeCode(w.DType)), Shape: shape, Strides: wgrt.RowMajor(make([]int, len(shape)), shape), Device: "cpu", Data: w.Data}
}

// coverageDoc is docs/onnx-coverage.md: per op, how many node tests import
// and how many match numerically; then every test that imports but does
// not match, with its cause.
func coverageDoc(results []nodeResult, imported, matched int) string {
	type tally struct{ tests, imported, matched int }
	byOp := map[string]*tally{}
	var ops []string
	for _, r := range results {
		tl := byOp[r.op]
		if tl == nil {
			tl = &tally{}
			byOp[r.op] = tl
			ops = append(ops, r.op)
		}
		tl.tests++
		if r.imported {
			tl.imported++
			if r.err == "" {
				tl.matched++
			}
		}
	}
	sort.Strings(ops)
	var b strings.Builder
	fmt.Fprintf(&b, "# ONNX node-test coverage\n\n"+
		"Generated by `WRAPGEN_ONNX_COVERAGE=docs/onnx-coverage.md go test -run TestNodeTests ./internal/interp` "+
		"over Debian's libonnx-testdata (ONNX 1.12's backend node tests). Each test is imported (`graph/onnx`), planned, and run "+
		"through the tables a generated Go wrapper holds with wrapgen's reference kernels (`wrapgen run`'s path), and every output "+
		"is compared with the test's: floats within rtol 1e-3, atol 1e-7 (ONNX's backend runner), integers and bools exactly. "+
		"A test is counted under the op of its only node, or as \"(expanded)\" and its last node's op when it is a function "+
		"expanded into several nodes. Tests that do not import are refused with an `unsupported:` error naming the node.\n\n"+
		"%d node tests: %d import, and %d of those (%.1f%%) match numerically.\n\n", len(results), imported, matched, 100*float64(matched)/float64(max(imported, 1)))
	b.WriteString("| op | tests | import | match |\n|---|---|---|---|\n")
	for _, op := range ops {
		tl := byOp[op]
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", op, tl.tests, tl.imported, tl.matched)
	}
	b.WriteString("\n## Tests that import but do not match\n\n")
	for _, r := range results {
		if r.imported && r.err != "" {
			cause := knownNodeFailures[r.name]
			if cause == "" {
				cause = oneLine(r.err)
			}
			fmt.Fprintf(&b, "- `%s` (%s): %s\n", r.name, r.op, cause)
		}
	}
	return b.String()
}
