package onnx

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// DefaultHint is the hint of a symbol (a dim_param or an unnamed dynamic
// dimension) that Options.Hints does not give.
const DefaultHint = 1

// Options control an import.
type Options struct {
	// Hints gives symbols their hint; others get DefaultHint.
	Hints map[string]int64
	// Values fixes graph inputs to the given contents (what `import -value
	// NAME=FILE` reads): they are then constants, like initializers. A
	// model that takes a reshape target or slice bounds as an input
	// imports when those are given here.
	Values map[string]Weight
	// Params turns the graph inputs it names into params with the given
	// contents (what `import -params FILE.safetensors` reads): for models
	// exported with their weights as inputs.
	Params map[string]Weight
	// Min and Max bound symbols (by name; others range from 1 up, or from
	// the minimum the importer derives).
	Min, Max map[string]int64
	// Fold, when set, evaluates at import time a kernel call whose inputs
	// are all known (see FoldCall): wrapgen's reference kernels, wired in
	// by the commands.
	Fold func(*FoldCall) error
	// FoldWeights, with Fold, also evaluates at import time the nodes that
	// prepare weights (QuantizeLinear, DequantizeLinear, Transpose, Cast,
	// arithmetic by constants: see weightOps) whatever their size (up to
	// the elements they read), when
	// every input is an initializer or a constant: their outputs become
	// params in place of the nodes, as ONNX Runtime's constant folding
	// does. Initializers a caller may override (graph inputs too, or
	// Options.Params) are not folded.
	FoldWeights bool
}

// MaxOpset is the newest default-domain opset whose operators the importer
// knows.
const MaxOpset = 18

// InlineLimit is the largest constant, in bytes, that an import writes
// into the graph as inline data; larger ones, and every initializer,
// become params.
const InlineLimit = 4096

// Weight is the contents of a param: an initializer, or a constant too
// large to write inline.
type Weight struct {
	Name  string
	DType graph.DType
	Shape []int64
	Data  []byte // little-endian, row-major
}

// Result is an imported model.
type Result struct {
	// JSON is the format-v1 document, as `wrapgen import` writes it.
	JSON []byte
	// Notes say what the import decided that the model did not state:
	// generated symbol names and renamed symbols.
	Notes []string
	// Weights are the contents of the graph's params, in its order.
	Weights []Weight
}

// IsJSON reports whether data is a JSON document (its first non-blank byte
// opens an object or an array), which no ONNX model is: an ONNX file starts
// with a protobuf tag.
func IsJSON(data []byte) bool {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', '[':
			return true
		}
		return false
	}
	return false
}

// IsModel reports whether path names an ONNX model (by its extension).
func IsModel(path string) bool { return strings.EqualFold(filepath.Ext(path), ".onnx") }

// Load reads the model at path and returns the graph graph.Parse makes of
// its format-v1 document, with the import result.
func Load(path string, opts Options) (*graph.Graph, *Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err // the path error names the file
	}
	return Parse(path, data, opts)
}

// Parse is Load of a model held in memory; file names it in errors.
func Parse(path string, data []byte, opts Options) (*graph.Graph, *Result, error) {
	r, err := Import(path, data, opts)
	if err != nil {
		return nil, nil, err
	}
	g, err := graph.Parse(path, r.JSON)
	if err != nil {
		// Most often the model's shapes are wrong for some symbol values
		// (a size negative at the smallest input): the places name the
		// model's own values.
		return nil, nil, fmt.Errorf("%s: the model's shapes fail wrapgen's checks (tensors are named after the model's values; report it if the model is valid):\n%w", path, err)
	}
	return g, r, nil
}

