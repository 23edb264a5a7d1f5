package onnx

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// nodeTestDir is where Debian's libonnx-testdata puts ONNX's backend node
// tests: one folder per test, each a model.onnx and test_data_set_0/.
const nodeTestDir = "/usr/share/libonnx-testdata/data/node"

// mustSupport are the ops every node test of which must import and match.
var mustSupport = strings.Fields(`Add AveragePool BatchNormalization Cast Clip Concat Constant
ConstantOfShape Conv Div Dropout Equal Erf Expand Flatten Gather Gemm GlobalAveragePool
HardSigmoid HardSwish LayerNormalization MatMul MaxPool Mod Mul Not Pad Pow Range ReduceMean
Relu Reshape ScatterND Shape Sigmoid Slice Softmax Sub Transpose Unsqueeze Where`)

// TestNodeTests imports every ONNX node test: each either imports with
// graph outputs of exactly the dtypes and shapes of its expected outputs,
// or is refused with an "unsupported" error naming the node (the numbers
// are checked by internal/interp's TestNodeTests, which also writes
// docs/onnx-coverage.md).
func TestNodeTests(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(nodeTestDir, "test_*"))
	require.NoError(t, err)
	if len(dirs) == 0 {
		t.Skipf("no ONNX node tests in %s (install Debian's libonnx-testdata)", nodeTestDir)
	}
	matched, refused := 0, 0
	var failures []string
	for _, dir := range dirs {
		name := filepath.Base(dir)
		data, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
		require.NoError(t, err)
		op := MainOp(data)
		res, err := importNodeTest(dir, data)
		if err != nil {
			refused++
			if !strings.Contains(err.Error(), "unsupported: ") {
				failures = append(failures, fmt.Sprintf("%s: refused without an unsupported error: %v", name, err))
			} else if contains(mustSupport, op) && !strings.Contains(name, "expanded") && !strings.Contains(err.Error(), "string") {
				failures = append(failures, fmt.Sprintf("%s: %s must be supported: %v", name, op, err))
			}
			continue
		}
		g, err := graph.Parse(name+".json", res.JSON)
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: imported graph does not validate: %v", name, err))
			continue
		}
		if msg := compareOutputs(dir, g); msg != "" {
			failures = append(failures, name+": "+msg)
			continue
		}
		matched++
	}
	t.Logf("%d node tests: %d imported with matching outputs, %d refused as unsupported", len(dirs), matched, refused)
	for _, f := range failures {
		t.Error(f)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// compareOutputs checks each graph output against output_<i>.pb.
func compareOutputs(dir string, g *graph.Graph) string {
	for i, out := range g.Outputs {
		pb, err := os.ReadFile(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("output_%d.pb", i)))
		if err != nil {
			return err.Error()
		}
		want, err := readTensor(msg{pb, 0})
		if err != nil {
			return fmt.Sprintf("output_%d.pb: %v", i, err)
		}
		d, err := dtypeOf(want.dataType)
		if err != nil {
			return fmt.Sprintf("output %q: %v", out.Name, err)
		}
		// The test data stores bfloat16 outputs as uint16.
		if d != out.DType && !(d == "u16" && out.DType == "bf16") {
			return fmt.Sprintf("output %q has dtype %s, expected %s", out.Name, out.DType, d)
		}
		// A size set at run time (NonZero's count...) evaluates to its
		// bound at the hints: the expected size must be within it.
		got := make([]int64, len(out.Shape))
		match := len(got) == len(want.dims)
		for k, s := range out.Shape {
			v, err := s.Eval(g.Hints())
			if err != nil {
				return err.Error()
			}
			got[k] = v
			if match && (v < want.dims[k] || v != want.dims[k] && !runTime(g, s)) {
				match = false
			}
		}
		if !match {
			return fmt.Sprintf("output %q has shape %v, expected %v", out.Name, got, want.dims)
		}
	}
	return ""
}

// runTime reports whether e depends on a size set at run time.
func runTime(g *graph.Graph, e expr.Expr) bool {
	for _, name := range e.Symbols() {
		for _, s := range g.Symbols {
			if s.Name == name && s.RunTime() {
				return true
			}
		}
	}
	return false
}

func TestMustSupportHaveRules(t *testing.T) {
	for _, op := range mustSupport {
		assert.NotNil(t, rules[op], op)
	}
}

var runTimeInput = regexp.MustCompile(`input \d+ (?:\([a-z_A-Z]+\) )?"([^"]+)" (?:of \w+ )?is computed`)

// importNodeTest imports a node test's model. Node tests pass reshape
// targets, slice bounds and the like as graph inputs; when the import asks
// for one at import time, it is fixed to the test's input_<i>.pb and the
// import retried, as a user would with Options.Values.
func importNodeTest(dir string, data []byte) (*Result, error) {
	name := filepath.Base(dir)
	opts := Options{Values: map[string]Weight{}}
	m, err := readModel(data)
	if err != nil {
		return Import(name+"/model.onnx", data, opts)
	}
	for {
		res, err := Import(name+"/model.onnx", data, opts)
		if err == nil {
			return res, nil
		}
		sub := runTimeInput.FindStringSubmatch(err.Error())
		if sub == nil {
			return nil, err
		}
		if _, fixed := opts.Values[sub[1]]; fixed {
			return nil, err
		}
		idx := -1
		for i, in := range m.graph.inputs {
			if in.name == sub[1] {
				idx = i
			}
		}
		if idx < 0 {
			return nil, err
		}
		pb, rerr := os.ReadFile(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("input_%d.pb", idx)))
		if rerr != nil {
			return nil, err
		}
		w, rerr := DecodeTensor(pb)
		if rerr != nil {
			return nil, rerr
		}
		opts.Values[sub[1]] = w
	}
}
