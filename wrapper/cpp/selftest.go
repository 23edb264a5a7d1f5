package cpp

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/internal/quote"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/templates"
	"github.com/wrapgen/wrapgen/wrapper/emit"
)

// SelftestMain is the file name of the selftest's main program.
const SelftestMain = "selftest_main.cc"

// SelftestFiles returns the wrapper, the runtime, the sentinel header and a
// main program that runs p's wrapper with sentinel kernels, through Run
// once and a Runner twice, at the symbol values given as name=value
// arguments (default: env's, else the plan's hints), so that one build
// serves every value (and, with size buckets, every bucket's plan). Built
// and run, it prints "selftest: ok" and exits 0 only if every check passed.
func SelftestFiles(p *plan.Plan, env expr.Env) ([]emit.File, error) {
	files, err := Generate(p, Options{Source: p.Graph.Name + ".json"})
	if err != nil {
		return nil, err
	}
	sentinel, err := templates.FS.ReadFile("sentinel.h")
	if err != nil {
		return nil, err
	}
	main, err := selftestMain(p, env)
	if err != nil {
		return nil, err
	}
	files = append(files, Runtime()...)
	return append(files, emit.File{Path: "sentinel.h", Content: sentinel}, emit.File{Path: SelftestMain, Content: main}), nil
}

type selftestData struct {
	GraphDoc, GraphLit, Namespace, HeaderFile string
	Symbols                                   []selftestSymbol
	Kernels                                   []selftestKernel
	Storages, Views, Forget                   []string
	Permits                                   []string
	// Inputs are rows of Checker::InputEntry, InputFields where each goes.
	Inputs, InputFields, SymbolInputs []string
	// ParamEntries and ParamFields are the same for the params.
	ParamEntries, ParamFields []string
	Devices                   []string // quoted
	Outputs                   []struct{ NameLit, Field string }
}

type selftestKernel struct{ Method, Params, Body string }

type selftestSymbol struct {
	NameLit, Local string
	Hint           int64
}