// Import converts a model held in memory; file names it in errors.
func Import(file string, data []byte, opts Options) (*Result, error) {
	if int64(len(data)) > graph.MaxFileBytes {
		return nil, graph.ErrorList{{File: file, Msg: fmt.Sprintf("file is %d bytes, larger than the %d a model may have", len(data), graph.MaxFileBytes)}}
	}
	if IsJSON(data) {
		return nil, graph.ErrorList{{File: file, Msg: "this is JSON (a format-v1 graph?), not an ONNX model: every command but import reads a graph as it is"}}
	}
	m, err := readModel(data)
	if err != nil {
		return nil, graph.ErrorList{{File: file, Msg: err.Error() + " (is it an ONNX model?)"}}
	}
	multiples, why := map[string]int64{}, map[string]string{}
	var im *importer
	for round := 0; ; round++ {
		im = newImporter(file, m, opts)
		im.multiples, im.multipleWhy = multiples, why
		if im.opset > MaxOpset {
			return nil, graph.ErrorList{{File: file, Place: "opset_import", Msg: fmt.Sprintf("unsupported: default-domain opset %d is newer than the importer knows (up to %d)", im.opset, MaxOpset)}}
		}
		err := im.run()
		if err != nil && im.narrow != nil && round < maxNarrowRounds {
			// A size fact holds at multiples of inputs' symbols: import
			// again with the symbols narrowed to them (narrow.go).
			for _, n := range im.narrow {
				multiples[n.symbol] = n.multiple
				if why[n.symbol] == "" {
					why[n.symbol] = n.node
				} else if !strings.Contains(why[n.symbol], n.node) {
					why[n.symbol] += ", " + n.node
				}
			}
			continue
		}
		if err != nil {
			var pl graph.ErrorList
			if errors.As(err, &pl) {
				return nil, pl
			}
			return nil, graph.ErrorList{{File: file, Msg: err.Error()}}
		}
		break
	}
	im.doc.addTraits()
	for _, s := range im.minOrder {
		im.notes = append(im.notes, im.minNotes[s])
	}
	return &Result{JSON: im.doc.json(), Notes: im.notes, Weights: im.weights}, nil
}

// newImporter is an importer of model m, before its run.
func newImporter(file string, m *model, opts Options) *importer {
	im := &importer{
		file: file, m: m, opts: opts,
		vals:        map[string]*value{},
		info:        map[string]*valueInfo{},
		isOutput:    map[string]bool{},
		symbols:     map[string]bool{},
		runTime:     map[string]expr.Expr{},
		runTimeFrom: map[string][]string{},
		unbounded:   map[string]unboundedSize{},
		bounds:      expr.Bounds{},
		symbolFor:   map[string]string{}, paramFor: map[string]string{},
		narrowedTo: map[string]expr.Expr{},
	}
	im.opset = m.opsets[""]
	return im
}

type importer struct {
	file  string
	m     *model
	opts  Options
	opset int64

	vals     map[string]*value
	info     map[string]*valueInfo // value_info and graph outputs, by name
	isOutput map[string]bool
	symbols  map[string]bool
	// runTime holds each run-time size (a symbol an op sets, see
	// runTimeSize) with its bound, an expression of the other symbols.
	runTime map[string]expr.Expr
	// runTimeFrom names, for a run-time size computed from other sizes
	// (resizeToRunTimeSizes), the symbols it is computed from.
	runTimeFrom map[string][]string
	// unbounded holds the run-time sizes with no bound yet (rangeOfData).
	unbounded map[string]unboundedSize
	// inexact is why the last float size arithmetic did not fold
	// (fitsSignificand).
	inexact string
	bounds  expr.Bounds
	// boundWork is what the size bound searches of this model have spent
	// (sizeBound), against maxBoundWork.
	boundWork int64
	// symbolFor and paramFor map dim_params and their symbols both ways.
	symbolFor, paramFor map[string]string

	doc document
	// outer holds the op lists enclosing the loops being imported,
	// outermost first, while doc.ops collects the innermost body.
	outer [][]*docOp
	notes []string
	// minNotes says, per symbol whose minimum the importer raised (in
	// minOrder), why.
	minNotes map[string]string
	minOrder []string
	// taken holds every value name of the model and every name fresh has
	// made (built at fresh's first call).
	taken   map[string]bool
	weights []Weight
	// readCount counts each value's readers (readers); absorbed maps each
	// BatchNormalization folded into the Conv before it to that Conv's
	// output, which its output then names (foldBatchNorm).
	readCount map[string]int
	absorbed  map[*nodeProto]string
	// multiples are the input symbols taken as multiples (narrow.go), with
	// the nodes that need it; narrowedTo is each as the expression it
	// became; narrow is the narrowing this round found it needs.
	multiples   map[string]int64
	multipleWhy map[string]string
	narrowedTo  map[string]expr.Expr
	narrow      []narrowing
}

