package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/onnx"
	"github.com/wrapgen/wrapgen/internal/fold"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// modelOptions are how the commands import a model: the -hint, -min and
// -max values for its symbols, and import-time folding by the reference
// kernels (of the nodes that prepare weights too, unless -fold-weights=false).
func modelOptions(hints, mins, maxes symbolValues, foldWeights bool) onnx.Options {
	return onnx.Options{Hints: hints, Min: mins, Max: maxes, Fold: fold.Call, FoldWeights: foldWeights}
}

// foldWeightsUsage describes -fold-weights, which every command that
// imports a model has.
const foldWeightsUsage = "for an ONNX model: evaluate once at import the nodes that prepare weights from initializers (QuantizeLinear, DequantizeLinear, Transpose, Cast, arithmetic by constants), whose outputs become params, fold a BatchNormalization into the Conv before it and cut a Conv's taps that read only padding (false: keep them, and the model's own initializers as params)"

// loadGraph reads a format-v1 graph, or imports an ONNX model (by the .onnx
// extension) with opts, so every command takes either; "-" is standard
// input, a graph or a model by its content.
func loadGraph(path string, opts onnx.Options) (*graph.Graph, error) {
	if path == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("reading standard input: %w", err)
		}
		if onnx.IsJSON(data) {
			return graph.Parse(stdinName, data)
		}
		g, _, err := onnx.Parse(stdinName, data, opts)
		return g, err
	}
	if !onnx.IsModel(path) {
		return graph.Load(path)
	}
	g, _, err := onnx.Load(path, opts)
	return g, err
}

// stdin is what "-" reads; stdinName names it in messages.
var stdin io.Reader = os.Stdin

const stdinName = "<stdin>"

func runImport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("import", stdout, stderr)
	out := fs.String("o", "", "write the format-v1 graph to `file` (default: standard output)")
	weights := fs.String("weights", "", "also write the graph's params (initializers, large constants, -params tensors) to `file` in safetensors format")
	params := fs.String("params", "", "make every graph input that the safetensors `file` holds a param with those contents (models exported with weights as inputs)")
	foldWeights := fs.Bool("fold-weights", true, foldWeightsUsage)
	quiet := fs.Bool("q", false, "print nothing on success (by default each file written is named on standard error)")
	hints, mins, maxes := symbolValues{}, symbolValues{}, symbolValues{}
	fs.Var(hints, "hint", "hint of symbol `name=value` (default "+fmt.Sprint(onnx.DefaultHint)+", or its minimum; repeatable)")
	fs.Var(mins, "min", "smallest value of symbol `name=value` (default 1, or what the model's shapes need; repeatable)")
	fs.Var(maxes, "max", "largest value of symbol `name=value` (default none; repeatable)")
	values := valueFiles{}
	fs.Var(values, "value", "fix graph input `NAME=FILE` (.npy or an ONNX TensorProto .pb) at import: a constant, like an initializer, so that shapes computed from it are known (repeatable)")
	if help, err := parseFlags(fs, "wrapgen import [-o GRAPH.json] [-weights FILE.safetensors] [-params FILE.safetensors] [-value NAME=FILE] [-hint|-min|-max name=value] MODEL.onnx", args); help || err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return &usageError{fmt.Sprintf("import takes one model file, got %d arguments", fs.NArg())}
	}
	path := fs.Arg(0)
	inputs := append([]string{path, *params}, slices.Sorted(maps.Values(values))...)
	if err := checkImportOutputs(*out, *weights, inputs); err != nil {
		return err
	}
	opts := modelOptions(hints, mins, maxes, *foldWeights)
	if len(values) > 0 {
		vs, err := values.read()
		if err != nil {
			return err
		}
		opts.Values = vs
	}
	if *params != "" {
		ps, err := readParams(*params)
		if err != nil {
			return err
		}
		opts.Params = ps
	}
	var res *onnx.Result
	var err error
	if path == "-" {
		data, rerr := io.ReadAll(stdin)
		if rerr != nil {
			return fmt.Errorf("reading standard input: %w", rerr)
		}
		_, res, err = onnx.Parse(stdinName, data, opts)
	} else {
		_, res, err = onnx.Load(path, opts)
	}
	if err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "%s: %s\n", path, n)
	}
	var files []outFile
	if *weights != "" {
		data, err := onnx.Safetensors(res.Weights)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		files = append(files, outFile{*weights, data})
	}
	var report io.Writer = stderr
	if *quiet {
		report = nil
	}
	if *out == "" || *out == "-" {
		if err := writeFiles(files, report); err != nil {
			return err
		}
		_, err := stdout.Write(res.JSON)
		return err
	}
	return writeFiles(append(files, outFile{*out, res.JSON}), report)
}

