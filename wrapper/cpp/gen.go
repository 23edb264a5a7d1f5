// Package cpp emits a C++17 wrapper for a memory plan from the text/template
// sources in templates/: a header with a Kernels abstract class, Inputs,
// Outputs, Run and Runner, and a source file that checks the inputs and runs
// the plan's lines over pools of bytes. The runtime (a header and a
// source file, compiled once for any number of wrappers) is written beside
// them.
package cpp

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"text/template"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/internal/ident"
	"github.com/wrapgen/wrapgen/internal/quote"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/templates"
	"github.com/wrapgen/wrapgen/wrapper/emit"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
)

// RuntimeHeader is the name of the runtime header generated code includes;
// RuntimeSource defines what it declares, and is compiled once per program
// however many wrappers it links.
const (
	RuntimeHeader = "wrapgen_runtime.h"
	RuntimeSource = "wrapgen_runtime.cc"
)

// Options say how the files are named.
type Options struct {
	Source string // the graph file as the user names it, for the header
	// RefKernels adds the class RefKernels, which calls wrapgen's C++
	// reference kernels (RefKernelFiles, in wgref/ beside the wrapper),
	// and Options::threads; a graph with a kernel they lack is refused.
	RefKernels bool
	// Main adds base_main.cc (MainFile), a runner of the wrapper on .npy
	// inputs with RefKernels, and the .npy header it includes (NpyHeader);
	// it needs RefKernels.
	Main bool
}

var tmpl = template.Must(template.ParseFS(templates.FS, "cpp_*.tmpl"))

// Runtime returns the runtime's header and source file.
func Runtime() []emit.File {
	var files []emit.File
	for _, name := range []string{RuntimeHeader, RuntimeSource} {
		data, err := templates.FS.ReadFile("runtime/" + name)
		if err != nil {
			panic(err) // embedded at build time
		}
		files = append(files, emit.File{Path: name, Content: data})
	}
	return files
}

// Generate returns <name>.h and <name>.cc for p. A graph whose names cannot
// become C++ identifiers gives a graph.ErrorList.
func Generate(p *plan.Plan, opts Options) ([]emit.File, error) {
	model := emit.New(p)
	n := nameGraph(p.Graph, model.Kernels, model.CallerGives)
	if model.MaxRank > 8 {
		n.probs = append(n.probs, &graph.Problem{File: p.Graph.File, Place: "tensors",
			Msg: fmt.Sprintf("a tensor has rank %d; the C++ runtime supports rank up to 8 (wrapgen::kMaxRank)", model.MaxRank)})
	}
	if opts.Main && !opts.RefKernels {
		return nil, fmt.Errorf("cpp: Options.Main needs Options.RefKernels")
	}
	if opts.RefKernels {
		n.probs = append(n.probs, emit.MissingRefKernels(p.Graph, model.Kernels, wgref.Has)...)
	}
	if len(n.probs) > 0 {
		return nil, n.probs
	}
	w := &gen{p: p, g: p.Graph, n: n, model: model}
	src := opts.Source
	if src == "" {
		src = p.Graph.File
	}
	base := FileBase(p.Graph.Name, n.namespace)
	d := &fileData{
		SourceDoc: quote.CppComment(src), GraphDoc: quote.CppComment(p.Graph.Name), GraphLit: quote.Cpp(p.Graph.Name), Namespace: n.namespace, Guard: "WRAPGEN_" + strings.ToUpper(base) + "_H_",
		HeaderFile: base + ".h", Plan: fmt.Sprintf("%s, memory pools %s, align %d", p.StrategyText(), p.Mode, p.Align),
		Align: p.Align, TableVersion: emit.TableVersion, NumSymbols: len(p.Graph.Symbols), MaxArgs: model.MaxArgs,
	}
	w.header(d)
	if opts.RefKernels {
		w.refKernels(d)
	}
	w.tables(d)
	d.Bind = w.bind()
	d.Run = w.run()
	var h, cc bytes.Buffer
	if err := tmpl.ExecuteTemplate(&h, "cpp_header.h.tmpl", d); err != nil {
		return nil, fmt.Errorf("cpp: %w (a bug in wrapgen)", err)
	}
	if err := tmpl.ExecuteTemplate(&cc, "cpp_source.cc.tmpl", d); err != nil {
		return nil, fmt.Errorf("cpp: %w (a bug in wrapgen)", err)
	}
	files := []emit.File{{Path: base + ".h", Content: h.Bytes()}, {Path: base + ".cc", Content: cc.Bytes()}}
	if opts.Main {
		more, err := w.main(d, base)
		if err != nil {
			return nil, err
		}
		files = append(files, more...)
	}
	return files, nil
}