// problem is an error at a place of the model.
func (im *importer) problem(place, format string, args ...any) error {
	return graph.ErrorList{{File: im.file, Place: place, Msg: fmt.Sprintf(format, args...)}}
}

func (im *importer) run() error {
	g := im.m.graph
	// Exporters give generic graph names ("torch_jit", "main_graph"); the
	// file's name says which model it is, and names the generated code.
	im.doc.name = strings.TrimSuffix(filepath.Base(im.file), filepath.Ext(im.file))
	if strings.HasPrefix(im.file, "<") { // standard input has no file name
		im.doc.name = "model"
	}
	if v, ok := im.m.opsets[""]; ok && v <= 0 {
		return im.problem("opset_import", "the default-domain opset has version %d, which is no ONNX opset (they start at 1): the model's exporter wrote it wrong; re-export it, or set its opset_import version", v)
	}
	if im.opset == 0 {
		return im.problem("", "unsupported: the model imports no default-domain opset (only %s)", strings.Join(domains(im.m.opsets), ", "))
	}
	if g.sparseInits > 0 {
		return im.problem("graph.sparse_initializer", "unsupported: sparse initializers")
	}
	for _, vi := range g.valueInfo {
		im.info[vi.name] = vi
	}
	for _, vi := range g.outputs {
		im.info[vi.name] = vi
		im.isOutput[vi.name] = true
	}
	if err := im.checkNames(); err != nil {
		return err
	}
	for i, t := range g.initializers {
		v, err := tensorValue(t)
		if err != nil {
			return im.problem(fmt.Sprintf("graph.initializer[%d] (%q)", i, t.name), "%v", err)
		}
		v.stored = true
		im.vals[t.name] = v
	}
	if err := im.fixValues(); err != nil {
		return err
	}
	for i, in := range g.inputs {
		if v, ok := im.vals[in.name]; ok {
			// An initializer: a default the caller may override; wrapgen
			// takes it as stored, but does not fold the weights it makes.
			// (Or a value -value fixes: a constant.)
			if _, fixed := im.opts.Values[in.name]; !fixed {
				v.overridable = true
			}
			continue
		}
		if w, ok := im.opts.Params[in.name]; ok {
			if err := im.addParam(i, in, w); err != nil {
				return err
			}
			im.vals[in.name].overridable = true
			continue
		}
		if err := im.addInput(i, in); err != nil {
			return err
		}
	}
	// Every node that fails is reported, not only the first: the nodes
	// that depend on one that failed are skipped quietly (their error
	// would only repeat it).
	var problems graph.ErrorList
	failed := map[string]bool{}
	for i, n := range g.nodes {
		skip := false
		for _, name := range n.inputs {
			skip = skip || failed[name]
		}
		if !skip {
			err := im.node(i, n)
			if err == nil {
				continue
			}
			var pl graph.ErrorList
			if !errors.As(err, &pl) {
				return err
			}
			problems = append(problems, pl...)
		}
		for _, name := range n.outputs {
			failed[name] = true
		}
	}
	if len(problems) > 0 {
		return problems
	}
	for i, out := range g.outputs {
		if err := im.addOutput(i, out); err != nil {
			return err
		}
	}
	return im.checkBounded()
}