func selftestMain(p *plan.Plan, env expr.Env) ([]byte, error) {
	g := p.Graph
	model := emit.New(p)
	n := nameGraph(g, model.Kernels, model.CallerGives)
	w := &gen{p: p, g: g, n: n, model: model}
	// Sizes and offsets are C++ expressions over the symbols, read from the
	// command line, so one build runs at any symbol values.
	cx := func(e expr.Expr) string { return "(" + w.expr(e) + ")" }
	d := &selftestData{GraphDoc: quote.CppComment(g.Name), GraphLit: quote.Cpp(g.Name), Namespace: n.namespace, HeaderFile: FileBase(g.Name, n.namespace) + ".h"}
	for _, s := range g.Symbols {
		v := p.Hints[s.Name]
		if x, ok := env[s.Name]; ok {
			v = x
		}
		d.Symbols = append(d.Symbols, selftestSymbol{quote.Cpp(s.Name), n.symbol[s.Name], v})
	}

	index := map[*graph.Tensor]int{}
	addStorage := func(owner string, size expr.Expr, ts ...*graph.Tensor) {
		for _, t := range ts {
			index[t] = len(d.Storages)
		}
		d.Storages = append(d.Storages, fmt.Sprintf("%s, %s", quote.Cpp(owner), cx(size)))
	}
	// Every size bucket's plan has the same storages (placed differently),
	// and the checker knows storages, not pools: one table serves them all.
	for _, b := range model.Plan.Buffers {
		addStorage(b.Owner().Name, b.Size, b.Tensors...)
	}
	// Inputs and params are made by the checker, filled with its pattern;
	// constants hold the wrapper's own data, read but never checked.
	for _, ts := range [][]*graph.Tensor{g.Inputs, g.Params, g.Constants} {
		for _, t := range ts {
			addStorage(t.Name, t.StorageBytes(), t)
		}
	}
	for _, t := range g.Tensors {
		s, ok := index[t.Root]
		if !ok {
			continue
		}
		d.Views = append(d.Views, fmt.Sprintf("%s, %d, %s", quote.Cpp(t.Name), s, cx(expr.Scale(t.RootOffset(), t.DType.Size()))))
	}
	forget := model.ForgetAfter()
	var ops []int
	for op := range forget {
		ops = append(ops, op)
	}
	sort.Ints(ops)
	for _, op := range ops {
		for _, b := range forget[op] {
			d.Forget = append(d.Forget, fmt.Sprintf("%d, %d", op, index[b.Owner()]))
		}
	}
	for _, a := range model.AliasPermits() {
		d.Permits = append(d.Permits, fmt.Sprintf("%d, %d, %d", a.Op, a.Out, a.In))
	}

	entry := func(t *graph.Tensor) string {
		var shape, strides []string
		for i := range t.Shape {
			shape, strides = append(shape, cx(t.Shape[i])), append(strides, cx(t.Strides[i]))
		}
		return fmt.Sprintf("{%s, %s, %s, %d, {%s}, {%s}},", quote.Cpp(t.Name), dtypeConst(t.DType), quote.Cpp(t.Device),
			len(t.Shape), strings.Join(shape, ", "), strings.Join(strides, ", "))
	}
	for _, t := range g.Inputs {
		d.Inputs = append(d.Inputs, entry(t))
		d.InputFields = append(d.InputFields, "&"+n.namespace+"::Inputs::"+n.field[t]+",")
	}
	for _, t := range g.Params {
		d.ParamEntries = append(d.ParamEntries, entry(t))
		d.ParamFields = append(d.ParamFields, "&"+n.namespace+"::Params::"+n.field[t]+",")
	}
	for _, s := range g.Symbols {
		if model.CallerGives(s) {
			d.SymbolInputs = append(d.SymbolInputs, fmt.Sprintf("in.%s = %s;", n.symField[s.Name], n.symbol[s.Name]))
		}
	}
	for _, dev := range g.OtherDevices() {
		d.Devices = append(d.Devices, quote.Cpp(dev))
	}
	for _, t := range g.Outputs {
		d.Outputs = append(d.Outputs, struct{ NameLit, Field string }{quote.Cpp(t.Name), n.field[t]})
	}
	hd := &fileData{}
	w.header(hd)
	for i, k := range model.Kernels {
		var outs, ins, voids []string
		for j := 0; j < k.Outputs; j++ {
			outs = append(outs, fmt.Sprintf("&out%d", j))
		}
		if k.Scratch {
			voids = append(voids, "(void)scratch;")
		}
		for _, a := range n.attr[k.Name] {
			voids = append(voids, "(void)"+a+";")
		}
		var body string
		if k.Variadic {
			body = fmt.Sprintf("std::vector<const wrapgen::Tensor*> p;\n    for (const wrapgen::Tensor& t : ins) p.push_back(&t);\n    return c_->Call({%s}, p.data(), static_cast<int>(p.size()));", strings.Join(outs, ", "))
		} else if k.Inputs == 0 {
			body = fmt.Sprintf("return c_->Call({%s}, nullptr, 0);", strings.Join(outs, ", "))
		} else {
			for j := 0; j < k.Inputs; j++ {
				ins = append(ins, fmt.Sprintf("&in%d", j))
			}
			body = fmt.Sprintf("const wrapgen::Tensor* ins[] = {%s};\n    return c_->Call({%s}, ins, %d);", strings.Join(ins, ", "), strings.Join(outs, ", "), k.Inputs)
		}
		if len(voids) > 0 {
			body = strings.Join(voids, " ") + "\n    " + body
		}
		d.Kernels = append(d.Kernels, selftestKernel{Method: hd.Kernels[i].Method, Params: hd.Kernels[i].Params, Body: body})
	}
	var buf bytes.Buffer
	if err := tmpl.ExecuteTemplate(&buf, "cpp_selftest.cc.tmpl", d); err != nil {
		return nil, fmt.Errorf("cpp: %w (a bug in wrapgen)", err)
	}
	return buf.Bytes(), nil
}