// maxFileBase bounds the name of the generated files (without .h/.cc), far
// below any filesystem's 255-byte limit once a temporary suffix is added.
const maxFileBase = 64

// FileBase is the name of the generated .h and .cc: the graph's name in
// snake_case, as C++ files are named (graph "tiny_bert", namespace
// tinyBert: tiny_bert.h; graph "MyNet": my_net.h), or the namespace's when
// the name has no letter or digit; when longer than maxFileBase, its
// first 55 characters, "_" and 8 hex digits of its FNV-1a hash, so
// distinct long names stay apart.
func FileBase(graphName, namespace string) string {
	base := snakeCase(graphName)
	if base == "" {
		base = snakeCase(namespace)
	}
	if len(base) <= maxFileBase {
		return base
	}
	h := fnv.New32a()
	h.Write([]byte(base))
	return fmt.Sprintf("%s_%08x", base[:maxFileBase-9], h.Sum32())
}

// snakeCase lowers a name to ASCII letters, digits and "_": a "_" where a
// capital follows a lower case letter or a digit, and for every run of
// other characters (none at either end): tinyBert -> tiny_bert,
// vit_b_16 -> vit_b_16, "my net.v2" -> my_net_v2.
func snakeCase(name string) string {
	var b strings.Builder
	gap := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		lower, upper, digit := 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9'
		if !lower && !upper && !digit {
			gap = b.Len() > 0
			continue
		}
		prev := byte(0)
		if i > 0 {
			prev = name[i-1]
		}
		if gap || upper && ('a' <= prev && prev <= 'z' || '0' <= prev && prev <= '9') {
			b.WriteByte('_')
		}
		gap = false
		if upper {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

type fileData struct {
	// SourceDoc and GraphDoc are for comments, GraphLit for string literals.
	SourceDoc, GraphDoc, GraphLit, Namespace, Guard, HeaderFile, Plan string
	Kernels                                                           []kernelDecl
	Inputs, Params, Outputs                                           []fieldDecl
	OpNames                                                           []listDecl
	Ops                                                               []string
	NumSymbols, MaxArgs, NumLoops, TableVersion                       int
	Align                                                             int64
	Devices, InputTensors, OutputTensors                              string
	InputNames, OutputNames, InputFields, OutputFields                []string
	// Plans holds the memory plan's arrays.
	Plans []planDecl
	// The program's arrays, a row per line; Cases are Frame::CallOp's.
	Code, Tensors, Dims, Lists, InputViews, OpArgs, OpStart []string
	Floats, Strings                                         string
	Cases                                                   []string
	Bind, Run                                               []string
	// Params and constants: tensor numbers, names, fields; constants'
	// contents as arrays.
	ParamTensors, ConstTensors string
	ParamNames, ParamFields    []string
	SymbolNames                string
	Guards                     string
	RunTimeSizes               string
	KeepPlan                   bool
	GuardTexts                 []string
	Consts                     []constDecl
	ConstData                  string
	// Ref is set for a wrapper with RefKernels: RefKernelNames is the
	// kernels' names, RefMethods the definitions of its methods.
	Ref            bool
	RefKernelNames string
	RefMethods     []string
	// CallOperands, CallAttrNames and CallLayouts are the rows of the op
	// table's kernel layouts (wrapgen::OpTable), for Options::prepare.
	CallOperands, CallAttrNames, CallLayouts []string
}

// kernelDecl is a Kernels method: Params on one line, ParamLines in
// parentheses laid out for the header.
type kernelDecl struct {
	Doc                        []string
	Method, Params, ParamLines string
	// RefParamLines are ParamLines laid out for RefKernels' declaration.
	RefParamLines string
	params        []string
}

// docWidth is the width of a comment's text.
const docWidth = 76

// list is items in braces after lead, laid out to the width (see
// emit.List), with tail characters after it on its line.
func list(lead string, items []string, tail int) string {
	return (&emit.List{Open: "{", Close: "}", Items: emit.Texts(items), Fill: true, Hug: true}).Format("", "    ", len(lead), tail)
}

// indentRows indents every line of each row after its first by indent
// (rows with their comment above them), as the template indents the first.
func indentRows(rows []string, indent string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.ReplaceAll(r, "\n", "\n"+indent)
	}
	return out
}

// planDecl is the plan's arrays: their names and contents.
type planDecl struct {
	StepsVar, PoolDevicesVar, OutputPoolsVar, OwnersVar, StoragesVar string
	PoolDevices, OutputPools, Owners                                 string
	Steps, PoolDocs, Storages                                        []string
}

type fieldDecl struct{ Type, Name, Doc string }
type listDecl struct{ Var, List string }

// constDecl is a constant's array: its comment lines, name and contents.
type constDecl struct {
	Doc       []string
	Var, List string
}

// intList is a C++ array of ints after lead, ending with the unused 0.
func intList(lead string, xs []int) string {
	items := make([]string, 0, len(xs)+1)
	for _, x := range xs {
		items = append(items, strconv.Itoa(x))
	}
	return list(lead, append(items, "0"), 1)
}

type gen struct {
	p     *plan.Plan
	g     *graph.Graph
	n     *names
	model *emit.Model
}

func (w *gen) expr(e expr.Expr) string {
	return e.Format(expr.Style{Name: func(s string) string { return w.n.symbol[s] }, FloorDiv: "wrapgen::FloorDiv", Mod: "wrapgen::Mod",
		Int: intLiteral,
		Max: func(a []string) string { return nest("std::max<int64_t>", a) },
		Min: func(a []string) string { return nest("std::min<int64_t>", a) }})
}

// nest applies the binary fn to any number of arguments: one is itself,
// more fold from the right (std::max has no one- or three-argument form
// that takes mixed expressions).
func nest(fn string, args []string) string {
	if len(args) == 1 {
		return "(" + args[0] + ")"
	}
	return fn + "(" + args[0] + ", " + nest(fn, args[1:]) + ")"
}

// intLiteral spells an int64 as C++: LL past 32 bits, and INT64_MIN as an
// expression, since 9223372036854775808 is no int64 literal and -Wall
// rejects it.
func intLiteral(c int64) string {
	switch {
	case c == math.MinInt64:
		return "(-9223372036854775807LL - 1)"
	case c > math.MaxInt32 || c < math.MinInt32:
		return strconv.FormatInt(c, 10) + "LL"
	}
	return strconv.FormatInt(c, 10)
}

func dtypeConst(d graph.DType) string {
	if d == "bool" {
		return "wrapgen::DType::kBool"
	}
	return "wrapgen::DType::k" + strings.ToUpper(string(d))
}

func (w *gen) header(d *fileData) {
	for _, k := range w.model.Kernels {
		var ps []string
		for _, o := range emit.CallOf(k).Operands {
			switch o.Role {
			case emit.RoleOutput:
				ps = append(ps, fmt.Sprintf("const wrapgen::Tensor& out%d", o.Index))
			case emit.RoleScratch:
				ps = append(ps, "const wrapgen::Tensor& scratch")
			case emit.RoleInputs:
				ps = append(ps, "wrapgen::Span<wrapgen::Tensor> ins")
			case emit.RoleInput:
				ps = append(ps, fmt.Sprintf("const wrapgen::Tensor& in%d", o.Index))
			case emit.RoleAttr:
				ps = append(ps, attrType(o.Kind)+" "+w.n.attr[k.Name][o.Index])
			}
		}
		lead := "  virtual wrapgen::Status " + w.n.kernel[k.Name]
		d.Kernels = append(d.Kernels, kernelDecl{Doc: emit.WrapText(emit.KernelDoc(k, w.n.kernel[k.Name], quote.CppComment), docWidth), Method: w.n.kernel[k.Name],
			Params: strings.Join(ps, ", "), params: ps,
			ParamLines: (&emit.List{Open: "(", Close: ")", Items: emit.Texts(ps), Fill: true, Hug: true}).Format("  ", "    ", len(lead), len(" = 0;"))})
	}
	for _, t := range w.g.Inputs {
		d.Inputs = append(d.Inputs, fieldDecl{"wrapgen::Tensor", w.n.field[t], emit.TensorDoc(t, quote.CppComment) + emit.SymbolDocs(w.g, t, quote.CppComment)})
	}
	for _, s := range w.g.Symbols {
		if w.model.CallerGives(s) {
			d.Inputs = append(d.Inputs, fieldDecl{"int64_t", w.n.symField[s.Name], "symbol " + quote.CppComment(s.Name) + ", which no input's shape gives"})
		}
	}
	for _, t := range w.g.Params {
		d.Params = append(d.Params, fieldDecl{"wrapgen::Tensor", w.n.field[t], emit.TensorDoc(t, quote.CppComment)})
	}
	for _, t := range w.g.Outputs {
		d.Outputs = append(d.Outputs, fieldDecl{"wrapgen::Tensor", w.n.field[t], emit.TensorDoc(t, quote.CppComment)})
	}
}

func attrType(k graph.AttrKind) string {
	switch k {
	case graph.AttrInt:
		return "int64_t"
	case graph.AttrFloat:
		return "double"
	case graph.AttrBool:
		return "bool"
	case graph.AttrString:
		return "const char*"
	default:
		return "wrapgen::Span<int64_t>"
	}
}

func quoteList(ts []*graph.Tensor) []string {
	var qs []string
	for _, t := range ts {
		qs = append(qs, quote.Cpp(t.Name))
	}
	return qs
}

// tables fills the op table, pool devices and the program's arrays.
func (w *gen) tables(d *fileData) {
	for i, op := range w.model.Ops {
		ref := func(kind string, ts []*graph.Tensor) string {
			if len(ts) == 0 {
				return "nullptr, 0"
			}
			v := ident.Numbered("k_op_"+kind, i)
			d.OpNames = append(d.OpNames, listDecl{v, list("const char* const "+v+"[] = ", quoteList(ts), 1)})
			return fmt.Sprintf("%s, %d", v, len(ts))
		}
		in, out, mut, sets := ref("inputs", op.Args()), ref("outputs", op.Outputs), ref("mutates", op.Mutates), ref("sets", op.Counts())
		d.Ops = append(d.Ops, fmt.Sprintf("%d, %s, %s, %s, %s, %s, %s", i, quote.Cpp(op.Place), quote.Cpp(op.Kernel), in, out, mut, sets))
	}
	t := w.model.Tables()
	rows := w.model.Rows(quote.CppComment, intLiteral)
	d.Code, d.Tensors, d.Dims, d.Lists, d.InputViews = rows.Code, indentRows(rows.Tensors, "    "), rows.Dims, rows.Lists, indentRows(rows.InputViews, "    ")
	d.OpArgs, d.OpStart = indentRows(rows.OpArgs, "    "), rows.OpStart
	d.Plans = w.plans(t, rows)
	var devices []string
	for _, x := range t.Devices {
		devices = append(devices, quote.Cpp(x))
	}
	d.Devices = list("const char* const kDevices[] = ", append(devices, "nullptr"), 1)
	d.InputTensors, d.OutputTensors = intList("const int32_t kInputs[] = ", t.Inputs), intList("const int32_t kOutputs[] = ", t.Outputs)
	for _, x := range w.g.Inputs {
		d.InputNames = append(d.InputNames, quote.Cpp(x.Name)+",")
		d.InputFields = append(d.InputFields, "&Inputs::"+w.n.field[x]+",")
	}
	d.ParamTensors, d.ConstTensors = intList("const int32_t kParams[] = ", t.Params), intList("const int32_t kConstants[] = ", t.Constants)
	var symbols []string
	for _, s := range w.g.Symbols {
		symbols = append(symbols, quote.Cpp(s.Name))
	}
	d.SymbolNames = list("const char* const kSymbolNames[] = ", append(symbols, "nullptr"), 1)
	for _, x := range w.g.Params {
		d.ParamNames = append(d.ParamNames, quote.Cpp(x.Name)+",")
		d.ParamFields = append(d.ParamFields, "&Params::"+w.n.field[x]+",")
	}
	var constVars []string
	for i, x := range w.g.Constants {
		bs := make([]string, len(x.Data))
		for j, b := range x.Data {
			bs[j] = strconv.Itoa(int(b))
		}
		v := ident.Numbered("k_const_", i)
		constVars = append(constVars, v)
		d.Consts = append(d.Consts, constDecl{Doc: emit.WrapText(v+": "+emit.ConstDoc(x, quote.CppComment), docWidth),
			Var: v, List: list("alignas(64) const uint8_t "+v+"[] = ", append(bs, "0"), 1)})
	}
	d.ConstData = list("const uint8_t* const kConstData[] = ", append(constVars, "nullptr"), 1)
	for _, x := range w.g.Outputs {
		d.OutputNames = append(d.OutputNames, quote.Cpp(x.Name)+",")
		d.OutputFields = append(d.OutputFields, "&Outputs::"+w.n.field[x]+",")
	}
	d.NumLoops = t.NumLoops
	d.Guards = intList("const int32_t kGuards[] = ", t.Guards)
	d.RunTimeSizes = intList("const int32_t kRunTimeSizes[] = ", t.RunTimeSizes)
	d.KeepPlan = t.KeepPlan
	for _, x := range t.GuardTexts {
		d.GuardTexts = append(d.GuardTexts, quote.Cpp(x)+",")
	}
	var floats, strs []string
	for _, x := range t.Floats {
		floats = append(floats, emit.FloatLiteral(x))
	}
	for _, x := range t.Strings {
		strs = append(strs, quote.Cpp(x))
	}
	d.Floats = list("[[maybe_unused]] const double kFloatAttrs[] = ", append(floats, "0.0"), 1)
	d.Strings = list("[[maybe_unused]] const char* const kStringAttrs[] = ", append(strs, "nullptr"), 1)
	for ki, k := range w.model.Kernels {
		d.Cases = append(d.Cases, w.dispatch(ki, k)...)
	}
}

func (w *gen) fail(prefix string) string {
	return fmt.Sprintf("if (!s.ok()) return wrapgen::Status::Error(%s + s.message());", quote.Cpp(w.g.Name+": "+prefix))
}

// bindFail is fail("input ") for binding symbol sym, ending with what the
// symbol stands for when it has a doc.
func (w *gen) bindFail(sym *graph.Symbol) string {
	if sym.Doc == "" {
		return w.fail("input ")
	}
	return fmt.Sprintf("if (!s.ok()) return wrapgen::Status::Error(%s + s.message() + %s);", quote.Cpp(w.g.Name+": input "), quote.Cpp(emit.BindingDoc(sym)))
}

// bind emits the symbol binding that starts Frame::Bind (the template
// goes on with the layout and the checks).
func (w *gen) bind() []string {
	var st []string
	st = append(st, "wrapgen::Status s;")
	binds, fromInputs := w.model.SymbolBinds()
	if fromInputs > 0 {
		st = append(st, fmt.Sprintf("bool bound[%d] = {};", fromInputs))
	}
	for _, sb := range binds {
		s, i := sb.Symbol, sb.Index
		if b := sb.From; b != nil {
			st = append(st, fmt.Sprintf("s = wrapgen::BindSymbol(&rt_.sym[%d], &bound[%d], %s, %s, in.%s, %d, %d, %s, %s);",
				i, sb.Slot, quote.Cpp(s.Name), quote.Cpp(b.Input.Name), w.n.field[b.Input], len(b.Input.Shape), b.Dim, intLiteral(b.Scale), intLiteral(b.Bias)), w.bindFail(s))
		} else {
			st = append(st, fmt.Sprintf("rt_.sym[%d] = in.%s;", i, w.n.symField[s.Name]))
		}
		st = append(st, fmt.Sprintf("s = wrapgen::CheckRange(%s, rt_.sym[%d], %s, %s);", quote.Cpp(s.Name), i, intLiteral(s.Min), intLiteral(sb.Max)), w.fail(""))
	}
	return st
}

// plans are the plan's arrays (kSteps, kPoolDevices, ...).
func (w *gen) plans(t *emit.Tables, rows emit.Rows) []planDecl {
	var ps []planDecl
	for i, pt := range t.Plans {
		b := w.model.Buckets[i]
		pd := planDecl{StepsVar: "kSteps", PoolDevicesVar: "kPoolDevices", OutputPoolsVar: "kOutputPools", OwnersVar: "kOutputOwners", StoragesVar: "kStorages"}
		var devs []string
		for j, pool := range b.Plan.Pools {
			devs = append(devs, quote.Cpp(pt.PoolDevices[j]))
			doc := emit.WrapText(fmt.Sprintf("pool %d on %s: %s bytes, %d storages, steps [%d, %d)", j, quote.CppComment(pool.Device), emit.ShortExpr(pool.Size), len(pool.Buffers), pool.Begin, pool.End), docWidth)
			for k := 1; k < len(doc); k++ {
				doc[k] = "    " + doc[k]
			}
			pd.PoolDocs = append(pd.PoolDocs, doc...)
		}
		pd.PoolDevices = list("const char* const "+pd.PoolDevicesVar+"[] = ", append(devs, "nullptr"), 1)
		pd.Steps, pd.Storages = indentRows(rows.Steps[i], "    "), indentRows(rows.Storages[i], "    ")
		pd.OutputPools, pd.Owners = intList("const int32_t "+pd.OutputPoolsVar+"[] = ", pt.OutputPools), intList("const int32_t "+pd.OwnersVar+"[] = ", pt.OutputOwners)
		ps = append(ps, pd)
	}
	return ps
}

// run emits the end of Frame::Run, after the template ran the steps: the
// outputs delivered, each with the owner of the pool that holds it in the
// plan that ran.
func (w *gen) run() []string {
	t := w.model.Tables()
	var st []string
	for j, x := range w.g.Outputs {
		st = append(st, fmt.Sprintf("wrapgen::Deliver(&out->%s, rt_.t[%d], rt_.OutputOwner(%d));", w.n.field[x], t.TensorIndex[x], j))
	}
	return st
}

// dispatch is kernel number ki's case in Frame::CallOp: its call with the
// operands emit.CallOf places in the op's row.
func (w *gen) dispatch(ki int, k *graph.Kernel) []string {
	l := emit.CallOf(k)
	var pre, args []string
	row := func(o emit.Operand) string {
		if o.AfterList {
			return fmt.Sprintf("a[n + %d]", o.At)
		}
		return fmt.Sprintf("a[%d]", o.At)
	}
	for _, o := range l.Operands {
		switch o.Role {
		case emit.RoleOutput, emit.RoleScratch, emit.RoleInput:
			args = append(args, "t["+row(o)+"]")
		case emit.RoleInputs:
			n := l.ListAt
			pre = append(pre, fmt.Sprintf("const int n = %d + a[%d];", n+1, n),
				fmt.Sprintf("for (int j = %d; j < n; j++) args_[j - %d] = t[a[j]];", n+1, n+1))
			args = append(args, fmt.Sprintf("wrapgen::Span<wrapgen::Tensor>(args_, static_cast<size_t>(a[%d]))", n))
		case emit.RoleAttr:
			switch o.Kind {
			case graph.AttrInt:
				args = append(args, "vals["+row(o)+"]")
			case graph.AttrFloat:
				args = append(args, "kFloatAttrs["+row(o)+"]")
			case graph.AttrBool:
				args = append(args, row(o)+" != 0")
			case graph.AttrString:
				args = append(args, "kStringAttrs["+row(o)+"]")
			case graph.AttrInts:
				args = append(args, "lists["+row(o)+"]")
			}
		}
	}
	out := []string{fmt.Sprintf("case %d: {  // %s", ki, quote.CppComment(k.Name))}
	for _, l := range pre {
		out = append(out, "  "+l)
	}
	lead := "      return k_->" + w.n.kernel[k.Name]
	call := (&emit.List{Open: "(", Close: ")", Items: emit.Texts(args), Fill: true, Hug: true}).Format("      ", "    ", len(lead), 1)
	return append(out, "  return k_->"+w.n.kernel[k.Name]+call+";", "}")
}