// checkNames refuses what makes a name mean two tensors, as onnx.checker
// does (a graph is in single static assignment form): two initializers or
// two graph inputs of one name (the last would win), and a params file
// (Options.Params) holding a tensor that the model's initializer of that
// name gives already (one would be ignored). A graph input that is also an
// initializer is allowed (before IR version 4 every initializer had to be
// one): the initializer is the input's default and wrapgen takes it as
// stored. Two nodes writing one value, or a node writing an input or an
// initializer, are refused where the node is imported.
func (im *importer) checkNames() error {
	g := im.m.graph
	var problems graph.ErrorList
	add := func(place, format string, args ...any) {
		problems = append(problems, graph.ErrorList{{File: im.file, Place: place, Msg: fmt.Sprintf(format, args...)}}...)
	}
	inits := map[string]int{}
	for i, t := range g.initializers {
		place := fmt.Sprintf("graph.initializer[%d] (%q)", i, t.name)
		if j, dup := inits[t.name]; dup {
			add(place, "initializer[%d] has this name too: each name is one tensor", j)
			continue
		}
		inits[t.name] = i
		if _, ok := im.opts.Params[t.name]; ok {
			add(place, "the params file holds a tensor of this name too; wrapgen does not choose between them: remove it from the file or from the model")
		}
	}
	inputs := map[string]int{}
	for i, in := range g.inputs {
		if j, dup := inputs[in.name]; dup {
			add(fmt.Sprintf("graph.input[%d] (%q)", i, in.name), "input[%d] has this name too: each name is one tensor", j)
			continue
		}
		inputs[in.name] = i
	}
	if len(problems) > 0 {
		return problems
	}
	return nil
}

// maxDim is the largest fixed dimension an input may declare: beyond it
// sizes would overflow the planner's int64 arithmetic.
const maxDim = 1 << 40

// symbolOf is the symbol that stands for a dim_param: the dim_param itself
// when it is an identifier expressions can hold, else a mangled name that
// no other dim_param has (reported in the notes when note is set), so that
// two distinct dim_params never become one symbol.
func (im *importer) symbolOf(param string, note bool) string {
	if name, ok := im.symbolFor[param]; ok {
		return name
	}
	name := symbolName(param)
	if name == "min" || name == "max" { // functions in expressions
		name += "_"
	}
	for n := 2; im.paramFor[name] != "" || (name != param && im.isParam(name)); n++ {
		name = fmt.Sprintf("%s_%d", symbolName(param), n)
	}
	if name != param && note {
		im.notes = append(im.notes, fmt.Sprintf("symbol %s stands for dim_param %q", name, param))
	}
	im.symbolFor[param], im.paramFor[name] = name, param
	return name
}

// isParam reports whether some input of the model has name as a dim_param
// (which would then claim it as its own symbol).
func (im *importer) isParam(name string) bool {
	for _, in := range im.m.graph.inputs {
		if in.typ == nil {
			continue
		}
		for _, d := range in.typ.dims {
			if d.param == name {
				return true
			}
		}
	}
	return false
}

// symbolName makes an expression identifier of a dim_param.
func symbolName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "s_" + out
	}
	return out
}

func (im *importer) symbol(name string) expr.Expr {
	if v, fixed := im.fixed(name); fixed {
		im.noteOnce("fixed "+name, fmt.Sprintf("symbol %s is fixed to %d (-min and -max): its dimensions are constants", name, v))
		return expr.Const(v)
	}
	if e, ok := im.narrowedTo[name]; ok {
		return e
	}
	if !im.symbols[name] {
		im.symbols[name] = true
		r := expr.Range{Min: 1, Max: -1}
		if v, ok := im.opts.Min[name]; ok {
			r.Min = v
		}
		if v, ok := im.opts.Max[name]; ok {
			r.Max = v
		}
		hint := max(int64(DefaultHint), r.Min)
		if h, ok := im.opts.Hints[name]; ok {
			hint = h
		}
		if e, ok := im.narrowedSymbol(name, r, hint); ok {
			im.narrowedTo[name] = e
			return e
		}
		im.doc.symbols = append(im.doc.symbols, docSymbol{name: name, hint: hint, min: r.Min, max: r.Max})
		im.bounds[name] = r
	}
	return expr.Sym(name)
}