// checkImportOutputs refuses, before any work, an -o or -weights that
// import must not write (see checkOutput), or the same file for both.
func checkImportOutputs(out, weights string, inputs []string) error {
	if out != "" && out != "-" {
		if err := checkOutput("-o", out, inputs...); err != nil {
			return err
		}
	}
	if weights == "" {
		return nil
	}
	if err := checkOutput("-weights", weights, inputs...); err != nil {
		return err
	}
	if out != "" && out != "-" && samePath(out, weights) {
		return fmt.Errorf("-o and -weights are the same file %s", out)
	}
	return nil
}

// samePath says whether a and b name the same file: the same absolute
// path, or (when both exist) the same file by os.SameFile.
func samePath(a, b string) bool {
	aa, aerr := filepath.Abs(a)
	ab, berr := filepath.Abs(b)
	if aerr == nil && berr == nil && aa == ab {
		return true
	}
	sa, aerr := os.Stat(a)
	sb, berr := os.Stat(b)
	return aerr == nil && berr == nil && os.SameFile(sa, sb)
}

// readParams reads a safetensors file into the importer's weights.
func readParams(path string) (map[string]onnx.Weight, error) {
	ts, err := loadSafetensors("-params", path)
	if err != nil {
		return nil, err
	}
	out := make(map[string]onnx.Weight, len(ts))
	for name, t := range ts {
		shape := make([]int64, len(t.Shape))
		for i, d := range t.Shape {
			shape[i] = int64(d)
		}
		out[name] = onnx.Weight{Name: name, DType: graph.DTypes[t.DType], Shape: shape, Data: t.Data}
	}
	return out, nil
}

// loadSafetensors reads the safetensors file a flag names, refusing first
// what is not a regular file (a directory was reported as a file "too
// short"; a FIFO would block).
func loadSafetensors(flag, path string) (map[string]wgrt.Tensor, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if kind := notRegular(st); kind != "" {
		return nil, fmt.Errorf("%s %s: is %s, not a safetensors file", flag, path, kind)
	}
	return wgrt.LoadSafetensors(path)
}

// valueFiles are -value flags: graph input name to the file holding its
// contents.
type valueFiles map[string]string

func (v valueFiles) String() string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(v)) {
		parts = append(parts, name+"="+v[name])
	}
	return strings.Join(parts, ",")
}

func (v valueFiles) Set(s string) error {
	name, file, ok := strings.Cut(s, "=")
	if !ok || name == "" || file == "" {
		return fmt.Errorf("want NAME=FILE, got %q", s)
	}
	if _, dup := v[name]; dup {
		return fmt.Errorf("input %q is given twice", name)
	}
	v[name] = file
	return nil
}

// read reads every file.
func (v valueFiles) read() (map[string]onnx.Weight, error) {
	ws := map[string]onnx.Weight{}
	for name, file := range v {
		t, inFile, err := readTensorFile(file)
		if err != nil {
			return nil, fmt.Errorf("-value %s: %w", name, err)
		}
		if inFile != "" && inFile != name {
			return nil, fmt.Errorf("-value %s=%s: the file's tensor is named %q, not %q", name, file, inFile, name)
		}
		shape := make([]int64, len(t.Shape))
		for d, n := range t.Shape {
			shape[d] = int64(n)
		}
		ws[name] = onnx.Weight{Name: name, DType: graph.DType(t.DType.String()), Shape: shape, Data: t.Data[:t.NumElements()*t.DType.Size()]}
	}
	return ws, nil
}