// fixed reports whether -min and -max give symbol name one value: its
// dimensions are then that constant (a model exported with a size traced
// as a constant imports with the dynamic one pinned to it).
func (im *importer) fixed(name string) (int64, bool) {
	lo, okLo := im.opts.Min[name]
	hi, okHi := im.opts.Max[name]
	return lo, okLo && okHi && lo == hi
}

// atLeast makes sure e >= lo for every symbol value: proven with the
// symbols' ranges, or else, when e depends on one symbol whose minimum the
// user did not set, by raising that minimum to the smallest value from
// which it is proven (a convolution stack needs enough samples), reported
// in the notes as torch.export suggests constraints. what names e in the
// error when neither works.
func (im *importer) atLeast(e expr.Expr, lo int64, what string) error {
	f := expr.Sub(e, expr.Const(lo))
	if expr.NonNeg(f, im.bounds) {
		return nil
	}
	if v, ok := e.IsConst(); ok {
		// No symbol's range could change it.
		return fmt.Errorf("%s is %d; it must be at least %d", what, v, lo)
	}
	fail := unsup("%s %s may be below %d (give its symbol a larger minimum with -min)", what, e, lo)
	syms := f.Symbols()
	if len(syms) != 1 {
		return fail
	}
	s := syms[0]
	if _, rt := im.runTime[s]; rt {
		if from := im.runTimeFrom[s]; len(from) > 0 {
			return unsup("%s %s may be below %d: %s is (part of) a size computed at run time from the sizes %s, which may be as small as 0 (smaller maxima of those, -max %s=N, or larger minima, -min, may raise it)", what, e, lo, s, strings.Join(from, ", "), strings.Join(from, "=N -max "))
		}
		return unsup("%s %s may be below %d: %s is a size the model's data sets at run time, which may be as small as 0", what, e, lo, s)
	}
	if _, set := im.opts.Min[s]; set {
		return fail
	}
	r := im.bounds[s]
	proven := func(v int64) bool {
		b := maps.Clone(im.bounds)
		b[s] = expr.Range{Min: v, Max: r.Max}
		return expr.NonNeg(f, b)
	}
	// The smallest minimum that proves it: doubling, then bisecting
	// (a larger minimum never makes the proof harder).
	hi := max(r.Min, 1)
	for !proven(hi) {
		if hi > 1<<40 || (r.Max >= 0 && hi > r.Max) {
			return fail
		}
		hi *= 2
	}
	if r.Max >= 0 && hi > r.Max {
		hi = r.Max
		if !proven(hi) {
			return fail
		}
	}
	low := r.Min
	for low < hi {
		mid := low + (hi-low)/2
		if proven(mid) {
			hi = mid
		} else {
			low = mid + 1
		}
	}
	im.raiseMin(s, hi, fmt.Sprintf("%s %s is at least %d", what, e, lo))
	return nil
}

// raiseMin makes v the minimum of symbol s, which the user did not set,
// so that why holds; noted.
func (im *importer) raiseMin(s string, v int64, why string) {
	im.bounds[s] = expr.Range{Min: v, Max: im.bounds[s].Max}
	for i := range im.doc.symbols {
		if sym := &im.doc.symbols[i]; sym.name == s {
			sym.min = v
			if _, given := im.opts.Hints[s]; !given || sym.hint < v {
				sym.hint = max(sym.hint, v)
			}
		}
	}
	// One note per symbol, its last raise: the one that set the minimum.
	if im.minNotes == nil {
		im.minNotes = map[string]string{}
	}
	if _, seen := im.minNotes[s]; !seen {
		im.minOrder = append(im.minOrder, s)
	}
	im.minNotes[s] = fmt.Sprintf("symbol %s: min %d, so that %s (-min %s=N sets it)", s, v, why, s)
}

func (im *importer) addInput(i int, in *valueInfo) error {
	place := fmt.Sprintf("graph.input[%d] (%q)", i, in.name)
	t := in.typ
	if t == nil || t.kind == "" {
		return im.problem(place, "the input has no type")
	}
	if t.kind != "tensor" {
		return im.problem(place, "unsupported: %s types", t.kind)
	}
	d, err := dtypeOf(t.elemType)
	if err != nil {
		return im.problem(place, "unsupported: %v", err)
	}
	if !t.hasShape {
		return im.problem(place, "the input has no shape: wrapgen needs the rank of every graph input")
	}
	shape := make([]expr.Expr, len(t.dims))
	for k, dim := range t.dims {
		switch {
		case dim.hasValue && dim.value > maxDim:
			return im.problem(place, "dimension %d is %d, beyond the %d wrapgen plans for", k, dim.value, int64(maxDim))
		case dim.hasValue && dim.value >= 0:
			shape[k] = expr.Const(dim.value)
		case dim.param != "":
			shape[k] = im.symbol(im.symbolOf(dim.param, true))
		default:
			name := im.symbolOf(fmt.Sprintf("%s_dim%d", in.name, k), false)
			im.notes = append(im.notes, fmt.Sprintf("symbol %s stands for the unnamed dynamic dimension %d of input %q", name, k, in.name))
			shape[k] = im.symbol(name)
		}
	}
	v := &value{name: in.name, dtype: d, shape: shape, node: -1, inDoc: true}
	im.vals[in.name] = v
	im.doc.tensors = append(im.doc.tensors, &docTensor{name: in.name, dtype: d, shape: shape})
	im.doc.inputs = append(im.doc.inputs, in.name)
	return nil
}

func (im *importer) noteOnce(key, note string) {
	for _, n := range im.notes {
		if n == note {
			return
		}
	}
	im.notes = append(im.notes, note)
}

func (im *importer) addOutput(i int, out *valueInfo) error {
	place := fmt.Sprintf("graph.output[%d] (%q)", i, out.name)
	v := im.vals[out.name]
	if v == nil {
		return im.problem(place, "no node computes this output")
	}
	if v.node < 0 && v.inDoc {
		return im.problem(place, "unsupported: the output is a graph input passed through unchanged")
	}
	for _, o := range im.doc.outputs {
		if o == out.name {
			return im.problem(place, "unsupported: the output is listed twice")
		}
	}
	if !v.inDoc {
		// Computed at import time: the wrapper still has to return it.
		if err := im.materialize(v, true); err != nil {
			return im.problem(place, "%v", err)
		}
	}
	im.doc.outputs = append(im.doc.outputs, out.name)
	return nil
}

// materialize puts a value known at import time into the document, when a
// kernel reads it or the graph returns it: a concrete constant becomes a
// graph input (a weight, whose contents Result.Weights carries); symbolic
// integers become a "Constant" kernel call with the values as attribute.
func (im *importer) materialize(v *value, output bool) error {
	if v.inDoc {
		return nil
	}
	v.inDoc = true
	b, concrete := bytesOf(v)
	shape, _ := concreteShapeOf(v)
	if concrete && !output {
		im.addConstant(v.name, v, shape, b)
		return nil
	}
	if !isIntDType(v.dtype) && v.ints != nil {
		// A float holding sizes (foldFloatSizes): the integers, cast.
		src := im.fresh(v.name + ".ints")
		im.doc.tensors = append(im.doc.tensors, &docTensor{name: src, dtype: "i64", shape: v.shape},
			&docTensor{name: v.name, dtype: v.dtype, shape: v.shape})
		emit := im.emitOutside
		if im.setInLoop(v.ints) {
			emit = func(op *docOp) { im.doc.ops = append(im.doc.ops, op) }
		}
		emit(&docOp{kernel: "Constant", outputs: []string{src},
			attrs: []docAttr{{name: "value", kind: graph.AttrInts, ints: v.ints}}})
		emit(&docOp{kernel: "Cast", inputs: []string{src}, outputs: []string{v.name},
			attrs: []docAttr{{name: "to", kind: graph.AttrString, s: string(v.dtype)}}})
		return nil
	}
	if !isIntDType(v.dtype) {
		if !concrete {
			return fmt.Errorf("unsupported: the %s constant %q cannot be materialized", v.dtype, v.name)
		}
		// A float constant the graph returns: a weight copied out.
		src := im.fresh(v.name + ".value")
		im.addConstant(src, v, shape, b)
		im.doc.tensors = append(im.doc.tensors, &docTensor{name: v.name, dtype: v.dtype, shape: v.shape})
		im.emitOutside(&docOp{kernel: "Identity", inputs: []string{src}, outputs: []string{v.name}})
		return nil
	}
	im.doc.tensors = append(im.doc.tensors, &docTensor{name: v.name, dtype: v.dtype, shape: v.shape})
	op := &docOp{kernel: "Constant", outputs: []string{v.name},
		attrs: []docAttr{{name: "value", kind: graph.AttrInts, ints: v.ints}}}
	if im.setInLoop(v.ints) {
		// A size set in the body being imported (a Resize's, at run time):
		// known only after the op that sets it, in each iteration.
		im.doc.ops = append(im.doc.ops, op)
		return nil
	}
	im.emitOutside(op)
	return nil
}

// setInLoop reports whether es use a run-time size that an op of a loop
// body being imported sets.
func (im *importer) setInLoop(es []expr.Expr) bool {
	if len(im.outer) == 0 {
		return false
	}
	inBody := map[string]bool{}
	mark := func(o *docOp) {
		for _, s := range o.sets {
			inBody[s.symbol] = true
		}
	}
	walkOps(im.doc.ops, mark)
	for _, ops := range im.outer[1:] {
		walkOps(ops, mark)
	}
	for _, e := range es {
		for _, s := range e.Symbols() {
			if inBody[s] {
				return true
			}
		}
	}
	return false
}

// emitOutside appends op, which computes a value known at import time, to
// the ops outside every loop being imported: it does not change from one
// iteration to the next, and it stays defined after the loop.
func (im *importer) emitOutside(op *docOp) {
	if len(im.outer) > 0 {
		im.outer[0] = append(im.outer[0], op)
		return
	}
	im.doc.ops = append(im.doc.ops, op)
}

// addConstant puts a constant known at import time into the document as
// name: a param (its contents in Result.Weights) when the model stores it
// or it is large, else a tensor with inline data.
func (im *importer) addConstant(name string, v *value, shape []int64, data []byte) {
	t := &docTensor{name: name, dtype: v.dtype, shape: v.shape}
	im.doc.tensors = append(im.doc.tensors, t)
	switch v.dtype {
	case "c64", "c128", "f8e4m3fn", "f8e5m2": // format v1 has no inline form for these
	default:
		if !v.stored && len(data) <= InlineLimit {
			t.data = data
			return
		}
	}
	im.doc.params = append(im.doc.params, name)
	im.weights = append(im.weights, Weight{Name: name, DType: v.dtype, Shape: shape, Data: data})
}

func concreteShapeOf(v *value) ([]int64, bool) { return concrete(v.shape) }

func domains(opsets map[string]int64) []string {
	var out []string
	for d := range opsets {
		out = append(out, fmt.Sprintf("%q", d))
	}
	sort.Strings(out)
	return out
}

// InputNames lists a model's graph inputs in order (initializers included),
// the order of a node test's input_<i>.pb files.
func InputNames(data []byte) ([]string, error) {
	m, err := readModel(data)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, in := range m.graph.inputs {
		out = append(out, in.name)
	}
	return out, nil
}

// addParam makes graph input in a param with the contents w, as an
// initializer would be, after checking w against the input's type.
func (im *importer) addParam(i int, in *valueInfo, w Weight) error {
	place := fmt.Sprintf("graph.input[%d] (%q)", i, in.name)
	t := in.typ
	if t == nil || t.kind != "tensor" {
		return im.problem(place, "a param must be a tensor input")
	}
	d, err := dtypeOf(t.elemType)
	if err != nil {
		return im.problem(place, "unsupported: %v", err)
	}
	if d != w.DType {
		return im.problem(place, "the params file gives it dtype %s, the model declares %s", w.DType, d)
	}
	if t.hasShape {
		if len(t.dims) != len(w.Shape) {
			return im.problem(place, "the params file gives it shape %v, the model declares rank %d", w.Shape, len(t.dims))
		}
		for k, dim := range t.dims {
			if dim.hasValue && dim.value != w.Shape[k] {
				return im.problem(place, "the params file gives it shape %v, the model declares %d at dimension %d", w.Shape, dim.value, k)
			}
		}
	}
	code := int64(-1)
	for c, dt := range onnxDTypes {
		if dt == d {
			code = c
		}
	}
	v, err := tensorValue(&tensorProto{name: in.name, dims: w.Shape, dataType: code, rawData: w.Data, hasRaw: true})
	if err != nil {
		return im.problem(place, "params file: %v", err)
	}
	v.stored = true
	im.vals[in.name] = v
	return nil
}

// MainOp is the op a node test's model is about: its only node's, or, for
// a function expanded into several nodes, "(expanded) " and its last
// node's. "?" when the model does not read.
func MainOp(data []byte) string {
	m, err := readModel(data)
	if err != nil || len(m.graph.nodes) == 0 {
		return "?"
	}
	op := m.graph.nodes[len(m.graph.nodes)-1].opType
	if len(m.graph.nodes) > 1 {
		op = "(expanded) " + op
	}
	return op
}

// fixValues makes the graph inputs Options.Values names constants, after
// checking each against the input's declared type.
func (im *importer) fixValues() error {
	declared := map[string]*valueInfo{}
	var names []string
	for _, in := range im.m.graph.inputs {
		declared[in.name] = in
		names = append(names, in.name)
	}
	var problems graph.ErrorList
	for _, name := range slices.Sorted(maps.Keys(im.opts.Values)) {
		w := im.opts.Values[name]
		place := fmt.Sprintf("value of input %q", name)
		in := declared[name]
		if in == nil {
			problems = append(problems, graph.ErrorList{{File: im.file, Place: place, Msg: fmt.Sprintf("the model has no input %q (its inputs: %s)", name, strings.Join(names, ", "))}}...)
			continue
		}
		v, err := valueOfWeight(w)
		if err == nil {
			err = checkDeclared(in, v)
		}
		if err != nil {
			problems = append(problems, graph.ErrorList{{File: im.file, Place: place, Msg: err.Error()}}...)
			continue
		}
		v.name = name
		im.vals[name] = v
	}
	if len(problems) > 0 {
		return problems
	}
	return nil
}

// valueOfWeight is a constant value with w's contents.
func valueOfWeight(w Weight) (*value, error) {
	code := int64(-1)
	for c, d := range onnxDTypes {
		if d == w.DType {
			code = c
		}
	}
	if code < 0 {
		return nil, fmt.Errorf("dtype %q has no ONNX element type", w.DType)
	}
	n := int64(1)
	for _, d := range w.Shape {
		n *= d
	}
	if int64(len(w.Data)) != n*w.DType.Size() {
		return nil, fmt.Errorf("%d bytes for %s %v", len(w.Data), w.DType, w.Shape)
	}
	return tensorValue(&tensorProto{name: w.Name, dims: w.Shape, dataType: code, rawData: w.Data, hasRaw: true})
}

// checkDeclared checks a value given for an input against the type the
// model declares for it.
func checkDeclared(in *valueInfo, v *value) error {
	if in.typ == nil || in.typ.kind != "tensor" {
		return nil
	}
	if in.typ.elemType != 0 {
		if d, err := dtypeOf(in.typ.elemType); err == nil && d != v.dtype {
			return fmt.Errorf("the model declares %s, the value is %s", d, v.dtype)
		}
	}
	if !in.typ.hasShape {
		return nil
	}
	shape, _ := concrete(v.shape)
	if len(in.typ.dims) != len(shape) {
		return fmt.Errorf("the model declares rank %d, the value has shape %v", len(in.typ.dims), shape)
	}
	for k, d := range in.typ.dims {
		if d.hasValue && d.value != shape[k] {
			return fmt.Errorf("the model declares size %d at dimension %d, the value has shape %v", d.value, k, shape)
		}
	}
	return nil
}
